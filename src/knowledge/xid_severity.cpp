#include "knowledge/xid_severity.h"

#include <algorithm>
#include <array>

namespace gpudoctor {
namespace {

constexpr std::array<int, 7> kDcgmFatal = {48, 74, 79, 95, 119, 120, 140};
constexpr std::array<int, 4> kApplication = {13, 31, 43, 45};

}  // namespace

std::span<const int> DcgmFatalXids() { return kDcgmFatal; }

bool IsApplicationXid(int code) {
  return std::find(kApplication.begin(), kApplication.end(), code) != kApplication.end();
}

bool ResolvesWithResetOrWorse(XidResolution immediate) {
  return immediate == XidResolution::kResetGpu || immediate == XidResolution::kRestartVm ||
         immediate == XidResolution::kRestartBm;
}

XidSeverity XidOccurrenceFloor(int code, std::string_view recovery_action) {
  if (code == 154) {
    if (recovery_action == "None") return XidSeverity::kInfo;
    for (std::string_view critical :
         {"GPU Reset Required", "Node Reboot Required", "OS Reboot", "Drain and Reset"}) {
      if (recovery_action == critical) return XidSeverity::kCritical;
    }
    return XidSeverity::kWarning;
  }
  if (IsApplicationXid(code)) return XidSeverity::kInfo;
  if (std::find(kDcgmFatal.begin(), kDcgmFatal.end(), code) != kDcgmFatal.end())
    return XidSeverity::kCritical;
  // Xid 38, "driver firmware error" (FECS watchdog timeout): the catalog
  // says IGNORE, but a firmware engine of the GPU stopped answering.
  if (code == 38) return XidSeverity::kWarning;
  const XidInfo& info = LookupXid(code);
  if (info.in_catalog && ResolvesWithResetOrWorse(info.immediate)) return XidSeverity::kCritical;
  return XidSeverity::kInfo;
}

}  // namespace gpudoctor
