#include "knowledge/severity_policy.h"

#include <fmt/format.h>

#include <algorithm>

#include "knowledge/xid_severity.h"

namespace gpudoctor {
namespace {
namespace severity_policy_detail {

CodeLevel Overridden(XidSeverity level) {
  return CodeLevel{level, "set in the config file ([severity])", true};
}

std::string XidWhy(int code, const XidInfo& info, XidSeverity floor) {
  if (code == 154) {
    return "the recovery action it reports: None -> info; GPU Reset, Node Reboot, Drain and "
           "Reset -> critical; other -> warning";
  }
  if (IsApplicationXid(code))
    return "a fault of the application, not the GPU: info or warning as its rule judges";
  const auto fatal = DcgmFatalXids();
  if (std::find(fatal.begin(), fatal.end(), code) != fatal.end())
    return "DCGM treats it as fatal on the first occurrence";
  if (code == 38)
    return "driver firmware error (FECS watchdog): NVIDIA's catalog says IGNORE, gpudoctor warns "
           "because a firmware engine stopped answering";
  if (!info.in_catalog) return "not in NVIDIA's catalog: a safe default";
  std::string bucket(XidResolutionName(info.immediate));
  if (floor == XidSeverity::kCritical)
    return fmt::format("NVIDIA's catalog: immediate action {} (GPU reset or worse)", bucket);
  return fmt::format("NVIDIA's catalog: immediate action {}", bucket);
}

}  // namespace severity_policy_detail
}  // namespace

XidSeverity XidSeverityOfLevel(Level level) {
  switch (level) {
    case Level::kCritical:
      return XidSeverity::kCritical;
    case Level::kWarning:
      return XidSeverity::kWarning;
    default:
      return XidSeverity::kInfo;
  }
}

std::optional<XidSeverity> XidOverride(int code, const SeverityOverrides& overrides) {
  auto it = overrides.xid.find(code);
  if (it == overrides.xid.end()) return std::nullopt;
  return XidSeverityOfLevel(it->second);
}

std::optional<XidSeverity> SxidOverride(int code, const SeverityOverrides& overrides) {
  auto it = overrides.sxid.find(code);
  if (it == overrides.sxid.end()) return std::nullopt;
  return XidSeverityOfLevel(it->second);
}

CodeLevel XidLevel(int code, const SeverityOverrides& overrides, std::string_view recovery_action) {
  if (auto level = XidOverride(code, overrides)) return severity_policy_detail::Overridden(*level);
  const XidInfo& info = LookupXid(code);
  XidSeverity floor = XidOccurrenceFloor(code, recovery_action);
  XidSeverity level = floor;
  if (code != 154 && !IsApplicationXid(code)) level = std::max(floor, info.severity);
  if (IsApplicationXid(code)) level = std::min(info.severity, XidSeverity::kWarning);
  return CodeLevel{level, severity_policy_detail::XidWhy(code, info, floor), false};
}

CodeLevel SxidLevelOf(int code, SxidLineSays says, const SeverityOverrides& overrides) {
  if (auto level = SxidOverride(code, overrides)) return severity_policy_detail::Overridden(*level);
  SxidInfo info = SxidLevel(code, says);
  return CodeLevel{info.severity, std::string(info.why), false};
}

}  // namespace gpudoctor
