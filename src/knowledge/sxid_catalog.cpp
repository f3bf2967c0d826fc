#include "knowledge/sxid_catalog.h"

#include <algorithm>
#include <iterator>

namespace gpudoctor {
namespace {
namespace sxid_catalog_data {

constexpr std::string_view kAlwaysFatalWhy =
    "NVIDIA Fabric Manager guide: always fatal to the whole fabric (restart the host)";
constexpr std::string_view kFatalWhy =
    "NVIDIA Fabric Manager guide: fatal, NVLink traffic through the port stops";
constexpr std::string_view kSoeWhy =
    "NVSwitch driver: the switch's SOE engine failed; the switch is unmanaged until reset";
constexpr std::string_view kCorrectedWhy =
    "NVIDIA Fabric Manager guide: non-fatal, corrected by the switch (no impact)";
constexpr std::string_view kStallWhy =
    "NVIDIA Fabric Manager guide: printed non-fatal, but NVLink traffic stalls and GPU access "
    "hangs (jobs abort with Xid 45); gpudoctor follows the impact";
constexpr std::string_view kResetAllWhy =
    "NVIDIA Fabric Manager guide: non-fatal, but comes with a fatal error and needs a reset of "
    "all GPUs and NVSwitches";
constexpr std::string_view kIgnoreWhy =
    "NVIDIA Fabric Manager guide: non-fatal, can be safely ignored";
constexpr std::string_view kNonFatalWhy =
    "NVIDIA Fabric Manager guide: non-fatal, traffic continues (may cost NVLink throughput)";
constexpr std::string_view kNeverExpectedWhy =
    "NVIDIA Fabric Manager guide: never expected; fatal to the fabric when it occurs";
constexpr std::string_view kThermalEndWhy =
    "NVIDIA Fabric Manager guide: the end of a thermal event";
constexpr std::string_view kThermalWhy =
    "NVIDIA Fabric Manager guide: thermal event, links may drop to single-lane mode";
constexpr std::string_view kNotableWhy =
    "NVIDIA Fabric Manager guide: not fatal, but may be followed by fatal errors";

constexpr std::string_view kLineFatalWhy = "not in NVIDIA's tables; the driver's line says Fatal";
constexpr std::string_view kLineNonFatalWhy =
    "not in NVIDIA's tables; the driver's line says Non-fatal";
constexpr std::string_view kLineSilentWhy =
    "not in NVIDIA's tables and the line states no severity";

constexpr SxidInfo kSxids[] = {
    {10001, "Host_priv_error", SxidClass::kNotable, XidSeverity::kWarning, kNotableWhy},
    {10002, "Host_priv_timeout", SxidClass::kNotable, XidSeverity::kWarning, kNotableWhy},
    {10003, "Host_unhandled_interrupt", SxidClass::kNotable, XidSeverity::kCritical,
     kNeverExpectedWhy},
    {10004, "Host_thermal_event_start", SxidClass::kNotable, XidSeverity::kWarning, kThermalWhy},
    {10005, "Host_thermal_event_end", SxidClass::kNotable, XidSeverity::kInfo, kThermalEndWhy},
    {11001, "ingress invalid command", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11004, "Ingress invalid ACL", SxidClass::kNonFatal, XidSeverity::kCritical, kStallWhy},
    {11009, "ingress invalid VCSet", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11012, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {11013, "ingress header DBE", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11018, "ingress RID DBE", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11019, "ingress RLAN DBE", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11020, "ingress control parity", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {11021, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {11022, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {11023, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {12001, "egress crossbar overflow", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12002, "egress packet route", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12020, "egress sequence ID error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {12021, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {12022, "egress input ECC DBE error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12023, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {12024, "egress output ECC DBE error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12025, "egress credit overflow", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12026, "egress destination request ID error", SxidClass::kFatal, XidSeverity::kCritical,
     kFatalWhy},
    {12027, "egress destination response ID error", SxidClass::kFatal, XidSeverity::kCritical,
     kFatalWhy},
    {12028, "egress non-posted PRIV error", SxidClass::kNonFatal, XidSeverity::kCritical,
     kStallWhy},
    {12030, "egress control parity error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12031, "egress credit parity error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {12032, "egress flit type mismatch", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {14017, "TS ATO timeout", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15001, "route buffer over/underflow", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15006, "route transdone over/underflow", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15008, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {15009, "route GLT DBE", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15010, "route parity", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15011, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {15012, "route incoming DBE", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {15013, "route credit parity", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19047, "NCISOC HDR ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19048, "NCISOC DAT ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19049, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19054, "HDR RAM ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19055, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19056, "DAT0 RAM ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19057, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19058, "DAT1 RAM ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19059, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19060, "CREQ RAM HDR ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19061, "CREQ RAM DAT ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19062, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19063, "Response RAM HDR ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19064, "Response RAM DAT ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19065, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19066, "COM RAM HDR ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19067, "COM RAM DAT ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19068, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19069, "RSP1 RAM HDR ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19070, "RSP1 RAM DAT ECC DBE Error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {19071, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {19084, "AN1 Heartbeat Timeout Error", SxidClass::kNonFatal, XidSeverity::kCritical,
     kResetAllWhy},
    {20001, "TX Replay Error", SxidClass::kNonFatal, XidSeverity::kWarning, kNonFatalWhy},
    {20009, "RX Short Error Rate", SxidClass::kNonFatal, XidSeverity::kWarning, kNonFatalWhy},
    {20012, "Broken/inconsistent connection", SxidClass::kNonFatal, XidSeverity::kWarning,
     kNonFatalWhy},
    {20034, "LTSSM Fault Up", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {22003, "Minion Halt", SxidClass::kAlwaysFatal, XidSeverity::kCritical, kAlwaysFatalWhy},
    {22011, "Minion exterror", SxidClass::kAlwaysFatal, XidSeverity::kCritical, kAlwaysFatalWhy},
    {22012, "Minion Link NA interrupt", SxidClass::kNotable, XidSeverity::kWarning, kNotableWhy},
    {22013, "Minion Link DLREQ interrupt", SxidClass::kNonFatal, XidSeverity::kInfo, kIgnoreWhy},
    {23001, "ingress SRC-VC buffer overflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23002, "ingress SRC-VC buffer underflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23003, "egress DST-VC credit overflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23004, "egress DST-VC credit underflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23005, "ingress packet burst error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23006, "ingress packet sticky error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23007, "possible bubbles at ingress", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23008, "ingress packet invalid dst error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23009, "ingress packet parity error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23010, "ingress SRC-VC buffer overflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23011, "ingress SRC-VC buffer underflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23012, "egress DST-VC credit overflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23013, "egress DST-VC credit underflow", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23014, "ingress packet burst error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23015, "ingress packet sticky error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23016, "possible bubbles at ingress", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {23017, "ingress credit parity error", SxidClass::kAlwaysFatal, XidSeverity::kCritical,
     kAlwaysFatalWhy},
    {24001, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {24002, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {24003, "Single bit ECC errors", SxidClass::kNonFatal, XidSeverity::kInfo, kCorrectedWhy},
    {24004, "sourcetrack TCEN0 crumbstore DBE", SxidClass::kFatal, XidSeverity::kCritical,
     kFatalWhy},
    {24005, "sourcetrack TCEN0 TD crumbstore DBE", SxidClass::kFatal, XidSeverity::kCritical,
     kFatalWhy},
    {24006, "sourcetrack TCEN1 crumbstore DBE", SxidClass::kFatal, XidSeverity::kCritical,
     kFatalWhy},
    {24007, "sourcetrack timeout error", SxidClass::kFatal, XidSeverity::kCritical, kFatalWhy},
    {26001, "SOE reset", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26002, "SOE bootstrap", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26003, "SOE command queue", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26004, "SOE timeout", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26005, "SOE shutdown", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26006, "SOE halt", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26007, "SOE external error", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
    {26008, "SOE watchdog", SxidClass::kSoe, XidSeverity::kCritical, kSoeWhy},
};

}  // namespace sxid_catalog_data
}  // namespace

std::optional<SxidInfo> FindSxid(int code) {
  using sxid_catalog_data::kSxids;
  auto it = std::lower_bound(std::begin(kSxids), std::end(kSxids), code,
                             [](const SxidInfo& s, int c) { return s.code < c; });
  if (it == std::end(kSxids) || it->code != code) return std::nullopt;
  return *it;
}

SxidInfo SxidLevel(int code, SxidLineSays says) {
  if (auto known = FindSxid(code)) return *known;
  SxidInfo info;
  info.code = code;
  switch (says) {
    case SxidLineSays::kFatal:
      info.severity = XidSeverity::kCritical;
      info.why = sxid_catalog_data::kLineFatalWhy;
      break;
    case SxidLineSays::kNonFatal:
      info.severity = XidSeverity::kWarning;
      info.why = sxid_catalog_data::kLineNonFatalWhy;
      break;
    case SxidLineSays::kNothing:
      info.severity = XidSeverity::kWarning;
      info.why = sxid_catalog_data::kLineSilentWhy;
      break;
  }
  return info;
}

std::span<const SxidInfo> AllSxids() { return sxid_catalog_data::kSxids; }

std::string_view SxidClassName(SxidClass c) {
  switch (c) {
    case SxidClass::kNonFatal:
      return "non-fatal";
    case SxidClass::kFatal:
      return "fatal";
    case SxidClass::kAlwaysFatal:
      return "always fatal";
    case SxidClass::kNotable:
      return "notable";
    case SxidClass::kSoe:
      return "SOE";
    case SxidClass::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace gpudoctor
