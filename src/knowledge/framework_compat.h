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

#include "facts/versions.h"
#include "knowledge/cuda_driver_table.h"

namespace gpudoctor {

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

// `driver` and `driver_cuda` as known (NVML, /proc/driver/nvidia/version).
FrameworkCheck CheckFrameworkBuild(const FrameworkBuild& build, std::optional<DriverVersion> driver,
                                   std::optional<CudaVersion> driver_cuda);

}  // namespace gpudoctor
