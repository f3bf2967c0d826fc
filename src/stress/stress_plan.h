// `gpudoctor stress` options as typed, and the checked plan made of them.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/result.h"

namespace gpudoctor {

struct StressOptions {
  std::string tests = "hbm,memory,pcie,p2p,power";  // comma-separated; run in this order whatever is given
  std::string duration = "60s";
  std::vector<std::string> gpus;           // --gpu selectors; empty: all
  std::string start = "together";          // together | staggered
  double memory_fraction = 0.75;
  bool force = false;
};

enum class StressTest { kPower, kHbm, kMemory, kPcie, kP2p };

struct StressPlan {
  std::vector<StressTest> tests;  // in the order they run: hbm, memory, pcie, p2p, power
  std::chrono::milliseconds duration{60000};
  bool staggered = false;
  double memory_fraction = 0.75;
  bool force = false;
  std::vector<std::string> gpus;
};

// "power", "hbm", "memory", "pcie", "p2p".
const char* StressTestName(StressTest test);

// Errors name the option: "--tests: unknown test 'foo' (hbm, memory, pcie,
// p2p, power)", "--memory-fraction: 1.5 is not in (0, 0.95]".
Result<StressPlan> MakeStressPlan(const StressOptions& options);

}  // namespace gpudoctor
