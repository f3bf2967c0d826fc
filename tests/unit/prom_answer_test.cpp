// The pure parts of reading Prometheus: the query API's answers, the
// selectors, who a series is about, and the readings and Xid events
// rebuilt from series.
#include <gtest/gtest.h>

#include <cmath>

#include "core/clock_reasons.h"
#include "prom/prom_labels.h"
#include "prom/prom_response.h"
#include "prom/series_readings.h"

namespace gpudoctor {
namespace {

TEST(PromAnswer, ParsesVectorsMatricesScalarsAndSpecialValues) {
  auto v = ParsePromAnswer(
      R"({"status":"success","data":{"resultType":"vector","result":[
          {"metric":{"__name__":"up","instance":"a:1"},"value":[1700000000.5,"1"]},
          {"metric":{"instance":"b:1"},"value":[1700000000.5,"NaN"]}]}})",
      "query 'up'");
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_EQ(v->series.size(), 2u);
  EXPECT_EQ(v->series[0].Label("__name__"), "up");
  EXPECT_EQ(v->series[0].Label("missing"), "");
  EXPECT_DOUBLE_EQ(v->series[0].points[0].time_s, 1700000000.5);
  EXPECT_TRUE(std::isnan(v->series[1].points[0].value));

  auto m = ParsePromAnswer(
      R"({"status":"success","warnings":["too many samples"],"data":{"resultType":"matrix",
          "result":[{"metric":{"gpu":"0"},"values":[[1,"2"],[2,"+Inf"],[3,"-1.5e3"]]}]}})",
      "q");
  ASSERT_TRUE(m);
  ASSERT_EQ(m->series[0].points.size(), 3u);
  EXPECT_TRUE(std::isinf(m->series[0].points[1].value));
  EXPECT_DOUBLE_EQ(m->series[0].points[2].value, -1500);
  EXPECT_EQ(m->warnings, std::vector<std::string>{"too many samples"});

  auto s = ParsePromAnswer(R"({"status":"success","data":{"resultType":"scalar","result":[5,"7"]}})", "q");
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->series.at(0).points.at(0).value, 7);

  // VictoriaMetrics says a partial answer with isPartial.
  auto p = ParsePromAnswer(
      R"({"status":"success","isPartial":true,"data":{"resultType":"vector","result":[]}})", "q");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->warnings, std::vector<std::string>{"partial response"});
}

TEST(PromAnswer, ReadsKeysInAnyOrderAndSkipsUnknownOnes) {
  // The series are read as they stream past: resultType may come after
  // result, and keys the parser does not know (stats, native histograms'
  // neighbours) are skipped whatever they hold.
  auto m = ParsePromAnswer(
      R"({"data":{"result":[{"values":[[1,"2"],[2,"3"]],"extra":{"a":[1,{"b":2}]},
          "metric":{"gpu":"0"}},{"metric":{"gpu":"1"},"values":[[1,"4"]]}],
          "stats":{"seriesFetched":"2"},"resultType":"matrix"},"status":"success"})",
      "q");
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->series.size(), 2u);
  EXPECT_EQ(m->series[0].Label("gpu"), "0");
  ASSERT_EQ(m->series[0].points.size(), 2u);
  EXPECT_DOUBLE_EQ(m->series[0].points[1].value, 3);
  EXPECT_EQ(m->series[1].Label("gpu"), "1");
  // Numbers where Prometheus writes strings, and a null label set.
  auto n = ParsePromAnswer(
      R"({"status":"success","data":{"resultType":"vector","result":[
          {"metric":null,"value":[1.5,2]},{"value":[2,"NaN"],"metric":{"a":"x","b":""}}]}})",
      "q");
  ASSERT_TRUE(n) << n.error().message;
  ASSERT_EQ(n->series.size(), 2u);
  EXPECT_TRUE(n->series[0].labels.empty());
  EXPECT_DOUBLE_EQ(n->series[0].points.at(0).time_s, 1.5);
  EXPECT_DOUBLE_EQ(n->series[0].points.at(0).value, 2);
  EXPECT_TRUE(std::isnan(n->series[1].points.at(0).value));
  EXPECT_EQ(n->series[1].Label("a"), "x");
  EXPECT_EQ(n->series[1].labels.size(), 2u);
  // A vector's series has one value, a matrix's values: each checked
  // against the resultType however the keys are ordered.
  auto wrong = ParsePromAnswer(
      R"({"data":{"result":[{"metric":{},"values":[[1,"2"]]}],"resultType":"vector"},
          "status":"success"})",
      "q");
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error().code, ErrorCode::kCorrupt);
  // A status error wins over malformed series.
  auto e = ParsePromAnswer(
      R"({"data":{"result":[{"metric":{"a":1}}]},"status":"error","error":"x"})", "q");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ErrorCode::kInvalid);
}

