// The GpuStatus fields that travel as Prometheus series: each field's name in
// gpudoctor's exposition and in NVIDIA dcgm-exporter's, with the scale
// between the series and the field. One table serves both directions:
// writing series (the agent's /metrics, in either naming) and reading them
// back into readings (`fleet` and `report --prometheus`).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "core/gpu_fields.h"
#include "core/gpu_status.h"

namespace gpudoctor {

enum class SeriesKind { kGauge, kCounter };

// A name a field has in one naming scheme, and the factor that turns the
// field's value into the series' (series = field * per_field_unit).
struct SeriesName {
  std::string_view name;  // empty: no series for this field in that naming
  double per_field_unit = 1;
  SeriesKind kind = SeriesKind::kGauge;
};

struct MetricFieldNames {
  std::string_view status_name;  // the field as `status --json` names it
  SeriesName gpudoctor;
  SeriesName dcgm;
  // An older dcgm-exporter name of the same field, read as well (empty: none).
  std::string_view dcgm_alias;
};

struct MetricField {
  MetricFieldNames names;
  // The member, through the scalar-field table; null for the two fields
  // that table leaves out (pstate, clock_event_reasons_mask).
  const GpuField* scalar = nullptr;
};

// Every field with a series in at least one naming, in GpuStatus order.
std::span<const MetricField> MetricFields();

// A field a MIG GPU instance has of its own (its memory, its GPM
// activity); the others are the whole GPU's.
bool IsPerMigInstanceField(const MetricField& field);

// The field of `gpu` in its own unit; nullopt when unread.
std::optional<double> FieldValue(const GpuStatus& gpu, const MetricField& field);
// Sets the field from a value in its own unit: integers and masks rounded to
// the nearest whole number (negative masks and non-finite values ignored),
// booleans true when non-zero.
void SetFieldValue(GpuStatus& gpu, const MetricField& field, double value);

// The field a series name (either naming, or a dcgm alias) stands for, and
// the factor from series to field unit; nullptr when none.
struct FieldOfSeries {
  const MetricField* field = nullptr;
  double field_per_series_unit = 1;
};
FieldOfSeries FindFieldOfSeries(std::string_view series_name);

}  // namespace gpudoctor
