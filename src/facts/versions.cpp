#include "facts/versions.h"

namespace gpudoctor {

std::string_view GspModeName(GspMode mode) {
  switch (mode) {
    case GspMode::kDisabled:
      return "disabled";
    case GspMode::kEnabled:
      return "enabled";
    case GspMode::kDefault:
      return "default";
    case GspMode::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view CudaSupportName(CudaSupport s) {
  switch (s) {
    case CudaSupport::kSupported:
      return "supported";
    case CudaSupport::kMinorCompatOnly:
      return "minor_compat_only";
    case CudaSupport::kDriverTooOld:
      return "driver_too_old";
    case CudaSupport::kUnknown:
      return "unknown";
  }
  return "unknown";
}

}  // namespace gpudoctor
