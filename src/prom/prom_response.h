// Prometheus' HTTP query API answers (/api/v1/query and /api/v1/query_range,
// as Prometheus, Thanos, Mimir and VictoriaMetrics give them), parsed into
// series. Pure: the body in, the series or a one-line error out.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpudoctor {

struct PromPoint {
  double time_s = 0;  // Unix seconds
  double value = 0;   // NaN and infinities as Prometheus writes them
};

struct PromSeries {
  // __name__ included when present; looked up by name without a copy
  std::map<std::string, std::string, std::less<>> labels;
  std::vector<PromPoint> points;              // one for an instant vector; time order
  const std::string& Label(std::string_view name) const;  // empty when absent
};

struct PromAnswer {
  std::vector<PromSeries> series;  // a scalar answer is one series without labels
  // The engine's warnings, and "partial response" when it says the answer
  // is partial (VictoriaMetrics' isPartial, Thanos' warnings).
  std::vector<std::string> warnings;
};

// `what` names the query in messages ("query 'up'"). A status "error" is
// its errorType and error; a body that is not the API's JSON is kCorrupt.
Result<PromAnswer> ParsePromAnswer(std::string_view body, const std::string& what);

}  // namespace gpudoctor
