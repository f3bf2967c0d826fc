// The store's escalation ledger and latched findings (schema 5), and
// `gpudoctor ack`'s acknowledgement written beside a running agent (the
// agent's store open, its lock held): once per boot, counting restarts after
// an acknowledgement, one latch per cause and GPU, the audit event, the
// selectors and the one-line errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "store/latch_ack.h"
#include "store/store.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace {
namespace store_latch_local {

using test::At;

StoreOptions OptionsFor(const test::TempDir& dir, bool read_only = false) {
  StoreOptions o;
  o.data_dir = dir.path().string();
  o.read_only = read_only;
  return o;
}

const RecurringCause kXid79{"xid.fallen_off_bus", 79};

LatchedFinding LatchOf(const std::string& bus, const std::string& uuid, WallTime since) {
  LatchedFinding l;
  l.finding_id = kXid79.finding_id;
  l.xid = kXid79.xid;
  l.gpu = bus;
  l.uuid = uuid;
  l.serial = "1650000000001";
  l.boots = 3;
  l.after_reboots = 2;
  l.first_seen = At(0);
  l.since = since;
  l.title_en = "GPU 1 fell off the bus (Xid 79)";
  return l;
}

TEST(StoreLatches, OneOccurrencePerBootAndCountingRestartsAfterAnAcknowledgement) {
  test::TempDir dir;
  auto store = Store::Open(OptionsFor(dir));
  ASSERT_TRUE(store.ok()) << store.error().message;
  Store& s = **store;
  ASSERT_TRUE(s.AppendSample(At(0), test::MakeSystem(2, 0)).ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(s.RecordOccurrence("GPU-a", "0000:18:00.0", kXid79, "boot-1", At(10 + i)).ok());
  }
  ASSERT_TRUE(s.RecordOccurrence("GPU-a", "0000:18:00.0", kXid79, "boot-2", At(1000)).ok());
  // Another GPU, another Xid: apart.
  ASSERT_TRUE(s.RecordOccurrence("GPU-b", "0000:28:00.0", kXid79, "boot-2", At(1000)).ok());
  ASSERT_TRUE(
      s.RecordOccurrence("GPU-a", "0000:18:00.0", {"xid.memory", 48}, "boot-2", At(1000)).ok());
  auto history = s.Occurrences("GPU-a", kXid79, At(0));
  ASSERT_TRUE(history.ok()) << history.error().message;
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].boot_id, "boot-1");
  EXPECT_EQ((*history)[0].time, At(10)) << "the first time in the boot";
  EXPECT_EQ((*history)[1].boot_id, "boot-2");
  // The window: from a time after the first boot's.
  EXPECT_EQ(s.Occurrences("GPU-a", kXid79, At(500))->size(), 1u);

  // Latched once; a second latch of the same cause and GPU is not made.
  auto latched = s.Latch(LatchOf("0000:18:00.0", "GPU-a", At(2000)));
  ASSERT_TRUE(latched.ok()) << latched.error().message;
  EXPECT_TRUE(*latched);
  EXPECT_FALSE(*s.Latch(LatchOf("0000:18:00.0", "GPU-a", At(2100))));
  auto open = s.OpenLatches(At(2200));
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].gpu, "0000:18:00.0");
  EXPECT_EQ((*open)[0].uuid, "GPU-a");
  EXPECT_EQ((*open)[0].xid, 79);
  EXPECT_EQ((*open)[0].boots, 3);
  EXPECT_EQ((*open)[0].since, At(2000));
  EXPECT_TRUE(s.OpenLatches(At(1999))->empty()) << "not latched before it latched";

  // Acknowledged beside the running agent (its store open, lock held).
  AckRequest ack;
  ack.gpu = "1";  // GPU 1 is 0000:28:00.0 in the samples: nothing latched there
  ack.who = "alice";
  ack.reason = "board replaced, RMA 4711";
  ack.via = "gpudoctor ack";
  auto none = AcknowledgeLatches(dir.path().string(), ack, At(3000));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_NE(none.error().message.find("latched now: gpu.needs_inspection on GPU 0000:18:00.0 "
                                      "(GPU-a) for xid.fallen_off_bus (Xid 79)"),
            std::string::npos)
      << none.error().message;
  ack.gpu = "0";  // by index
  auto acked = AcknowledgeLatches(dir.path().string(), ack, At(3000));
  ASSERT_TRUE(acked.ok()) << acked.error().message;
  ASSERT_EQ(acked->size(), 1u);
  EXPECT_TRUE(s.OpenLatches(At(3001))->empty());
  EXPECT_EQ(s.OpenLatches(At(2500))->size(), 1u) << "the history is kept";
  // Counting starts again after the acknowledgement.
  EXPECT_TRUE(s.Occurrences("GPU-a", kXid79, At(0))->empty());
  ASSERT_TRUE(s.RecordOccurrence("GPU-a", "0000:18:00.0", kXid79, "boot-3", At(4000)).ok());
  EXPECT_EQ(s.Occurrences("GPU-a", kXid79, At(0))->size(), 1u);
  // A new latch of the same cause can be made again.
  EXPECT_TRUE(*s.Latch(LatchOf("0000:18:00.0", "GPU-a", At(5000))));

  // The audit: latched and acknowledged events, read back by a report.
  auto reader = Store::Open(OptionsFor(dir, true));
  ASSERT_TRUE(reader.ok()) << reader.error().message;
  auto window = (*reader)->ReadWindow(At(0), At(4500), {});
  ASSERT_TRUE(window.ok()) << window.error().message;
  std::vector<std::string> audit;
  for (const auto& e : window->events) {
    if (e.kind == KernelEventKind::kLatched || e.kind == KernelEventKind::kAcknowledged) {
      audit.push_back(std::string(KernelEventKindName(e.kind)) + ": " + e.message);
    }
  }
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_NE(audit[0].find("latched: xid.fallen_off_bus (Xid 79) on GPU 0000:18:00.0 GPU-a came "
                          "back after 2 reboot(s)"),
            std::string::npos)
      << audit[0];
  EXPECT_NE(audit[1].find("acknowledged: alice acknowledged gpu.needs_inspection on GPU "
                          "0000:18:00.0"),
            std::string::npos)
      << audit[1];
  EXPECT_NE(audit[1].find("(via gpudoctor ack): board replaced, RMA 4711"), std::string::npos)
      << audit[1];
  EXPECT_TRUE(window->latched.empty()) << "acknowledged by the window's end";
  auto earlier = (*reader)->ReadWindow(At(0), At(2500), {});
  ASSERT_TRUE(earlier.ok());
  ASSERT_EQ(earlier->latched.size(), 1u) << "latched at that window's end";
}

