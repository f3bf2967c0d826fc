// Store: what is written reads back (raw and per-minute), summaries and
// throttle time are exact, events and finding intervals.
#include <gtest/gtest.h>

#include <cmath>

#include "core/gpu_fields.h"
#include "render/report.h"
#include "store/store.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace store_readwrite_unit_local {

using test::At;
using test::BusId;
using test::MakeGpu;
using test::MakeSystem;

StoreOptions OptionsFor(const test::TempDir& dir) {
  StoreOptions o;
  o.data_dir = dir.path().string();
  return o;
}

void Fill(Store& store, unsigned gpus, std::int64_t first, std::int64_t last,
          std::int64_t step = 1) {
  for (std::int64_t s = first; s <= last; s += step) {
    auto r = store.AppendSample(At(s), MakeSystem(gpus, s));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
}

TEST(StoreReadWrite, RawWindowReturnsEverySampleAsWritten) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  // 1500 s from a ten-minute edge: two sealed chunks and a pending tail.
  Fill(*store, 2, 0, 1499);
  auto w = store->ReadWindow(At(0), At(1499), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_FALSE(w->downsampled);
  ASSERT_EQ(w->gpus.size(), 2u);
  for (unsigned g = 0; g < 2; ++g) {
    const GpuSeries& series = w->gpus[g];
    EXPECT_EQ(series.key, BusId(g));
    ASSERT_EQ(series.readings.size(), 1500u);
    ASSERT_EQ(series.times.size(), 1500u);
    for (std::int64_t s = 0; s < 1500; ++s) {
      ASSERT_EQ(series.times[s], At(s));
      ASSERT_EQ(test::CellsOf(series.readings[s]), test::CellsOf(MakeGpu(g, s))) << "second " << s;
    }
  }
  EXPECT_EQ(w->first_sample, At(0));
  EXPECT_EQ(w->last_sample, At(1499));
  StoreStats stats = store->Stats();
  EXPECT_EQ(stats.raw_samples, 3000);
  EXPECT_FALSE(stats.writes_stopped);
  EXPECT_EQ(stats.oldest, At(0));
}

TEST(StoreReadWrite, WindowSelectsTimeAndGpus) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  Fill(*store, 3, 0, 1300);
  auto w = store->ReadWindow(At(550), At(650), {BusId(2)});
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->gpus.size(), 1u);
  EXPECT_EQ(w->gpus[0].key, BusId(2));
  EXPECT_EQ(w->gpus[0].readings.size(), 101u);
  EXPECT_EQ(w->gpus[0].latest().index, 2u);
  EXPECT_EQ(w->gpus[0].latest().name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(w->summaries.count(BusId(0)), 0u);
}

TEST(StoreReadWrite, SummariesAndThrottleTimeAreExact) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  Fill(*store, 1, 0, 2000);
  GpuSeries written;
  for (std::int64_t s = 100; s <= 1900; ++s) written.readings.push_back(MakeGpu(0, s));
  auto expected = SummarizeMetrics(written);
  auto w = store->ReadWindow(At(100), At(1900), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  const auto& got = w->summaries.at(BusId(0));
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, e] : expected) {
    SCOPED_TRACE(name);
    ASSERT_EQ(got.count(name), 1u);
    EXPECT_EQ(got.at(name).count, e.count);
    EXPECT_EQ(got.at(name).min, e.min);
    EXPECT_EQ(got.at(name).max, e.max);
    EXPECT_NEAR(got.at(name).avg, e.avg, 1e-9 * std::max(1.0, std::fabs(e.avg)));
  }
  ASSERT_EQ(w->timeline.throttled.size(), 1u);
  const ThrottleTime& t = w->timeline.throttled[0];
  // Every tenth second has sw_thermal_slowdown: 100, 110, ..., 1900.
  EXPECT_DOUBLE_EQ(t.seconds_by_reason.at("sw_thermal_slowdown"), 181.0);
  EXPECT_DOUBLE_EQ(t.sampled_seconds, 1801.0);
  EXPECT_GT(t.seconds_by_reason.at("gpu_idle"), 0.0);
}

