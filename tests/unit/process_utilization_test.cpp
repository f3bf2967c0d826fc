// Per-process utilisation: the latest sample of each pid, 0 % for a listed
// process without a sample, the store's own column for it (read back in
// either column order), and owners from what `facts` finds.
#include <gtest/gtest.h>

#include "collect/process_owners.h"
#include "nvml/process_utilization.h"
#include "store/sample_codec.h"

namespace gpudoctor {
namespace {

TEST(ProcessUtilization, LatestSamplePerPidAndZeroWithoutOne) {
  std::vector<GpuProcess> processes = {GpuProcess(1, "a", 1), GpuProcess(2, "b", 2),
                                       GpuProcess(3, "c", 3)};
  ApplyProcessUtilization({{1, 100, 10, 5}, {1, 300, 70, 30}, {1, 200, 20, 9}, {2, 50, 140, 1},
                           {99, 400, 50, 50}},
                          processes);
  EXPECT_EQ(processes[0].sm_util_percent, 70);
  EXPECT_EQ(processes[0].memory_util_percent, 30);
  EXPECT_EQ(processes[1].sm_util_percent, 100) << "clamped";
  EXPECT_EQ(processes[2].sm_util_percent, 0);
  EXPECT_EQ(processes[2].memory_util_percent, 0);
  // A sample well older than the newest is from a process gone quiet since.
  ApplyProcessUtilization({{1, 1'000'000, 80, 8}, {2, 10'000'000, 20, 2}}, processes);
  EXPECT_EQ(processes[0].sm_util_percent, 0);
  EXPECT_EQ(processes[1].sm_util_percent, 20);
}

std::vector<GpuProcess> DetailedProcesses() {
  GpuProcess a(4242, "python3", 1 << 30);
  a.sm_util_percent = 55;
  a.memory_util_percent = 20;
  a.user = "alice";
  a.container_id = "0123456789ab";
  a.pod_uid = "1b2c";
  GpuProcess b(5151, "plain", std::nullopt);
  return {a, b};
}

TEST(ProcessUtilization, StoreCellsRoundTripInEitherColumnOrder) {
  GpuStatus g;
  g.processes = DetailedProcesses();
  std::vector<NamedCell> cells;
  StatusToCells(g, cells);
  const NamedCell* processes = nullptr;
  const NamedCell* details = nullptr;
  for (const auto& c : cells) {
    if (c.name == "processes") processes = &c;
    if (c.name == "process_details") details = &c;
  }
  ASSERT_NE(processes, nullptr);
  ASSERT_NE(details, nullptr);
  // A reader from before process_details keeps 3-part process records.
  EXPECT_EQ(std::get<std::string>(processes->value), "4242\tpython3\t1073741824\n5151\tplain\t\n");
  for (bool details_first : {false, true}) {
    SCOPED_TRACE(details_first);
    GpuStatus back;
    const NamedCell* order[2] = {processes, details};
    if (details_first) std::swap(order[0], order[1]);
    for (const NamedCell* c : order) ApplyCell(back, ResolveSampleColumn(c->name), c->value);
    ASSERT_TRUE(back.processes);
    ASSERT_EQ(back.processes->size(), 2u);
    const GpuProcess& a = (*back.processes)[0];
    EXPECT_EQ(a.pid, 4242u);
    EXPECT_EQ(a.name, "python3");
    EXPECT_EQ(a.sm_util_percent, 55);
    EXPECT_EQ(a.memory_util_percent, 20);
    EXPECT_EQ(a.user, "alice");
    EXPECT_EQ(a.container_id, "0123456789ab");
    EXPECT_EQ(a.pod_uid, "1b2c");
    EXPECT_FALSE((*back.processes)[1].sm_util_percent);
  }
}

TEST(ProcessOwners, VisibleProcessesGetUserContainerAndPod) {
  SystemStatus status;
  status.gpus.resize(1);
  status.gpus[0].processes = {GpuProcess(10, "x", 1), GpuProcess(20, "y", 1)};
  ProcessInfo seen;
  seen.pid = 10;
  seen.visible = true;
  seen.uid = 1001;  // no passwd entry: the number
  seen.container = ContainerRef{"containerd", "abcdef012345", "pod-uid"};
  ProcessInfo hidden;
  hidden.pid = 20;
  ApplyProcessOwners({seen, hidden}, status);
  const auto& p = *status.gpus[0].processes;
  EXPECT_EQ(p[0].user, "1001");
  EXPECT_EQ(p[0].container_id, "abcdef012345");
  EXPECT_EQ(p[0].pod_uid, "pod-uid");
  EXPECT_EQ(p[1].user, "");
  EXPECT_EQ(ProcessPids(status), (std::vector<std::uint32_t>{10, 20}));
}

}  // namespace
}  // namespace gpudoctor
