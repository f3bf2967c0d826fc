// What can go wrong between a Python framework's CUDA build and the machine,
// as a small catalog of facts and one check that applies
// it. Deliberately short: every entry follows from NVIDIA's driver table,
// minor-version compatibility rules, or how the frameworks mark their builds.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "knowledge/cuda_driver_table.h"

namespace gpudoctor {

enum class FrameworkIssueId {
  kDriverTooOld,     // built for a CUDA the driver cannot run at all
  kMinorCompatOnly,  // runs only through minor-version compatibility
  kCpuOnlyBuild,     // a CPU build where GPUs are expected
  kRocmBuild,        // an AMD ROCm build: cannot use NVIDIA GPUs
  kMixedCudaMajors,  // CUDA runtimes of several major versions in one environment
};

struct FrameworkIssueInfo {
  FrameworkIssueId id;
  std::string_view key;      // stable id for JSON and rules: "driver_too_old"
  std::string_view summary;  // what it means
  std::string_view advice;   // what to do
  std::string_view basis;    // where the fact comes from
};

std::span<const FrameworkIssueInfo> FrameworkIssueCatalog();
const FrameworkIssueInfo& FrameworkIssue(FrameworkIssueId id);

// A framework's build as read from disk.
struct FrameworkBuild {
  std::optional<CudaVersion> cuda;  // major.minor it was built with (no patch)
  bool cpu_only = false;
  bool rocm = false;
};

struct FrameworkCheck {
  std::optional<CudaSupportVerdict> verdict;  // when both CUDA build and driver are known
  std::vector<FrameworkIssueId> issues;
};

// `driver` and `driver_cuda` as known (NVML, /proc/driver/nvidia/version).
FrameworkCheck CheckFrameworkBuild(const FrameworkBuild& build, std::optional<DriverVersion> driver,
                                   std::optional<CudaVersion> driver_cuda);

}  // namespace gpudoctor
