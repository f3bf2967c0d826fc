#include "store/rollup.h"

#include <algorithm>
#include <cmath>

#include "core/clock_reasons.h"
#include "core/gpu_fields.h"
#include "store/column_names.h"
#include "store/sample_codec.h"

namespace gpudoctor {

namespace {

constexpr std::string_view kThrottlePrefix = "throttle|";
constexpr std::string_view kAggSuffixes[] = {"|n", "|min", "|max", "|sum"};
// Columns of a roll-up set besides the aggregates and last values.
constexpr std::string_view kSampledColumn = "|sampled_s";
constexpr std::string_view kSamplesColumn = "|samples";
constexpr std::string_view kFirstColumn = "|first_ms";
constexpr std::string_view kLastColumn = "|last_ms";

enum Role { kLastValue, kCount, kMin, kMax, kSum, kThrottle, kSampled, kSamples, kFirst, kLast };

std::size_t MaskId() {
  static const std::size_t id = ColumnId("clock_event_reasons_mask");
  return id;
}

// ColumnMeaning without its lock: the registry's entries never move, so
// each thread keeps pointers to those it has looked up.
const SampleColumn& Meaning(std::size_t id) {
  thread_local std::vector<const SampleColumn*> cache;
  if (id >= cache.size()) cache.resize(id + 1, nullptr);
  if (cache[id] == nullptr) cache[id] = &ColumnMeaning(id);
  return *cache[id];
}

std::int64_t MinuteOf(std::int64_t t_ms) {
  return t_ms - ((t_ms % kMinuteMs) + kMinuteMs) % kMinuteMs;
}

std::int64_t SampleWeightMs(const std::vector<std::int64_t>& t, std::size_t i) {
  if (i > 0 && t[i] - t[i - 1] > 0 && t[i] - t[i - 1] <= kMaxSampleGapMs) return t[i] - t[i - 1];
  if (i + 1 < t.size() && t[i + 1] - t[i] > 0 && t[i + 1] - t[i] <= kMaxSampleGapMs) {
    return t[i + 1] - t[i];
  }
  return 1000;
}

double ToDouble(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return static_cast<double>(*i);
  return std::get<double>(c);
}

double Or(double a, double b) {
  return static_cast<double>(static_cast<std::uint64_t>(a) | static_cast<std::uint64_t>(b));
}

}  // namespace

void FieldAgg::Add(double v, bool bitwise_or) {
  if (count == 0) {
    min = max = v;
  } else {
    min = std::min(min, v);
    max = bitwise_or ? Or(max, v) : std::max(max, v);
  }
  sum += v;
  ++count;
}

void FieldAgg::Merge(const FieldAgg& other, bool bitwise_or) {
  if (other.count == 0) return;
  if (count == 0) {
    *this = other;
    return;
  }
  min = std::min(min, other.min);
  max = bitwise_or ? Or(max, other.max) : std::max(max, other.max);
  sum += other.sum;
  count += other.count;
}

FieldAgg& MinuteAgg::Field(std::size_t id) {
  if (fields.size() <= id) fields.resize(id + 1);
  return fields[id];
}

void MinuteAgg::SetLast(std::size_t id, const Cell& cell) {
  if (last.size() <= id) last.resize(id + 1);
  last[id] = cell;
}

void MinuteAgg::Merge(const MinuteAgg& other) {
  for (std::size_t id = 0; id < other.fields.size(); ++id) {
    if (other.fields[id].count > 0) Field(id).Merge(other.fields[id], id == MaskId());
  }
  // The later part of the minute decides the last values.
  bool other_later = other.samples > 0 && (samples == 0 || other.last_ms >= last_ms);
  for (std::size_t id = 0; id < other.last.size(); ++id) {
    if (other.last[id] && (other_later || id >= last.size() || !last[id])) {
      SetLast(id, *other.last[id]);
    }
  }
  for (const auto& [name, s] : other.throttle_s) throttle_s[name] += s;
  sampled_s += other.sampled_s;
  if (other.samples > 0) {
    first_ms = samples == 0 ? other.first_ms : std::min(first_ms, other.first_ms);
    last_ms = samples == 0 ? other.last_ms : std::max(last_ms, other.last_ms);
  }
  samples += other.samples;
}

std::vector<MinuteAgg> AggregateMinutes(const ColumnSet& set) {
  std::vector<std::size_t> ids;
  std::vector<bool> numeric;
  for (const Column& c : set.columns) {
    ids.push_back(ColumnId(c.name));
    numeric.push_back(c.type != ColumnType::kText && IsNumericColumn(Meaning(ids.back())));
  }
  std::vector<MinuteAgg> out;
  ColumnSetReader reader(set);
  for (std::size_t i = 0; i < set.times_ms.size(); ++i) {
    std::int64_t t = set.times_ms[i];
    if (out.empty() || out.back().minute_ms != MinuteOf(t)) {
      out.push_back(MinuteAgg{});
      out.back().minute_ms = MinuteOf(t);
      out.back().first_ms = t;
    }
    MinuteAgg& m = out.back();
    double weight_s = static_cast<double>(SampleWeightMs(set.times_ms, i)) / 1000.0;
    m.sampled_s += weight_s;
    m.last_ms = t;
    ++m.samples;
    reader.NextRow([&](std::size_t c, const Cell& cell) {
      if (!numeric[c]) {
        m.SetLast(ids[c], cell);
        return;
      }
      bool is_mask = ids[c] == MaskId();
      m.Field(ids[c]).Add(ToDouble(cell), is_mask);
      if (!is_mask) return;
      for (const auto& reason : ClockReasonNames(static_cast<std::uint64_t>(ToDouble(cell)))) {
        m.throttle_s[reason] += weight_s;
      }
    });
  }
  return out;
}

void MergeMinutes(std::map<std::int64_t, MinuteAgg>& into, std::vector<MinuteAgg> from) {
  for (MinuteAgg& m : from) {
    auto [it, inserted] = into.try_emplace(m.minute_ms, std::move(m));
    if (!inserted) it->second.Merge(m);
  }
}

GpuStatus MinuteReading(const MinuteAgg& minute) {
  GpuStatus gpu;
  for (std::size_t id = 0; id < minute.last.size(); ++id) {
    if (minute.last[id]) ApplyCell(gpu, Meaning(id), *minute.last[id]);
  }
  std::size_t mask_id = MaskId();
  for (std::size_t id = 0; id < minute.fields.size(); ++id) {
    const FieldAgg& agg = minute.fields[id];
    if (agg.count == 0) continue;
    const SampleColumn& meaning = Meaning(id);
    double average = agg.sum / static_cast<double>(agg.count);
    if (id == mask_id) {
      ApplyCell(gpu, meaning, Cell(static_cast<std::int64_t>(agg.max)));
    } else if (meaning.kind == SampleColumn::Kind::kScalar) {
      SetNumber(gpu, *meaning.field, average);  // what ApplyCell does with a real
    } else {
      ApplyCell(gpu, meaning, Cell(average));
    }
  }
  return gpu;
}

Result<std::string> EncodeRollups(const std::vector<MinuteAgg>& minutes) {
  ColumnSetBuilder builder;
  std::vector<NamedCell> cells;
  for (const MinuteAgg& m : minutes) {
    cells.clear();
    cells.push_back({std::string(kSamplesColumn), Cell(m.samples)});
    cells.push_back({std::string(kFirstColumn), Cell(m.first_ms)});
    cells.push_back({std::string(kLastColumn), Cell(m.last_ms)});
    cells.push_back({std::string(kSampledColumn), Cell(m.sampled_s)});
    for (std::size_t id = 0; id < m.fields.size(); ++id) {
      const FieldAgg& agg = m.fields[id];
      if (agg.count == 0) continue;
      const std::string& name = ColumnName(id);
      cells.push_back({name + std::string(kAggSuffixes[0]), Cell(agg.count)});
      cells.push_back({name + std::string(kAggSuffixes[1]), Cell(agg.min)});
      cells.push_back({name + std::string(kAggSuffixes[2]), Cell(agg.max)});
      cells.push_back({name + std::string(kAggSuffixes[3]), Cell(agg.sum)});
    }
    for (std::size_t id = 0; id < m.last.size(); ++id) {
      if (m.last[id]) cells.push_back({ColumnName(id), *m.last[id]});
    }
    for (const auto& [name, s] : m.throttle_s) {
      cells.push_back({std::string(kThrottlePrefix) + name, Cell(s)});
    }
    builder.AddRow(m.minute_ms, cells);
  }
  return EncodeColumnSet(builder.Take());
}

Result<std::vector<MinuteAgg>> DecodeRollups(std::string_view blob) {
  auto set = DecodeColumnSet(blob);
  if (!set) return set.error();
  // What each column feeds, and the column id (or throttle reason) it is of.
  std::vector<std::pair<Role, std::size_t>> roles;
  std::vector<std::string> reasons;
  for (const Column& c : set->columns) {
    std::string_view n = c.name;
    Role role = kLastValue;
    if (n == kSampledColumn) role = kSampled;
    if (n == kSamplesColumn) role = kSamples;
    if (n == kFirstColumn) role = kFirst;
    if (n == kLastColumn) role = kLast;
    if (role != kLastValue) {
      roles.emplace_back(role, 0);
      continue;
    }
    if (n.starts_with(kThrottlePrefix)) {
      roles.emplace_back(kThrottle, reasons.size());
      reasons.emplace_back(n.substr(kThrottlePrefix.size()));
      continue;
    }
    for (int k = 0; k < 4; ++k) {
      if (n.ends_with(kAggSuffixes[k])) {
        role = static_cast<Role>(kCount + k);
        n.remove_suffix(kAggSuffixes[k].size());
        break;
      }
    }
    roles.emplace_back(role, ColumnId(n));
  }
  // Size each minute's vectors once rather than as cells arrive.
  std::size_t fields_size = 0;
  std::size_t last_size = 0;
  for (const auto& [role, id] : roles) {
    if (role == kLastValue) last_size = std::max(last_size, id + 1);
    if (role >= kCount && role <= kSum) fields_size = std::max(fields_size, id + 1);
  }
  std::vector<MinuteAgg> out(set->times_ms.size());
  ColumnSetReader reader(*set);
  for (std::size_t i = 0; i < out.size(); ++i) {
    MinuteAgg& m = out[i];
    m.minute_ms = set->times_ms[i];
    m.fields.resize(fields_size);
    m.last.resize(last_size);
    reader.NextRow([&](std::size_t c, const Cell& cell) {
      auto [role, id] = roles[c];
      if (role == kLastValue) {
        m.SetLast(id, cell);
        return;
      }
      if (std::holds_alternative<std::string>(cell)) return;
      double v = ToDouble(cell);
      switch (role) {
        case kCount:
          m.Field(id).count = static_cast<std::int64_t>(v);
          break;
        case kMin:
          m.Field(id).min = v;
          break;
        case kMax:
          m.Field(id).max = v;
          break;
        case kSum:
          m.Field(id).sum = v;
          break;
        case kThrottle:
          m.throttle_s[reasons[id]] = v;
          break;
        case kSampled:
          m.sampled_s = v;
          break;
        case kSamples:
          m.samples = static_cast<std::int64_t>(v);
          break;
        case kFirst:
          m.first_ms = static_cast<std::int64_t>(v);
          break;
        case kLast:
          m.last_ms = static_cast<std::int64_t>(v);
          break;
        case kLastValue:
          break;
      }
    });
  }
  return out;
}

}  // namespace gpudoctor
