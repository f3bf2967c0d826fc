// End-to-end: `gpudoctor diagnose` on eight H100s (the fake NVML) over a
// --root tree holding the real HGX H100 /sys/class/infiniband capture
// (../shared/fixtures/infiniband), unmodified (a healthy node: only the
// saturated link_downed of mlx5_1 is told, as info) and with a fault
// written into it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/fake_host.h"
#include "support/infiniband_tree.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace diagnose_fabric_test_ns {

using nlohmann::json;

const std::vector<std::string> kEightBusIds = {"0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0",
                                               "0000:5d:00.0", "0000:9a:00.0", "0000:ab:00.0",
                                               "0000:ba:00.0", "0000:db:00.0"};

// The diagnosis of the tree as JSON; empty when the capture is missing.
json Diagnose(const TempDir& root) {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "1s",
                         "--interval", "250ms", "--lang", "en", "--format", "json"},
                        std::string(TEST_DATA_DIR) + "/scenarios/eight_gpus.json", o);
  EXPECT_LE(r.exit_code, 2) << r.err;
  return json::parse(r.out);
}

const json* FindingOf(const json& doc, const std::string& id) {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

class DiagnoseFabric : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteQuietHost(root_, kEightBusIds);
    if (!CopyInfinibandCapture(root_.path()))
      GTEST_SKIP() << "../shared/fixtures/infiniband missing";
  }
  void Write(const std::string& device, const std::string& file, const std::string& text) {
    std::ofstream(InfinibandPort(root_.path(), device) / file, std::ios::trunc) << text << "\n";
  }
  TempDir root_;
};

TEST_F(DiagnoseFabric, HealthyEightPortNodeStaysOk) {
  json doc = Diagnose(root_);
  for (const auto& f : doc["findings"]) {
    std::string id = f["id"];
    if (id.rfind("network.", 0) == 0) {
      EXPECT_EQ(f["severity"], "info") << f.dump(2);
    }
  }
  const json* saturated = FindingOf(doc, "network.rdma_saturated");
  ASSERT_NE(saturated, nullptr) << doc["findings"].dump(2);
  EXPECT_EQ((*saturated)["evidence"].size(), 1u);
}

TEST_F(DiagnoseFabric, APollingPortIsFound) {
  Write("mlx5_7", "state", "1: DOWN");
  Write("mlx5_7", "phys_state", "2: Polling");
  json doc = Diagnose(root_);
  const json* f = FindingOf(doc, "network.rdma");
  ASSERT_NE(f, nullptr) << doc["findings"].dump(2);
  EXPECT_EQ((*f)["severity"], "warning");
  EXPECT_NE((*f)["evidence"].dump().find("mlx5_7 port 1: state 1: DOWN, physical state 2: Polling"),
            std::string::npos);
}

TEST_F(DiagnoseFabric, AMissingAndASlowPortOnAnHgxH100) {
  std::filesystem::remove_all(root_.path() / "sys/class/infiniband/mlx5_9");
  Write("mlx5_0", "rate", "200 Gb/sec (4X HDR)");
  json doc = Diagnose(root_);
  const json* count = FindingOf(doc, "network.rdma_count");
  ASSERT_NE(count, nullptr) << doc["findings"].dump(2);
  EXPECT_EQ((*count)["title"], "7 of 8 expected InfiniBand ports present");
  const json* rate = FindingOf(doc, "network.rdma_rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_NE((*rate)["evidence"].dump().find("mlx5_0 port 1: 200 Gb/sec (4X HDR)"),
            std::string::npos);
}

}  // namespace
}  // namespace gpudoctor::test