TEST(StoreReadWrite, LongWindowIsPerMinuteWithExactSummaries) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  // Four hours at 1 Hz; the window starts and ends mid-minute, so both ends
  // come from raw samples and the middle from roll-ups.
  const std::int64_t from = 30, to = 4 * 3600 - 20;
  Fill(*store, 1, 0, 4 * 3600);
  auto w = store->ReadWindow(At(from), At(to), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  EXPECT_TRUE(w->downsampled);
  ASSERT_EQ(w->gpus.size(), 1u);
  const GpuSeries& series = w->gpus[0];
  ASSERT_EQ(series.readings.size(), 240u);  // minutes 0..239, the ends partial
  GpuSeries written;
  for (std::int64_t s = from; s <= to; ++s) written.readings.push_back(MakeGpu(0, s));
  auto expected = SummarizeMetrics(written);
  const auto& got = w->summaries.at(BusId(0));
  for (const char* name : {"temperature_c", "power_draw_w", "utilization_gpu_percent",
                           "memory_used_bytes", "energy_total_j", "clocks_sm_mhz"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(got.at(name).count, expected.at(name).count);
    EXPECT_EQ(got.at(name).min, expected.at(name).min);
    EXPECT_EQ(got.at(name).max, expected.at(name).max);
    EXPECT_NEAR(got.at(name).avg, expected.at(name).avg, 1e-6 * std::fabs(expected.at(name).avg));
  }
  // Minute 10 (seconds 600..659) is busy: its reading is the minute's average.
  double sum = 0;
  for (std::int64_t s = 600; s < 660; ++s) sum += *MakeGpu(0, s).power_draw_w;
  EXPECT_EQ(series.times[10], At(600));
  EXPECT_NEAR(*series.readings[10].power_draw_w, sum / 60, 1e-9);
  EXPECT_EQ(series.readings[10].pci_bus_id, BusId(0));
  EXPECT_EQ(series.readings[10].uuid, MakeGpu(0, 0).uuid);
  EXPECT_EQ(series.readings[10].compute_mode, "Default");
  // The minute's reasons are OR-ed: second 600 had sw_thermal_slowdown.
  EXPECT_TRUE(*series.readings[10].clock_event_reasons_mask &
              ClockReasonBit("sw_thermal_slowdown"));
  EXPECT_DOUBLE_EQ(w->timeline.throttled[0].seconds_by_reason.at("sw_thermal_slowdown"),
                   static_cast<double>((to - 30) / 10 + 1));
  EXPECT_EQ(w->first_sample, At(from));
  EXPECT_EQ(w->last_sample, At(to));
}

TEST(StoreReadWrite, EventsInWindowComeBackWhole) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  KernelEvent xid;
  xid.kind = KernelEventKind::kXid;
  xid.time = At(100);
  xid.code = 79;
  xid.pci_bus_id = BusId(1);
  xid.message = "NVRM: Xid (PCI:0000:28:00): 79, GPU has fallen off the bus.";
  xid.continuation = {"line two", "line three"};
  xid.count = 3;
  xid.last_time = At(110);
  xid.monotonic_s = 1234.5;
  xid.source = {"/dev/kmsg", 0};
  xid.pid = 77;
  xid.process = "python3";
  ASSERT_TRUE(store->AppendEvent(xid).ok());
  KernelEvent oom;
  oom.kind = KernelEventKind::kOomKill;
  oom.time = At(5000);
  oom.message = "Killed process 1";
  ASSERT_TRUE(store->AppendEvent(oom).ok());
  auto w = store->ReadWindow(At(0), At(1000), {});
  ASSERT_TRUE(w.ok());
  ASSERT_EQ(w->events.size(), 1u);
  const KernelEvent& e = w->events[0];
  EXPECT_EQ(e.kind, KernelEventKind::kXid);
  EXPECT_EQ(e.time, At(100));
  EXPECT_EQ(e.code, 79);
  EXPECT_EQ(e.pci_bus_id, BusId(1));
  EXPECT_EQ(e.message, xid.message);
  EXPECT_EQ(e.continuation, xid.continuation);
  EXPECT_EQ(e.count, 3u);
  EXPECT_EQ(e.last_time, At(110));
  EXPECT_EQ(e.monotonic_s, 1234.5);
  EXPECT_EQ(e.source.file, "/dev/kmsg");
  EXPECT_EQ(e.pid, 77);
  EXPECT_EQ(e.process, "python3");
  // Another GPU's event is left out when GPUs are chosen.
  auto other = store->ReadWindow(At(0), At(1000), {BusId(0)});
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->events.empty());
}

