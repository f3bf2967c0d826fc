// The thresholds a single reading is graded against (temperature,
// utilisation, memory, power) and how. Defaults here; the config file's
// [thresholds] overrides them.
#pragma once

#include <optional>

namespace gpudoctor {

enum class Level { kNone, kNormal, kInfo, kWarning, kCritical };

struct Thresholds {
  double utilization_wasted_below_percent = 30;  // < 30 %: wasted
  double utilization_normal_min_percent = 60;    // 60-90 %: normal
  double utilization_normal_max_percent = 90;
  double utilization_saturated_percent = 98;     // sustained ~100 %: may throttle
  double memory_high_percent = 90;               // > 90 %: OOM risk
  double temperature_high_c = 85;                // > 85 C: thermal protection
  double power_near_limit_ratio = 0.98;          // draw >= 98 % of limit
  double power_fluctuation_cv = 0.15;            // coefficient of variation
};

// kNone when the value is absent.
Level GradeUtilization(std::optional<double> percent, const Thresholds& t);
Level GradeMemory(std::optional<double> used_percent, const Thresholds& t);
Level GradeTemperature(std::optional<double> celsius,
                       std::optional<double> slowdown_c, const Thresholds& t);
Level GradePower(std::optional<double> draw_w, std::optional<double> limit_w,
                 const Thresholds& t);

}  // namespace gpudoctor
