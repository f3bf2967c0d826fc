// An earlier boot's crash kept in pstore (collect/pstore.h): records under
// /sys/fs/pstore and /var/lib/systemd/pstore are read below the root, with
// their paths as the user knows them; records older than the window, files
// that are not dmesg records, and links are left alone.
#include <gtest/gtest.h>

#include <filesystem>

#include "collect/pstore.h"
#include "parse/kernel_events.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {
namespace pstore_local {

constexpr const char* kPanic =
    "Panic#1 Part1\n"
    "<0>[ 8123.456789] Kernel panic - not syncing: Fatal exception\n"
    "<4>[ 8123.456801] CPU: 3 PID: 811 Comm: python3 Tainted: P           OE     5.15.0 #1\n";

TEST(Pstore, ReadsRecordsOfTheWindowBelowTheRoot) {
  test::TempDir root;
  root.Write("var/lib/systemd/pstore/1733466000/001/dmesg.txt", kPanic);
  std::string old = root.Write("var/lib/systemd/pstore/1700000000/001/dmesg.txt", kPanic);
  root.Write("sys/fs/pstore/console-ramoops-0", kPanic);  // not a dmesg record
  std::filesystem::create_directories(root.path() / "sys/fs/pstore");
  std::filesystem::create_symlink(root.path() / "var/lib/systemd/pstore/1733466000/001/dmesg.txt",
                                  root.path() / "sys/fs/pstore/dmesg-ramoops-0");
  CollectContext ctx;
  ctx.root = root.path();
  const auto now = std::filesystem::file_time_type::clock::now();
  std::filesystem::last_write_time(old, now - std::chrono::hours(24 * 30));
  PstoreRecords r = ReadPstore(ctx, ctx.now - std::chrono::hours(24));
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].path, "/var/lib/systemd/pstore/1733466000/001/dmesg.txt");
  auto events = ExtractKernelEvents(r.records[0].lines);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kKernelCrash);
  EXPECT_EQ(events[0].detail, "panic: Fatal exception");
  EXPECT_EQ(events[0].source.file, "/var/lib/systemd/pstore/1733466000/001/dmesg.txt");
  ASSERT_EQ(r.sources.size(), 2u);
  EXPECT_TRUE(r.sources[0].available);  // /sys/fs/pstore
  EXPECT_TRUE(r.sources[1].available);
}

TEST(Pstore, MissingDirectoriesAreSaidNotFatal) {
  test::TempDir root;
  CollectContext ctx;
  ctx.root = root.path();
  PstoreRecords r = ReadPstore(ctx, ctx.now - std::chrono::hours(24));
  EXPECT_TRUE(r.records.empty());
  ASSERT_EQ(r.sources.size(), 2u);
  EXPECT_FALSE(r.sources[0].available);
  EXPECT_EQ(r.sources[0].source, "/sys/fs/pstore");
}

}  // namespace pstore_local
}  // namespace
}  // namespace gpudoctor
