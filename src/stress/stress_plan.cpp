#include "stress/stress_plan.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/duration.h"

namespace gpudoctor {

const char* StressTestName(StressTest test) {
  switch (test) {
    case StressTest::kPower: return "power";
    case StressTest::kHbm: return "hbm";
    case StressTest::kMemory: return "memory";
    case StressTest::kPcie: return "pcie";
    case StressTest::kP2p: return "p2p";
  }
  return "?";
}

Result<StressPlan> MakeStressPlan(const StressOptions& options) {
  StressPlan plan;
  std::string list = options.tests;
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t comma = list.find(',', at);
    std::string name = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    at = comma == std::string::npos ? list.size() + 1 : comma + 1;
    if (name.empty()) continue;
    StressTest test;
    if (name == "power") test = StressTest::kPower;
    else if (name == "hbm") test = StressTest::kHbm;
    else if (name == "memory") test = StressTest::kMemory;
    else if (name == "pcie") test = StressTest::kPcie;
    else if (name == "p2p") test = StressTest::kP2p;
    else {
      return Error{ErrorCode::kInvalid,
                   "--tests: unknown test '" + name + "' (hbm, memory, pcie, p2p, power)"};
    }
    if (std::find(plan.tests.begin(), plan.tests.end(), test) == plan.tests.end()) {
      plan.tests.push_back(test);
    }
  }
  if (plan.tests.empty()) return Error{ErrorCode::kInvalid, "--tests: no test named"};
  // The short measurements first, the long burn last: a GPU that the burn
  // knocks off the bus has then already given its bandwidth and memory results.
  std::sort(plan.tests.begin(), plan.tests.end(), [](StressTest a, StressTest b) {
    auto rank = [](StressTest t) {
      switch (t) {
        case StressTest::kHbm: return 0;
        case StressTest::kMemory: return 1;
        case StressTest::kPcie: return 2;
        case StressTest::kP2p: return 3;
        case StressTest::kPower: return 4;
      }
      return 4;
    };
    return rank(a) < rank(b);
  });
  auto duration = ParseDuration(options.duration);
  if (!duration) return Error{ErrorCode::kInvalid, "--duration: " + duration.error().message};
  if (*duration < std::chrono::seconds(1) || *duration > std::chrono::hours(24)) {
    return Error{ErrorCode::kInvalid, "--duration: " + options.duration + " is not between 1s and 24h"};
  }
  plan.duration = *duration;
  if (options.start != "together" && options.start != "staggered") {
    return Error{ErrorCode::kInvalid,
                 "--start: '" + options.start + "' is neither together nor staggered"};
  }
  plan.staggered = options.start == "staggered";
  if (!(options.memory_fraction > 0 && options.memory_fraction <= 0.95)) {
    return Error{ErrorCode::kInvalid,
                 fmt::format("--memory-fraction: {} is not in (0, 0.95]", options.memory_fraction)};
  }
  plan.memory_fraction = options.memory_fraction;
  plan.force = options.force;
  plan.gpus = options.gpus;
  return plan;
}

}  // namespace gpudoctor
