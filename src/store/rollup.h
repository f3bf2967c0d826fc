// Per-minute aggregates of one GPU's samples: min/avg/max/count of every
// numeric column, seconds per clock-event reason, and the last value of the
// identity and text columns. Roll-ups are written when a chunk is sealed and
// built the same way from raw samples at read time, so the two always agree.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/result.h"
#include "store/chunk_codec.h"

namespace gpudoctor {

inline constexpr std::int64_t kMinuteMs = 60'000;

struct FieldAgg {
  std::int64_t count = 0;
  double min = 0;
  double max = 0;  // for clock_event_reasons_mask: the OR of the minute's masks
  double sum = 0;
  void Add(double v, bool bitwise_or);
  void Merge(const FieldAgg& other, bool bitwise_or);
};

// Column ids are those of store/column_names.h.
struct MinuteAgg {
  std::int64_t minute_ms = 0;  // start of the minute, ms since the epoch
  std::int64_t samples = 0;
  std::int64_t first_ms = 0;  // first and last sample time in the minute
  std::int64_t last_ms = 0;
  std::vector<FieldAgg> fields;              // numeric columns by id (count 0: none)
  std::vector<std::optional<Cell>> last;     // identity and text columns by id
  std::map<std::string, double> throttle_s;  // clock reason name -> seconds
  double sampled_s = 0;                      // time the samples stand for
  FieldAgg& Field(std::size_t id);
  void SetLast(std::size_t id, const Cell& cell);
  void Merge(const MinuteAgg& other);
};

// The time one sample stands for: the gap to the previous sample when it is
// at most kMaxSampleGapMs, else the gap to the next one (same bound), else 1 s.
inline constexpr std::int64_t kMaxSampleGapMs = 60'000;

// Aggregates the rows of `set` (one GPU, time order) into minutes, in order.
std::vector<MinuteAgg> AggregateMinutes(const ColumnSet& set);

// Merges `from` into `into` by minute; `into` stays ordered.
void MergeMinutes(std::map<std::int64_t, MinuteAgg>& into, std::vector<MinuteAgg> from);

// A reading standing for the minute: averages of numeric fields (the OR of
// clock-event reasons), last identity and text values.
GpuStatus MinuteReading(const MinuteAgg& minute);

Result<std::string> EncodeRollups(const std::vector<MinuteAgg>& minutes);
Result<std::vector<MinuteAgg>> DecodeRollups(std::string_view blob);

}  // namespace gpudoctor
