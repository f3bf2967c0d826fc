#include <gtest/gtest.h>

#include "agent/agent_events.h"
#include "agent/sliding_window.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {

SystemStatus Reading(std::vector<GpuStatus> gpus) {
  SystemStatus s;
  s.nvml_loaded = true;
  s.gpus = std::move(gpus);
  return s;
}

TEST(AgentSlidingWindow, KeepsOnlyTheSpanAndFillsTheInput) {
  SlidingWindow w(std::chrono::seconds(10));
  for (int i = 0; i < 20; ++i) w.AddReading(TestTime(i), Reading({HealthyGpu(0), HealthyGpu(1)}));
  w.AddEvent(MakeEvent(KernelEventKind::kXid, 79, HealthyGpu(1).pci_bus_id, "old", TestTime(3)));
  w.AddEvent(MakeEvent(KernelEventKind::kXid, 48, HealthyGpu(0).pci_bus_id, "new", TestTime(15)));
  w.Trim(TestTime(19));
  EXPECT_EQ(w.readings(), 10u);  // (9, 19]: 10..19
  ASSERT_EQ(w.events().size(), 1u);
  EXPECT_EQ(w.events().front().code, 48);
  DiagnosisInput in;
  w.Fill(in);
  ASSERT_EQ(in.gpus.size(), 2u);
  EXPECT_EQ(in.gpus[0].readings.size(), 10u);
  EXPECT_TRUE(in.gpu_readings);
  ASSERT_TRUE(in.window_from && in.window_to);
  EXPECT_EQ(*in.window_from, TestTime(9));
  EXPECT_EQ(*in.window_to, TestTime(19));
  ASSERT_TRUE(in.kernel.has_value());
  EXPECT_EQ(in.kernel->events.size(), 1u);
}

TEST(AgentSlidingWindow, NvmlXidBecomesAnXidEvent) {
  KernelEvent k = XidEventToKernelEvent(NvmlXidEvent{TestTime(1), 79, "0000:19:00.0"});
  EXPECT_EQ(k.kind, KernelEventKind::kXid);
  EXPECT_EQ(k.source.file, "nvml");
  EXPECT_EQ(k.code, 79);
}

TEST(AgentGpuLoss, OneEventPerGpuThatStopsAnswering) {
  GpuStatus a = HealthyGpu(0), b = HealthyGpu(1), c = HealthyGpu(2);
  SystemStatus before = Reading({a, b, c});
  GpuStatus b_lost = b;
  b_lost.state = GpuState::kLost;
  b_lost.state_detail = "GPU is lost";
  SystemStatus after = Reading({a, b_lost});  // c is no longer listed
  auto events = GpuLossEvents(before, after, TestTime(50));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, KernelEventKind::kGpuLost);
  EXPECT_EQ(events[0].pci_bus_id, b.pci_bus_id);
  EXPECT_NE(events[0].message.find("lost"), std::string::npos);
  EXPECT_EQ(events[1].pci_bus_id, c.pci_bus_id);
  EXPECT_NE(events[1].message.find("no longer listed"), std::string::npos);
  // Already lost: no second event.
  EXPECT_TRUE(GpuLossEvents(after, after, TestTime(51)).empty());
  // The driver going away is not a loss of each GPU.
  SystemStatus gone;
  EXPECT_TRUE(GpuLossEvents(before, gone, TestTime(52)).empty());
}

}  // namespace
}  // namespace gpudoctor::testing