FindingInterval Finding(const std::string& id, Severity severity, std::vector<std::string> gpus) {
  FindingInterval f;
  f.finding_id = id;
  f.severity = severity;
  f.gpus = std::move(gpus);
  f.title = {"GPU is hot", "GPU 过热"};
  return f;
}

TEST(StoreReadWrite, FindingIntervalsExtendCloseAndReopen) {
  test::TempDir dir;
  auto store = test::OpenOrDie(OptionsFor(dir));
  auto hot = Finding("thermal.high_temperature", Severity::kWarning, {BusId(0)});
  ASSERT_TRUE(store->FindingSeen(hot, At(100)).ok());
  hot.severity = Severity::kCritical;
  ASSERT_TRUE(store->FindingSeen(hot, At(160)).ok());
  hot.severity = Severity::kWarning;
  ASSERT_TRUE(store->FindingSeen(hot, At(200)).ok());
  ASSERT_TRUE(store->FindingCleared(hot.finding_id, hot.gpus, At(300)).ok());
  ASSERT_TRUE(store->FindingSeen(hot, At(900)).ok());
  auto host = Finding("host.memory_pressure", Severity::kInfo, {});
  ASSERT_TRUE(store->FindingSeen(host, At(50)).ok());

  auto w = store->ReadWindow(At(0), At(1000), {});
  ASSERT_TRUE(w.ok());
  const auto& f = w->timeline.findings;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].finding_id, "host.memory_pressure");
  EXPECT_TRUE(f[0].gpus.empty());
  EXPECT_FALSE(f[0].end.has_value());
  EXPECT_EQ(f[1].start, At(100));
  EXPECT_EQ(f[1].end, At(300));
  EXPECT_EQ(f[1].severity, Severity::kCritical);  // the worst seen
  EXPECT_EQ(f[1].gpus, std::vector<std::string>{BusId(0)});
  EXPECT_EQ(f[1].title.zh, "GPU 过热");
  EXPECT_EQ(f[2].start, At(900));
  EXPECT_EQ(f[2].severity, Severity::kWarning);
  EXPECT_FALSE(f[2].end.has_value());
  // A window between the two intervals sees neither, only the host one.
  auto between = store->ReadWindow(At(400), At(800), {});
  ASSERT_TRUE(between.ok());
  ASSERT_EQ(between->timeline.findings.size(), 1u);
  EXPECT_EQ(between->timeline.findings[0].finding_id, "host.memory_pressure");
}

TEST(StoreReadWrite, DataSurvivesReopenAndFlush) {
  test::TempDir dir;
  {
    auto store = test::OpenOrDie(OptionsFor(dir));
    Fill(*store, 2, 0, 99);
    ASSERT_TRUE(store->Flush().ok());
    Fill(*store, 2, 100, 130);
  }
  StoreOptions ro = OptionsFor(dir);
  ro.read_only = true;
  auto store = test::OpenOrDie(ro);
  auto w = store->ReadWindow(At(0), At(200), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->gpus.size(), 2u);
  ASSERT_EQ(w->gpus[1].readings.size(), 131u);
  EXPECT_EQ(test::CellsOf(w->gpus[1].readings[120]), test::CellsOf(MakeGpu(1, 120)));
  EXPECT_FALSE(store->AppendSample(At(300), MakeSystem(1, 300)).ok());
}

}  // namespace store_readwrite_unit_local
}  // namespace gpudoctor
