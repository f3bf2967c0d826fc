#include "knowledge/cuda_driver_table.h"

#include <array>
#include <string>

#include "parse/version_numbers.h"

namespace gpudoctor {
namespace {

// Facts section 4.1. Rows of one major.minor are ordered by first_patch.
// Toolkit patch numbers before 11.0 are build numbers (10.1.105, 10.1.243),
// so those releases have a single row starting at patch 0 (9.2.148 is the
// one documented exception).
constexpr std::array<CudaDriverRow, 52> kRows{{
    {8, 0, 0, "375.26", "8.0 GA2", true},
    {9, 0, 0, "384.81", "9.0", true},
    {9, 1, 0, "390.46", "9.1", true},
    {9, 2, 0, "396.26", "9.2", true},
    {9, 2, 148, "396.37", "9.2.148", true},
    {10, 0, 0, "410.48", "10.0.130", true},
    {10, 1, 0, "418.39", "10.1", true},
    {10, 2, 0, "440.33", "10.2.89", true},
    {11, 0, 0, "450.36.06", "11.0.1 RC", true},
    {11, 0, 2, "450.51.05", "11.0.2 GA", true},
    {11, 0, 3, "450.51.06", "11.0.3 Update 1", true},
    {11, 1, 0, "455.23", "11.1 GA", true},
    {11, 1, 1, "455.32", "11.1.1", true},
    {11, 2, 0, "460.27.03", "11.2.0", true},
    {11, 2, 1, "460.32.03", "11.2.1", true},
    {11, 3, 0, "465.19.01", "11.3", true},
    {11, 4, 0, "470.42.01", "11.4.0 GA", true},
    {11, 4, 1, "470.57.02", "11.4 Update 1-2", true},
    {11, 4, 3, "470.82.01", "11.4 Update 3-4", true},
    {11, 5, 0, "495.29.05", "11.5", true},
    {11, 6, 0, "510.39.01", "11.6 GA", true},
    {11, 6, 1, "510.47.03", "11.6 Update 1-2", true},
    {11, 7, 0, "515.43.04", "11.7 GA", true},
    {11, 7, 1, "515.48.07", "11.7 Update 1", true},
    {11, 8, 0, "520.61.05", "11.8 GA", true},
    {12, 0, 0, "525.60.13", "12.0 GA", true},
    {12, 0, 1, "525.85.12", "12.0 Update 1", true},
    {12, 1, 0, "530.30.02", "12.1", true},
    {12, 2, 0, "535.54.03", "12.2 GA", true},
    {12, 2, 1, "535.86.09", "12.2 Update 1", true},
    {12, 2, 2, "535.104.05", "12.2 Update 2", true},
    {12, 3, 0, "545.23.06", "12.3 GA", true},
    {12, 3, 1, "545.23.08", "12.3 Update 1", true},
    {12, 4, 0, "550.54.14", "12.4 GA", true},
    {12, 4, 1, "550.54.15", "12.4 Update 1", true},
    {12, 5, 0, "555.42.02", "12.5 GA", true},
    {12, 5, 1, "555.42.06", "12.5 Update 1", true},
    {12, 6, 0, "560.28.03", "12.6 GA", true},
    {12, 6, 1, "560.35.03", "12.6 Update 1-2", true},
    {12, 6, 3, "560.35.05", "12.6 Update 3", true},
    {12, 8, 0, "570.26", "12.8 GA", true},
    {12, 8, 1, "570.124.06", "12.8 Update 1", true},
    {12, 9, 0, "575.51.03", "12.9 GA", true},
    {12, 9, 1, "575.57.08", "12.9 Update 1", true},
    {13, 0, 0, "580.65.06", "13.0 GA", true},
    {13, 0, 1, "580.82.07", "13.0 Update 1", true},
    {13, 0, 2, "580.95.05", "13.0 Update 2", true},
    {13, 1, 0, "590.44.01", "13.1 GA", true},
    {13, 1, 1, "590.48.01", "13.1 Update 1", true},
    {13, 2, 0, "595.45.04", "13.2 GA", true},
    {13, 2, 1, "595.58.03", "13.2 Update 1", true},
    {13, 3, 0, "610.43.02", "13.3 GA", false},
}};

// Facts section 4.2. CUDA 10.x and older have no minor-version compatibility.
constexpr std::array<MinorCompatRow, 3> kMinorCompat{{
    {11, "450.80.02"},
    {12, "525.60.13"},
    {13, "580"},
}};

// Table values are full versions, except the family minimums that NVIDIA
// states as a branch ("580"): those mean <branch>.0.
DriverVersion Driver(std::string_view text) {
  if (auto v = ParseDriverVersion(text)) return *v;
  DriverVersion branch;
  if (auto parts = SplitVersion(text, 1, 1)) branch.major = parts->parts[0];
  branch.text = std::string(text);
  return branch;  // every row is checked by a unit test
}

std::optional<DriverVersion> NativeMinimum(const CudaVersion& cuda) {
  const CudaDriverRow* best = nullptr;
  for (const auto& row : kRows) {
    if (row.cuda_major != cuda.major || row.cuda_minor != cuda.minor) continue;
    if (best == nullptr) best = &row;  // GA row
    if (cuda.patch && *cuda.patch >= row.first_patch) best = &row;
  }
  if (best == nullptr) return std::nullopt;
  return Driver(best->min_driver);
}

std::optional<DriverVersion> FamilyMinimum(int cuda_major) {
  for (const auto& row : kMinorCompat) {
    if (row.cuda_major == cuda_major) return Driver(row.min_driver);
  }
  return std::nullopt;
}

}  // namespace

std::span<const CudaDriverRow> CudaDriverTable() { return kRows; }

std::span<const MinorCompatRow> MinorCompatTable() { return kMinorCompat; }

std::optional<DriverVersion> MinDriverFor(const CudaVersion& cuda, bool minor_compat) {
  auto native = NativeMinimum(cuda);
  if (!minor_compat) return native;
  auto family = FamilyMinimum(cuda.major);
  if (!family) return native;
  if (!native || *family < *native) return family;
  return native;
}

CudaVersion MaxCudaForDriver(const DriverVersion& driver) {
  CudaVersion best{0, 0, std::nullopt};
  for (const auto& row : CudaDriverTable()) {
    if (row.first_patch != 0 || !row.verified) continue;
    if (Driver(row.min_driver) <= driver) {
      CudaVersion v{row.cuda_major, row.cuda_minor, std::nullopt};
      if (best < v) best = v;
    }
  }
  return best;
}

CudaSupportVerdict CheckCudaOnDriver(const CudaVersion& needed, const DriverVersion& driver,
                                     std::optional<CudaVersion> driver_cuda) {
  CudaSupportVerdict v;
  v.driver_max_cuda = driver_cuda ? *driver_cuda : MaxCudaForDriver(driver);
  v.min_driver = MinDriverFor(needed, false);
  v.min_driver_minor_compat = FamilyMinimum(needed.major);
  CudaVersion release = needed;
  release.patch.reset();
  if (release <= v.driver_max_cuda && (!v.min_driver || !needed.patch || *v.min_driver <= driver)) {
    v.support = CudaSupport::kSupported;
  } else if (v.min_driver && *v.min_driver <= driver) {
    v.support = CudaSupport::kSupported;
  } else if (v.min_driver_minor_compat && *v.min_driver_minor_compat <= driver) {
    v.support = CudaSupport::kMinorCompatOnly;
  } else if (v.min_driver || v.min_driver_minor_compat || needed.major <= 10) {
    v.support = CudaSupport::kDriverTooOld;
  }
  return v;
}

}  // namespace gpudoctor