TEST(PromAnswer, ErrorsAreOneLineNamingTheQuery) {
  auto e = ParsePromAnswer(
      R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected"})",
      "query 'rate(x'");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message, "query 'rate(x': bad_data: 1:5: parse error: unexpected");
  auto odd = ParsePromAnswer(R"({"status":"error","errorType":5,"error":["x"]})", "query 'q'");
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.error().message, "query 'q': error: (no message)");
  for (const char* body : {"<html>oops</html>", "", "[]", R"({"status":"success"})",
                           R"({"status":"success","data":{"resultType":"vector","result":[1]}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[
                               {"metric":{},"value":[1,"x"]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{"a":1},"values":[]}]}})",
                           // Points and labels of the wrong shape, read as they stream past.
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[[1,"2"],[1]]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[["1","2"]]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[[1,"2"],1]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[[1,"2",3]]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[[1,["2"]]]}]}})",
                           R"({"status":"success","data":{"resultType":"matrix","result":[
                               {"metric":{},"values":[{"t":1}]}]}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[
                               {"metric":{"a":null},"value":[1,"2"]}]}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[
                               {"metric":["a"],"value":[1,"2"]}]}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[
                               {"metric":true,"value":[1,"2"]}]}})",
                           R"({"status":"success","data":{"resultType":"vector","result":[
                               {"metric":{},"value":3}]}})",
                           // Members of another type (a proxy's answer) are errors, not a throw.
                           R"({"status":null})", R"({"status":1,"data":{}})",
                           R"({"status":"success","isPartial":"false","data":{"resultType":1,"result":[]}})",
                           R"({"status":"success","data":{"resultType":["vector"],"result":[]}})"}) {
    auto r = ParsePromAnswer(body, "query 'q'");
    ASSERT_FALSE(r) << body;
    EXPECT_EQ(r.error().code, ErrorCode::kCorrupt) << body;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << r.error().message;
    EXPECT_TRUE(r.error().message.starts_with("query 'q': ")) << r.error().message;
  }
}

