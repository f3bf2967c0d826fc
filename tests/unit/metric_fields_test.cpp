// The table of series names: each field round-trips through both namings,
// names are unique, and every gpudoctor name is what the agent's /metrics
// really serves for that field, at the table's scale.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "core/metric_fields.h"
#include "render/prometheus_metrics.h"

namespace gpudoctor {
namespace {

// A value each field can hold exactly: booleans 1, others a distinct
// whole number per field.
double FieldTestValue(std::size_t i, const MetricField& f) {
  if (f.scalar && std::holds_alternative<BoolMember>(f.scalar->member)) return 1;
  return static_cast<double>(10 + 7 * i);
}

GpuStatus GpuWithEveryField() {
  GpuStatus g;
  g.index = 3;
  g.uuid = "GPU-fields";
  g.pci_bus_id = "0000:3b:00.0";
  g.name = "NVIDIA H100";
  const auto fields = MetricFields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    SetFieldValue(g, fields[i], FieldTestValue(i, fields[i]));
  }
  return g;
}

TEST(MetricFields, NamesAreUniqueAndLookUpTheirField) {
  std::set<std::string_view> names;
  for (const auto& f : MetricFields()) {
    EXPECT_FALSE(f.names.gpudoctor.name.empty() && f.names.dcgm.name.empty()) << f.names.status_name;
    for (std::string_view n : {f.names.gpudoctor.name, f.names.dcgm.name, f.names.dcgm_alias}) {
      if (n.empty()) continue;
      EXPECT_TRUE(names.insert(n).second) << n << " twice";
      EXPECT_EQ(FindFieldOfSeries(n).field, &f) << n;
    }
    if (!f.names.dcgm.name.empty()) {
      EXPECT_TRUE(f.names.dcgm.name.starts_with("DCGM_FI_")) << f.names.dcgm.name;
    }
    if (!f.names.gpudoctor.name.empty()) {
      EXPECT_TRUE(f.names.gpudoctor.name.starts_with("gpudoctor_gpu_")) << f.names.gpudoctor.name;
      EXPECT_EQ(f.names.gpudoctor.kind == SeriesKind::kCounter, f.names.gpudoctor.name.ends_with("_total"))
          << f.names.gpudoctor.name;
    }
  }
  EXPECT_EQ(FindFieldOfSeries("gpudoctor_gpu_verdict").field, nullptr);
  EXPECT_EQ(FindFieldOfSeries("").field, nullptr);
}

TEST(MetricFields, SeriesValuesConvertBackToTheField) {
  // dcgm-exporter's framebuffer is MiB, its energy mJ, its clocks MHz.
  auto fb = FindFieldOfSeries("DCGM_FI_DEV_FB_USED");
  ASSERT_NE(fb.field, nullptr);
  GpuStatus g;
  SetFieldValue(g, *fb.field, 2048 * fb.field_per_series_unit);
  EXPECT_EQ(g.memory_used_bytes, 2048LL * 1024 * 1024);
  auto energy = FindFieldOfSeries("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION");
  SetFieldValue(g, *energy.field, 5000 * energy.field_per_series_unit);
  EXPECT_DOUBLE_EQ(*g.energy_total_j, 5.0);
  auto clock = FindFieldOfSeries("gpudoctor_gpu_sm_clock_hertz");
  SetFieldValue(g, *clock.field, 1.98e9 * clock.field_per_series_unit);
  EXPECT_EQ(g.clocks_sm_mhz, 1980);
  auto reasons = FindFieldOfSeries("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS");  // the older name
  ASSERT_NE(reasons.field, nullptr);
  SetFieldValue(g, *reasons.field, 0x48);
  EXPECT_EQ(g.clock_event_reasons_mask, 0x48u);
  SetFieldValue(g, *reasons.field, -1);  // not a mask: ignored
  SetFieldValue(g, *reasons.field, NAN);
  EXPECT_EQ(g.clock_event_reasons_mask, 0x48u);
  auto failure = FindFieldOfSeries("DCGM_FI_DEV_ROW_REMAP_FAILURE");
  SetFieldValue(g, *failure.field, 1);
  EXPECT_EQ(g.remapped_rows_failure, true);
}

TEST(MetricFields, EveryFieldRoundTripsThroughBothNamings) {
  const GpuStatus g = GpuWithEveryField();
  const auto fields = MetricFields();
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const MetricField& f = fields[i];
    auto v = FieldValue(g, f);
    ASSERT_TRUE(v) << f.names.status_name;
    EXPECT_DOUBLE_EQ(*v, FieldTestValue(i, f)) << f.names.status_name;
    for (const SeriesName* s : {&f.names.gpudoctor, &f.names.dcgm}) {
      if (s->name.empty()) continue;
      const double series = *v * s->per_field_unit;
      auto back = FindFieldOfSeries(s->name);
      GpuStatus r;
      SetFieldValue(r, *back.field, series * back.field_per_series_unit);
      EXPECT_NEAR(*FieldValue(r, f), *v, 1e-6) << s->name;
    }
  }
}

// Parses "name{labels} value" lines of the exposition into name -> value
// (the first sample of each name).
std::map<std::string, double> FirstSampleOfEachName(const std::string& text) {
  std::map<std::string, double> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty() || line[0] == '#') continue;
    std::size_t name_end = line.find_first_of("{ ");
    std::size_t value_at = line.rfind(' ');
    if (name_end == std::string::npos || value_at == std::string::npos) continue;
    out.emplace(line.substr(0, name_end), std::stod(line.substr(value_at + 1)));
  }
  return out;
}

TEST(MetricFields, GpudoctorNamesAreWhatTheAgentServes) {
  AgentLiveSnapshot s;
  s.status.nvml_loaded = true;
  s.status.gpus.push_back(GpuWithEveryField());
  const auto samples = FirstSampleOfEachName(RenderPrometheusMetrics(s, ExpositionFormat::kPrometheusText));
  int checked = 0;
  for (const auto& f : MetricFields()) {
    if (f.names.gpudoctor.name.empty()) continue;
    auto it = samples.find(std::string(f.names.gpudoctor.name));
    ASSERT_NE(it, samples.end()) << f.names.gpudoctor.name << " is not served";
    EXPECT_NEAR(it->second, *FieldValue(s.status.gpus[0], f) * f.names.gpudoctor.per_field_unit,
                1e-9 * std::fabs(it->second) + 1e-12)
        << f.names.gpudoctor.name;
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

}  // namespace
}  // namespace gpudoctor
