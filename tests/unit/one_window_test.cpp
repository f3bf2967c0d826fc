// The one window (window/window.h, window/cut.h) and the one diagnosis
// (diagnosis/diagnose_window.h): the boundary rule, events without a time,
// one series per GPU across an agent restart, and the --gpu view.
#include <gtest/gtest.h>

#include "diagnosis/diagnose_window.h"
#include "support/rule_testing.h"
#include "window/cut.h"

namespace gpudoctor::testing {
namespace {

GpuStatus LostBeforeFirstSight(unsigned index) {
  GpuStatus g;
  g.index = index;
  g.state = GpuState::kLost;
  return g;
}

TEST(OneWindow, HoldsItsEndButNotItsStart) {
  const Window w{TestTime(2), TestTime(5)};
  EXPECT_FALSE(w.Holds(TestTime(2)));
  EXPECT_TRUE(w.Holds(TestTime(2.001)));
  EXPECT_TRUE(w.Holds(TestTime(5)));
  EXPECT_FALSE(w.Holds(TestTime(5.001)));
  const Window both = Window::Spanning(TestTime(2), TestTime(5));
  EXPECT_TRUE(both.Holds(TestTime(2)));
  EXPECT_TRUE(both.Holds(TestTime(5)));
  EXPECT_TRUE(Window({TestTime(0), TestTime(10)}).Covers(w));
  EXPECT_FALSE(w.Covers(Window{TestTime(0), TestTime(10)}));
}

TEST(OneWindow, ACutKeepsTheReadingsAndEventsItHolds) {
  DiagnosisInput in = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 10);  // at 0..9
  in.kernel = KernelFacts{};
  in.kernel->events = {MakeEvent(KernelEventKind::kXid, 79, HealthyGpu(0).pci_bus_id, "at 2", TestTime(2)),
                       MakeEvent(KernelEventKind::kXid, 48, HealthyGpu(0).pci_bus_id, "at 5", TestTime(5)),
                       MakeEvent(KernelEventKind::kXid, 31, "", "no time")};
  const WindowCutter cutter(in);
  const DiagnosisInput part = cutter.Cut(Window{TestTime(2), TestTime(5)});
  ASSERT_EQ(part.gpus.size(), 2u);
  ASSERT_EQ(part.gpus[0].readings.size(), 3u);  // 3, 4, 5
  EXPECT_EQ(*part.gpus[0].times.front(), TestTime(3));
  EXPECT_EQ(*part.gpus[0].times.back(), TestTime(5));
  ASSERT_EQ(part.kernel->events.size(), 1u);  // the one at 5; the untimed is in no stretch
  EXPECT_EQ(part.kernel->events[0].code, 48);
  EXPECT_EQ(*part.window_from, TestTime(2));
  EXPECT_EQ(*part.window_to, TestTime(5));
  EXPECT_TRUE(part.gpu_readings);
  // The whole input's window (or more) keeps the event without a time.
  const DiagnosisInput whole = cutter.Cut(Window{TestTime(-1), TestTime(10)});
  EXPECT_EQ(whole.kernel->events.size(), 3u);
  EXPECT_EQ(whole.gpus[0].readings.size(), 10u);
  // The cutter's input is as it was.
  EXPECT_EQ(cutter.whole().gpus[0].readings.size(), 10u);
  EXPECT_EQ(cutter.whole().kernel->events.size(), 3u);
  // A stretch with no reading: no GPU, and no GPU readings.
  const DiagnosisInput empty = cutter.Cut(Window{TestTime(20), TestTime(30)});
  EXPECT_TRUE(empty.gpus.empty());
  EXPECT_FALSE(empty.gpu_readings);
}

// An agent started while GPU 1 was lost (NVML lists it without a bus id),
// then restarted once the GPU answered: one GPU 1, not two.
DiagnosisInput LostThenBack() {
  std::vector<std::vector<GpuStatus>> readings;
  for (int i = 0; i < 5; ++i) readings.push_back({HealthyGpu(0), LostBeforeFirstSight(1)});
  for (int i = 0; i < 5; ++i) readings.push_back({HealthyGpu(0), HealthyGpu(1)});
  DiagnosisInput in = InputFromReadings(readings);
  in.kernel = KernelFacts{};
  in.kernel->events = {MakeEvent(KernelEventKind::kXid, 79, "index:1", "lost", TestTime(1))};
  return in;
}

TEST(OneDiagnosis, AGpuKnownByItsIndexAndLaterByItsBusIdIsOneGpu) {
  DiagnosisInput in = LostThenBack();
  ASSERT_EQ(in.gpus.size(), 3u);  // as recorded: GPU 0, index:1, GPU 1's bus id
  MergeGpuIdentities(in);
  ASSERT_EQ(in.gpus.size(), 2u);
  EXPECT_EQ(in.gpus[1].key, HealthyGpu(1).pci_bus_id);
  EXPECT_EQ(in.gpus[1].readings.size(), 10u);
  EXPECT_EQ(in.gpus[1].readings.front().state, GpuState::kLost);  // in time order
  EXPECT_EQ(in.kernel->events[0].pci_bus_id, HealthyGpu(1).pci_bus_id);

  DiagnosisInput facts = LostThenBack();
  auto d = DiagnoseWindow(facts, DiagnosisRequest{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->gpus.size(), 2u);
  for (const Finding& f : d->findings) {
    for (const auto& key : f.gpus) EXPECT_NE(key, "index:1") << f.id;
  }
  EXPECT_FALSE(HasFinding(*d, "power.supply_suspected"));
}

TEST(OneDiagnosis, SeriesThatOverlapInTimeOrHaveTwoCandidatesStayApart) {
  // index:1 beside a named GPU 1 at the same times: two GPUs, not one.
  std::vector<std::vector<GpuStatus>> readings;
  GpuStatus other = HealthyGpu(2);
  other.index = 1;
  for (int i = 0; i < 3; ++i) readings.push_back({HealthyGpu(1), LostBeforeFirstSight(1)});
  DiagnosisInput overlap = InputFromReadings(readings);
  // AddReading joins a reading without a bus id to the GPU of its index
  // when that GPU came first; build the two series by hand instead.
  overlap.gpus.clear();
  for (int i = 0; i < 3; ++i) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {LostBeforeFirstSight(1)};
    AddReading(overlap, s, TestTime(i));
  }
  for (int i = 0; i < 3; ++i) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {HealthyGpu(1)};
    AddReading(overlap, s, TestTime(i));
  }
  ASSERT_EQ(overlap.gpus.size(), 2u);
  MergeGpuIdentities(overlap);
  EXPECT_EQ(overlap.gpus.size(), 2u);

