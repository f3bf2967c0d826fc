#include "core/thresholds.h"

namespace gpudoctor {

Level GradeUtilization(std::optional<double> percent, const Thresholds& t) {
  if (!percent) return Level::kNone;
  if (*percent < t.utilization_wasted_below_percent) return Level::kInfo;
  if (*percent >= t.utilization_saturated_percent) return Level::kWarning;
  return Level::kNormal;
}

Level GradeMemory(std::optional<double> used_percent, const Thresholds& t) {
  if (!used_percent) return Level::kNone;
  if (*used_percent > t.memory_high_percent) return Level::kWarning;
  return Level::kNormal;
}

Level GradeTemperature(std::optional<double> celsius,
                       std::optional<double> slowdown_c, const Thresholds& t) {
  if (!celsius) return Level::kNone;
  if (slowdown_c && *slowdown_c > 0 && *celsius >= *slowdown_c) {
    return Level::kCritical;
  }
  if (*celsius > t.temperature_high_c) return Level::kWarning;
  return Level::kNormal;
}

Level GradePower(std::optional<double> draw_w, std::optional<double> limit_w,
                 const Thresholds& t) {
  if (!draw_w) return Level::kNone;
  if (limit_w && *limit_w > 0 && *draw_w >= *limit_w * t.power_near_limit_ratio) {
    return Level::kWarning;
  }
  return Level::kNormal;
}

}  // namespace gpudoctor
