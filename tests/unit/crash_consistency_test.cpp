// Crash consistency of the recorded history, unit by unit: intervals a killed
// run left open are ended at its last sample; a torn write-ahead log is
// noted; a damaged store is moved aside whole; a GPU NVML cannot open gets
// its bus id from the PCI bus; the agent counts a GPU lost from its first
// sample, and says when it first saw one lost.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "agent/agent_events.h"
#include "agent/http_snapshot.h"
#include "collect/gpu_bus_ids.h"
#include "store/store.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace crash_consistency_test {  // named: unity sources join test files

using test::At;
using test::MakeSystem;

StoreOptions OptionsIn(const test::TempDir& dir) {
  StoreOptions o;
  o.data_dir = dir.path().string();
  return o;
}

FindingInterval Brake(const std::string& bus) {
  FindingInterval f;
  f.finding_id = "power.brake";
  f.gpus = {bus};
  f.severity = Severity::kCritical;
  f.title.en = "braking";
  return f;
}

TEST(CrashConsistency, OpenIntervalsOfAKilledRunEndAtItsLastSample) {
  test::TempDir dir;
  {
    auto store = test::OpenOrDie(OptionsIn(dir));
    for (int s = 0; s < 30; ++s) ASSERT_TRUE(store->AppendSample(At(s), MakeSystem(1, s)).ok());
    ASSERT_TRUE(store->FindingSeen(Brake(test::BusId(0)), At(10)).ok());
    // Killed here: the interval was never cleared.
  }
  auto store = test::OpenOrDie(OptionsIn(dir));
  auto last = store->LastSampleTime();
  ASSERT_TRUE(last.ok()) << last.error().message;
  ASSERT_TRUE(last->has_value());
  EXPECT_EQ(**last, At(29));
  auto closed = store->CloseOpenFindings(**last);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(*closed, 1);
  auto w = store->ReadWindow(At(0), At(100), {});
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->timeline.findings.size(), 1u);
  ASSERT_TRUE(w->timeline.findings[0].end.has_value()) << "not active: no agent holds it";
  EXPECT_EQ(*w->timeline.findings[0].end, At(29));
  EXPECT_EQ(*store->CloseOpenFindings(At(40)), 0) << "nothing left open";
  // An empty store has no last sample.
  test::TempDir empty;
  auto fresh = test::OpenOrDie(OptionsIn(empty));
  auto none = fresh->LastSampleTime();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(CrashConsistency, TornWriteAheadLogIsNoted) {
  test::TempDir dir;
  const std::string db = (dir.path() / "gpudoctor.db").string();
  EXPECT_EQ(WalDamageNote(db), "") << "no WAL";
  // SQLite's WAL header: magic 0x377f0682, version, page size 4096 (big endian).
  std::string header(32, '\0');
  header.replace(0, 4, "\x37\x7f\x06\x82");
  header[10] = '\x10';
  const std::string whole = header + std::string(2 * (24 + 4096), 'x');
  dir.Write("gpudoctor.db-wal", whole);
  EXPECT_EQ(WalDamageNote(db), "") << "two whole frames";
  dir.Write("gpudoctor.db-wal", whole.substr(0, whole.size() - 1000));
  const std::string note = WalDamageNote(db);
  EXPECT_NE(note.find("ends inside a frame"), std::string::npos) << note;
  EXPECT_NE(note.find("gpudoctor.db-wal"), std::string::npos) << note;
  dir.Write("gpudoctor.db-wal", "short");
  EXPECT_NE(WalDamageNote(db).find("cut short"), std::string::npos);
  dir.Write("gpudoctor.db-wal", std::string(64, 'z'));
  EXPECT_NE(WalDamageNote(db).find("bad header"), std::string::npos);
}

