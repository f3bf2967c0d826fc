// NVIDIA's CUDA toolkit -> minimum Linux x86_64 driver table and
// the minor-version compatibility minimums per toolkit family,
// with the lookups diagnosis needs. The tables are static data; every
// function is pure and thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "facts/version_numbers.h"
#include "facts/versions.h"

namespace gpudoctor {

// One row of NVIDIA's "CUDA Toolkit and Corresponding Driver Versions" table.
// The row applies to toolkit versions major.minor.P with P >= first_patch up to
// the next row of the same major.minor (e.g. 12.2.0 GA, 12.2.1 Update 1).
struct CudaDriverRow {
  int cuda_major;
  int cuda_minor;
  int first_patch;
  std::string_view min_driver;  // "535.54.03"
  std::string_view release;     // "12.2 GA", "12.2 Update 1"
  bool verified;                // false where the facts mark the value unverified
};

// Minor-version compatibility: a toolkit of this major family runs (with a
// limited feature set) on any driver at or above `min_driver`.
struct MinorCompatRow {
  int cuda_major;
  std::string_view min_driver;
};

std::span<const CudaDriverRow> CudaDriverTable();
std::span<const MinorCompatRow> MinorCompatTable();

// The minimum Linux driver for a CUDA version. A patch must be a toolkit
// update number (version.json's "12.2.2"), not a component build number
// (libcudart's "12.2.140"): callers drop the patch of component versions.
// Without a patch the release's
// GA row is used (the lowest minimum for that major.minor). With
// minor_compat, the family minimum is used when it is lower, also
// for minor releases missing from the table (e.g. a future 12.x). nullopt for
// a version the tables do not cover.
std::optional<DriverVersion> MinDriverFor(const CudaVersion& cuda, bool minor_compat);

// The newest CUDA major.minor whose GA minimum this driver meets (what
// nvidia-smi shows as "CUDA Version", derived from the table). {0, 0} for a
// driver older than every row.
CudaVersion MaxCudaForDriver(const DriverVersion& driver);

// `driver_cuda` is the driver's own report (NVML / nvidia-smi "CUDA Version")
// when known; it takes precedence over the table for the native check.
CudaSupportVerdict CheckCudaOnDriver(const CudaVersion& needed, const DriverVersion& driver,
                                     std::optional<CudaVersion> driver_cuda = std::nullopt);

}  // namespace gpudoctor
