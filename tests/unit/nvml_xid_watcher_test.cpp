// NvmlXidWatcher on the fake NVML: a registration that fails leaves the event
// set undefined (nvml.h), so the watcher frees it and registers the other
// GPUs on a new set, and their Xids still arrive.
#include "nvml/nvml_xid_events.h"

#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "unit/fake_nvml_client.h"

namespace fake_test {
namespace {

using gpudoctor::NvmlXidEvent;
using gpudoctor::NvmlXidWatcher;

class NvmlXidWatcherTest : public FakeNvmlTest {
 protected:
  // Waits up to 15 s for `n` events.
  static std::vector<NvmlXidEvent> WaitForXids(NvmlXidWatcher& watcher, std::size_t n) {
    std::vector<NvmlXidEvent> got;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    while (got.size() < n && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (auto& e : watcher.Take()) got.push_back(std::move(e));
    }
    return got;
  }
};

TEST_F(NvmlXidWatcherTest, FailedRegistrationStartsANewSetWithoutThatGpu) {
  for (const char* failure : {"NVML_ERROR_UNKNOWN", "NVML_ERROR_GPU_IS_LOST"}) {
    SCOPED_TRACE(failure);
    const std::string scenario = std::string(R"({"gpus": [
      {"pci_bus_id": "0000:3b:00.0", "faults": [{"kind": "xid", "code": 48, "at_s": 0.5}]},
      {"pci_bus_id": "0000:86:00.0", "faults": [
        {"kind": "error", "field": "register_events", "error": ")") + failure + R"("}]},
      {"pci_bus_id": "0000:af:00.0", "faults": [{"kind": "xid", "code": 94, "at_s": 0.5}]}]})";
    setenv("FAKE_NVML_SCENARIO", WriteFile("xid.json", scenario).c_str(), 1);
    auto watcher = NvmlXidWatcher::Start(FAKE_NVML_LIBRARY);
    std::vector<NvmlXidEvent> got = WaitForXids(*watcher, 2);
    ASSERT_EQ(got.size(), 2u) << watcher->status();
    std::set<std::pair<int, std::string>> seen;
    for (const auto& e : got) seen.insert({e.xid, e.pci_bus_id});
    EXPECT_TRUE(seen.count({48, "0000:3b:00.0"})) << watcher->status();
    EXPECT_TRUE(seen.count({94, "0000:af:00.0"})) << watcher->status();
    EXPECT_EQ(watcher->status(), "watching Xid events on 2 GPU(s)");
  }
}

TEST_F(NvmlXidWatcherTest, NotSupportedKeepsTheSetAndOnlySkipsThatGpu) {
  setenv("FAKE_NVML_SCENARIO", WriteFile("xid_ns.json", R"({"gpus": [
      {"pci_bus_id": "0000:3b:00.0", "faults": [
        {"kind": "error", "field": "register_events", "error": "NVML_ERROR_NOT_SUPPORTED"}]},
      {"pci_bus_id": "0000:86:00.0", "faults": [{"kind": "xid", "code": 79, "at_s": 0.5}]}]})")
                                   .c_str(),
         1);
  auto watcher = NvmlXidWatcher::Start(FAKE_NVML_LIBRARY);
  auto got = WaitForXids(*watcher, 1);
  ASSERT_EQ(got.size(), 1u) << watcher->status();
  EXPECT_EQ(got[0].xid, 79);
  EXPECT_EQ(got[0].pci_bus_id, "0000:86:00.0");
  EXPECT_EQ(watcher->status(), "watching Xid events on 1 GPU(s)");
}

}  // namespace
}  // namespace fake_test