  // Two named GPUs had index 1 in the window (renumbered): which one the
  // unnamed GPU was is unknown.
  DiagnosisInput two;
  for (const GpuStatus& g : {LostBeforeFirstSight(1)}) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {g};
    AddReading(two, s, TestTime(0));
  }
  for (const GpuStatus& g : {HealthyGpu(1), other}) {
    SystemStatus s;
    s.nvml_loaded = true;
    s.gpus = {g};
    AddReading(two, s, TestTime(5));
  }
  ASSERT_EQ(two.gpus.size(), 3u);
  MergeGpuIdentities(two);
  EXPECT_EQ(two.gpus.size(), 3u);
}

TEST(OneDiagnosis, TheGpuViewKeepsItsGpuAndTheHostsEventsOnly) {
  DiagnosisInput in = RepeatedReadings({HealthyGpu(0), HealthyGpu(1), HealthyGpu(2)}, 5);
  in.kernel = KernelFacts{};
  in.kernel->events = {MakeEvent(KernelEventKind::kXid, 79, HealthyGpu(2).pci_bus_id, "GPU 2's", TestTime(1)),
                       MakeEvent(KernelEventKind::kXid, 48, HealthyGpu(1).pci_bus_id, "GPU 1's", TestTime(1)),
                       MakeEvent(KernelEventKind::kXid, 31, "", "the host's", TestTime(1))};
  DiagnosisRequest view;
  view.gpus = {"1"};
  auto d = DiagnoseWindow(in, view);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(in.gpus.size(), 1u);
  EXPECT_EQ(in.gpus[0].key, HealthyGpu(1).pci_bus_id);
  ASSERT_EQ(in.kernel->events.size(), 2u);
  EXPECT_EQ(in.kernel->events[0].code, 48);
  EXPECT_EQ(in.kernel->events[1].code, 31);
  ASSERT_EQ(d->gpus.size(), 1u);
  EXPECT_FALSE(HasFinding(*d, "xid.fallen_off_bus"));  // GPU 2's Xid 79 is not GPU 1's
  for (const Finding& f : d->findings) {
    for (const auto& key : f.gpus) EXPECT_EQ(key, HealthyGpu(1).pci_bus_id) << f.id;
  }
  // By bus id in another spelling, and by UUID in another case.
  for (const std::string selector : {"19:00.0", "00000000:19:00.0", "gpu-00000000-0000-0000-0000-000000000001"}) {
    DiagnosisInput again = RepeatedReadings({HealthyGpu(0), HealthyGpu(1)}, 2);
    DiagnosisRequest r;
    r.gpus = {selector};
    ASSERT_TRUE(DiagnoseWindow(again, r).ok()) << selector;
    ASSERT_EQ(again.gpus.size(), 1u) << selector;
    EXPECT_EQ(again.gpus[0].readings.front().index, 1u) << selector;
  }
  DiagnosisInput none = RepeatedReadings({HealthyGpu(0)}, 2);
  DiagnosisRequest missing;
  missing.gpus = {"7"};
  missing.where = "recorded in this window";
  auto error = DiagnoseWindow(none, missing);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(error.error().message, "--gpu 7: no such GPU recorded in this window");
}

}  // namespace
}  // namespace gpudoctor::testing