TEST(StoreLatches, AcknowledgingNeedsAReasonAGpuWhenSeveralAreLatchedAndAStore) {
  test::TempDir dir;
  {
    auto store = Store::Open(OptionsFor(dir));
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->AppendSample(At(0), test::MakeSystem(2, 0)).ok());
    ASSERT_TRUE(*(*store)->Latch(LatchOf("0000:18:00.0", "GPU-a", At(100))));
    ASSERT_TRUE(*(*store)->Latch(LatchOf("0000:28:00.0", "GPU-b", At(100))));
  }
  AckRequest ack;
  ack.who = "bob";
  ack.via = "gpudoctor ack";
  auto no_reason = AcknowledgeLatches(dir.path().string(), ack, At(200));
  ASSERT_FALSE(no_reason.ok());
  EXPECT_EQ(no_reason.error().code, ErrorCode::kInvalid);
  ack.reason = "  ";
  EXPECT_FALSE(AcknowledgeLatches(dir.path().string(), ack, At(200)).ok());
  ack.reason = "reseated\nboth\x1b[31m";
  auto both = AcknowledgeLatches(dir.path().string(), ack, At(200));
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(both.error().message,
            "gpu.needs_inspection: latched on 2 GPUs (0000:18:00.0, 0000:28:00.0); name one with "
            "--gpu");
  // Another finding id than the latched cause's matches nothing.
  ack.finding = "xid.memory";
  EXPECT_EQ(AcknowledgeLatches(dir.path().string(), ack, At(200)).error().code,
            ErrorCode::kNotFound);
  ack.finding = "xid.fallen_off_bus";
  ack.gpu = "GPU-b";  // by UUID
  auto one = AcknowledgeLatches(dir.path().string(), ack, At(200));
  ASSERT_TRUE(one.ok()) << one.error().message;
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].gpu, "0000:28:00.0");
  ack.finding.clear();
  ack.gpu = "18:00.0";  // by bus id, short
  ASSERT_TRUE(AcknowledgeLatches(dir.path().string(), ack, At(300)).ok());
  auto left = ListOpenLatches(dir.path().string(), At(400));
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(left->empty());
  // The reason was kept as one printable line.
  auto reader = Store::Open(OptionsFor(dir, true));
  ASSERT_TRUE(reader.ok());
  auto window = (*reader)->ReadWindow(At(0), At(500), {});
  ASSERT_TRUE(window.ok());
  bool found = false;
  for (const auto& e : window->events) {
    if (e.kind != KernelEventKind::kAcknowledged) continue;
    found = true;
    EXPECT_EQ(e.message.find('\n'), std::string::npos) << e.message;
    EXPECT_EQ(e.message.find('\x1b'), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("reseated both"), std::string::npos) << e.message;
  }
  EXPECT_TRUE(found);

  // No store; a store file that is a symbolic link.
  test::TempDir empty;
  auto missing = AcknowledgeLatches(empty.path().string(), ack, At(0));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(empty.path() / "gpudoctor.db")) << "nothing created";
  std::filesystem::create_symlink(dir.path() / "gpudoctor.db", empty.path() / "gpudoctor.db");
  auto link = AcknowledgeLatches(empty.path().string(), ack, At(0));
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().code, ErrorCode::kPermission);
}

}  // namespace store_latch_local
}  // namespace
}  // namespace gpudoctor