TEST(PromLabels, NodesGpusAndSelectors) {
  EXPECT_EQ(NodeOfLabels({{"instance", "10.0.0.1:9400"}, {"Hostname", "node-7"}}), "node-7");
  EXPECT_EQ(NodeOfLabels({{"instance", "10.0.0.1:9400"}, {"hostname", "n8"}}), "n8");
  EXPECT_EQ(NodeOfLabels({{"instance", "10.0.0.1:9400"}}), "10.0.0.1:9400");
  GpuLabels dcgm = GpuOfLabels({{"gpu", "3"}, {"UUID", "GPU-x"}, {"pci_bus_id", "00000000:3B:00.0"},
                                {"modelName", "NVIDIA H100"}});
  EXPECT_EQ(dcgm.pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(dcgm.Key(), "0000:3b:00.0");
  EXPECT_EQ(dcgm.uuid, "GPU-x");
  EXPECT_EQ(dcgm.model, "NVIDIA H100");
  EXPECT_EQ(GpuOfLabels({{"gpu", "2"}}).Key(), "index:2");  // core/gpu_key.h
  EXPECT_EQ(GpuOfLabels({{"gpu", "x"}}).Key(), "gpu x");

  EXPECT_EQ(*MatchersOf(""), "");
  EXPECT_EQ(*MatchersOf(" {job=\"gpudoctor\"} "), "job=\"gpudoctor\"");
  EXPECT_FALSE(MatchersOf("job=\"x\""));
  EXPECT_FALSE(MatchersOf("{a=\"b\"}{c=\"d\"}"));
  EXPECT_FALSE(MatchersOf("{__name__=\"up\"}"));
  EXPECT_EQ(Selector("up", ""), "up");
  EXPECT_EQ(Selector("up", "job=\"a\"", "state=\"lost\""), "up{state=\"lost\",job=\"a\"}");
  EXPECT_EQ(SelectorOfNames("a|b", "job=\"a\""), "{__name__=~\"a|b\",job=\"a\"}");
}

PromSeries Series(PromLabels labels,
                  std::vector<std::pair<double, double>> points) {
  PromSeries s;
  s.labels = std::move(labels);
  for (auto [t, v] : points) s.points.push_back(PromPoint{t, v});
  return s;
}

const PromLabels kGpuLabels = {
    {"Hostname", "n1"}, {"gpu", "1"}, {"pci_bus_id", "00000000:19:00.0"}, {"UUID", "GPU-1"}};

TEST(SeriesReadings, FieldsOfBothNamingsMeetInOneReading) {
  SeriesReadings r;
  r.AddFieldSeries(Series(kGpuLabels, {{100, 71}, {160, 88}}), "DCGM_FI_DEV_GPU_TEMP");
  r.AddFieldSeries(Series(kGpuLabels, {{160, 1.2e9}}), "gpudoctor_gpu_sm_clock_hertz");
  r.AddFieldSeries(Series(kGpuLabels, {{160, 5}}), "not_a_field");
  DiagnosisInput in = r.InputFor("n1", Config{}, WallTime{}, WallTime{});
  ASSERT_EQ(in.gpus.size(), 1u);
  const GpuSeries& g = in.gpus[0];
  EXPECT_EQ(g.key, "0000:19:00.0");
  ASSERT_EQ(g.readings.size(), 2u);
  EXPECT_EQ(g.readings[0].temperature_c, 71);
  EXPECT_EQ(g.readings[0].clocks_sm_mhz, std::nullopt);
  EXPECT_EQ(g.readings[1].temperature_c, 88);
  EXPECT_EQ(g.readings[1].clocks_sm_mhz, 1200);
  EXPECT_EQ(g.latest().index, 1u);
  EXPECT_EQ(g.latest().uuid, "GPU-1");
  EXPECT_TRUE(in.gpu_readings);
  EXPECT_TRUE(r.InputFor("other", Config{}, WallTime{}, WallTime{}).gpus.empty());
}

TEST(SeriesReadings, MigInstanceSeriesAreNotTheGpusReadings) {
  SeriesReadings r;
  auto mig = kGpuLabels;
  mig["GPU_I_ID"] = "1";
  mig["GPU_I_PROFILE"] = "3g.40gb";
  auto own = kGpuLabels;
  own["gpu_instance"] = "2";
  r.AddFieldSeries(Series(kGpuLabels, {{100, 2048}}), "DCGM_FI_DEV_FB_USED");
  r.AddFieldSeries(Series(mig, {{100, 30}}), "DCGM_FI_DEV_FB_USED");
  r.AddFieldSeries(Series(own, {{100, 5.0 * (1 << 20)}}), "gpudoctor_gpu_memory_used_bytes");
  // dcgm-exporter serves the GPU's device fields per instance once MIG is on:
  // those are the GPU's.
  r.AddFieldSeries(Series(mig, {{100, 77}}), "DCGM_FI_DEV_GPU_TEMP");
  auto mig2 = mig;
  mig2["GPU_I_ID"] = "2";
  r.AddFieldSeries(Series(mig2, {{100, 77}}), "DCGM_FI_DEV_GPU_TEMP");
  DiagnosisInput in = r.InputFor("n1", Config{}, WallTime{}, WallTime{});
  ASSERT_EQ(in.gpus.size(), 1u);
  ASSERT_EQ(in.gpus[0].readings.size(), 1u);
  EXPECT_EQ(in.gpus[0].readings[0].memory_used_bytes, 2048LL << 20);
  EXPECT_EQ(in.gpus[0].readings[0].temperature_c, 77);
  auto empty_id = kGpuLabels;
  empty_id["GPU_I_ID"] = "";
  EXPECT_FALSE(IsMigInstanceSeries(empty_id));
  EXPECT_TRUE(IsMigInstanceSeries(mig));
  EXPECT_TRUE(IsMigInstanceSeries(own));
}

std::vector<std::pair<int, double>> XidEvents(const SeriesReadings& r) {
  std::vector<std::pair<int, double>> out;
  DiagnosisInput in = r.InputFor("n1", Config{}, WallTime{}, WallTime{});
  for (const auto& e : in.kernel->events) {
    out.emplace_back(*e.code, std::chrono::duration<double>(e.time->time_since_epoch()).count());
    EXPECT_EQ(e.pci_bus_id, "0000:19:00.0");
  }
  return out;
}

TEST(SeriesReadings, DcgmXidGaugeBecomesAnEventWhereItsCodeChanges) {
  // Non-zero points only (the query drops 0): 79 from 120 on, a gap (0 or
  // absent) at 300, 79 again at 360, then 13 at 420; points before 100
  // only set the code.
  SeriesReadings r;
  r.AddDcgmXidSeries(Series(kGpuLabels, {{60, 31}, {120, 79}, {180, 79}, {240, 79}, {360, 79},
                                         {420, 13}, {480, 13}}),
                     60, 100);
  using E = std::vector<std::pair<int, double>>;
  EXPECT_EQ(XidEvents(r), (E{{79, 120}, {79, 360}, {13, 420}}));
}

TEST(SeriesReadings, DcgmXidOfEachMigInstanceIsOneEvent) {
  SeriesReadings r;
  auto one = kGpuLabels, two = kGpuLabels;
  one["GPU_I_ID"] = "1";
  two["GPU_I_ID"] = "2";
  r.AddDcgmXidSeries(Series(one, {{100, 79}}), 60, 0);
  r.AddDcgmXidSeries(Series(two, {{100, 79}}), 60, 0);
  EXPECT_EQ(XidEvents(r), (std::vector<std::pair<int, double>>{{79, 100}}));
}

TEST(SeriesReadings, XidCounterRisesAreEvents) {
  // The range starts at 0 (one step before the window): its first point is
  // the baseline. Rises at 120 (+2) and 240 (+1); at 300 the agent
  // restarted (3 -> 1: one new event).
  SeriesReadings r;
  auto labels = kGpuLabels;
  labels["xid"] = "79";
  r.AddXidCounterSeries(Series(labels, {{0, 4}, {60, 4}, {120, 6}, {180, 6}, {240, 7}, {300, 1}}),
                        0, 60);
  DiagnosisInput in = r.InputFor("n1", Config{}, WallTime{}, WallTime{});
  ASSERT_EQ(in.kernel->events.size(), 3u);
  EXPECT_EQ(in.kernel->events[0].count, 2u);
  EXPECT_EQ(in.kernel->events[1].count, 1u);
  EXPECT_EQ(in.kernel->events[2].count, 1u);
  // A series that appears inside the window began at 0.
  SeriesReadings later;
  later.AddXidCounterSeries(Series(labels, {{180, 1}}), 0, 60);
  ASSERT_EQ(later.InputFor("n1", Config{}, WallTime{}, WallTime{}).kernel->events.size(), 1u);
}

TEST(SeriesReadings, ReasonAndStateFlagsSetTheReading) {
  SeriesReadings r;
  auto brake = kGpuLabels;
  brake["reason"] = "hw_power_brake_slowdown";
  auto thermal = kGpuLabels;
  thermal["reason"] = "hw_thermal_slowdown";
  auto lost = kGpuLabels;
  lost["state"] = "lost";
  r.AddClockReasonSeries(Series(brake, {{60, 1}, {120, 0}}));
  r.AddClockReasonSeries(Series(thermal, {{60, 1}, {120, 1}}));
  r.AddGpuStateSeries(Series(lost, {{60, 0}, {120, 1}}));
  DiagnosisInput in = r.InputFor("n1", Config{}, WallTime{}, WallTime{});
  ASSERT_EQ(in.gpus.size(), 1u);
  ASSERT_EQ(in.gpus[0].readings.size(), 2u);
  const std::uint64_t both = ClockReasonBit("hw_power_brake_slowdown") | ClockReasonBit("hw_thermal_slowdown");
  EXPECT_EQ(in.gpus[0].readings[0].clock_event_reasons_mask, both);
  EXPECT_EQ(in.gpus[0].readings[1].clock_event_reasons_mask, ClockReasonBit("hw_thermal_slowdown"));
  EXPECT_EQ(in.gpus[0].readings[0].state, GpuState::kOk);
  EXPECT_EQ(in.gpus[0].readings[1].state, GpuState::kLost);
}

}  // namespace
}  // namespace gpudoctor
