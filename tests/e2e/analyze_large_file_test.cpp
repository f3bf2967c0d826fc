// End-to-end: a 300 MiB kernel log (above the old 256 MiB whole-file limit),
// plain and gzip, is analysed in a streaming pass, not refused, and the Xid
// lines at its start, middle and end are all found. Memory is measured by
// bench/analyze_vs_grep.sh (BENCHMARKS.md), not here: no timing or memory
// assertion in a test.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <set>
#include <nlohmann/json.hpp>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

constexpr std::size_t kTargetBytes = 300u << 20;

// A real Xid line shape (as in the akash-network/support#209 fixture), on a bus of its own.
std::string XidLine(int bus) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "Apr  5 21:29:39 node1 kernel: NVRM: Xid (PCI:0000:%02x:00): 79, pid='<unknown>', "
                "name=<unknown>, GPU has fallen off the bus.\n",
                bus);
  return buf;
}

// Calls `write` with the log in pieces: Xid lines at the start, middle and end.
template <typename Write>
void MakeLog(Write write) {
  const std::string noise =
      "Apr  5 21:29:39 node1 kernel: [ 3605.123456] IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link "
      "becomes ready\n";
  std::string block;
  while (block.size() < (1u << 20)) block += noise;
  std::size_t written = 0;
  write(XidLine(0x1b));
  while (written < kTargetBytes) {
    if (written >= kTargetBytes / 2 && written < kTargetBytes / 2 + block.size()) {
      write(XidLine(0x3b));
    }
    write(block);
    written += block.size();
  }
  write(XidLine(0x5d));
}

void ExpectThreeLostGpus(const std::string& path) {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  o.timeout = std::chrono::milliseconds(300000);
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", path}, o);
  ASSERT_EQ(r.exit_code, 2) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["inputs"][0]["ok"], true) << doc["inputs"].dump();
  std::set<std::string> buses;
  for (const auto& e : doc["events"]) {
    if (e["kind"] == "xid" && e["code"] == 79) buses.insert(e["pci_bus_id"].get<std::string>());
  }
  EXPECT_EQ(buses, (std::set<std::string>{"0000:1b:00.0", "0000:3b:00.0", "0000:5d:00.0"}));
}

TEST(AnalyzeLargeFile, A300MiBLogIsStreamedNotRefused) {
  TempDir dir;
  std::string path = (dir.path() / "big.log").string();
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    MakeLog([&](const std::string& s) { std::fwrite(s.data(), 1, s.size(), f); });
    std::fclose(f);
  }
  ExpectThreeLostGpus(path);
}

TEST(AnalyzeLargeFile, A300MiBLogInGzipIsStreamedNotRefused) {
  TempDir dir;
  std::string path = (dir.path() / "big.log.gz").string();
  {
    gzFile gz = gzopen(path.c_str(), "wb1");
    ASSERT_NE(gz, nullptr);
    MakeLog([&](const std::string& s) { gzwrite(gz, s.data(), static_cast<unsigned>(s.size())); });
    gzclose(gz);
  }
  ExpectThreeLostGpus(path);
}

}  // namespace
}  // namespace gpudoctor::test