TEST(CrashConsistency, DamagedStoreMovesAsideWholeAndIsKept) {
  test::TempDir dir;
  dir.Write("gpudoctor.db", "db");
  dir.Write("gpudoctor.db-wal", "wal");
  auto moved = MoveDamagedStoreAside(dir.path().string(), At(0));
  ASSERT_TRUE(moved.ok()) << moved.error().message;
  EXPECT_NE(moved->find("gpudoctor.db.corrupt-"), std::string::npos) << *moved;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "gpudoctor.db"));
  EXPECT_TRUE(std::filesystem::exists(*moved));
  EXPECT_TRUE(std::filesystem::exists(*moved + "-wal")) << "the pair stays a pair";
  // A second damage in the same second does not overwrite the first.
  dir.Write("gpudoctor.db", "db2");
  auto again = MoveDamagedStoreAside(dir.path().string(), At(0));
  ASSERT_TRUE(again.ok());
  EXPECT_NE(*again, *moved);
  EXPECT_TRUE(std::filesystem::exists(*moved));
}

PciDevice Gpu(const std::string& bus) {
  PciDevice d;
  d.bus_id = bus;
  d.kind = PciFunctionKind::kGpu;
  d.vendor_id = 0x10de;
  return d;
}

GpuStatus Listed(unsigned index, const std::string& bus, GpuState state) {
  GpuStatus g;
  g.index = index;
  g.pci_bus_id = bus;
  g.state = state;
  return g;
}

TEST(CrashConsistency, GpuNvmlCannotOpenGetsItsBusIdFromThePciBus) {
  SystemStatus s;
  s.nvml_loaded = true;
  s.gpus = {Listed(0, "0000:18:00.0", GpuState::kOk), Listed(1, "", GpuState::kLost),
            Listed(2, "0000:3b:00.0", GpuState::kOk)};
  const std::vector<PciDevice> bus = {Gpu("0000:3b:00.0"), Gpu("0000:2a:00.0"), Gpu("0000:18:00.0")};
  EXPECT_EQ(FillBusIdsFromPci(s, bus), 1u);
  EXPECT_EQ(s.gpus[1].pci_bus_id, "0000:2a:00.0");
  EXPECT_NE(s.gpus[1].state_detail.find("sysfs"), std::string::npos);
  // Ambiguous (two GPUs without a bus id, one free slot, and the bus does
  // not hold exactly NVML's GPUs): left alone rather than guessed.
  SystemStatus two;
  two.gpus = {Listed(0, "", GpuState::kLost), Listed(1, "", GpuState::kLost),
              Listed(2, "0000:3b:00.0", GpuState::kOk)};
  EXPECT_EQ(FillBusIdsFromPci(two, {Gpu("0000:3b:00.0"), Gpu("0000:18:00.0")}), 0u);
  EXPECT_EQ(two.gpus[0].pci_bus_id, "");
}

TEST(CrashConsistency, AgentCountsAGpuLostBeforeItStartedFromTheFirstSample) {
  SystemStatus s;
  s.nvml_loaded = true;
  s.gpus = {Listed(0, "0000:18:00.0", GpuState::kOk), Listed(1, "0000:2a:00.0", GpuState::kLost)};
  SnapshotBuilder b(At(0), std::chrono::milliseconds(1000));
  b.OnSample(s, At(0), 0.01);
  FindingInterval lost;
  lost.finding_id = "gpu.lost";
  lost.gpus = {"0000:2a:00.0"};
  lost.severity = Severity::kCritical;
  b.OnFindings({lost});
  auto snap = b.Build(0, StoreStats{}, 1, 0);
  EXPECT_EQ(snap->gpus_lost, 1u);
  EXPECT_EQ(snap->gpus_visible, 1u);
  ASSERT_TRUE(snap->gpus.count("0000:2a:00.0"));
  EXPECT_TRUE(snap->gpus.at("0000:2a:00.0").seen) << "it has a verdict series";
  EXPECT_EQ(snap->gpus.at("0000:2a:00.0").verdict, Severity::kCritical);
  EXPECT_EQ(snap->gpus.at("0000:2a:00.0").labels.index, 1u);
  // On the PCI bus but not listed by NVML: lost too.
  b.OnDroppedGpus({"0000:5c:00.0"});
  EXPECT_EQ(b.Build(0, StoreStats{}, 1, 0)->gpus_lost, 2u);
  // The first reading names it in an event; a GPU that answers does not.
  auto events = GpuLossEvents(SystemStatus{}, s, At(0));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].pci_bus_id, "0000:2a:00.0");
  EXPECT_NE(events[0].message.find("first seen"), std::string::npos) << events[0].message;
}

}  // namespace crash_consistency_test
}  // namespace gpudoctor
