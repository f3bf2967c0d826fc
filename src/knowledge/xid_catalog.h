// NVIDIA's Xid catalog as data: for each code its mnemonic, meaning,
// category, severity, NVIDIA's immediate resolution bucket and investigatory
// action, and the action we recommend, in English and Chinese.
//
// Sources: facts/nvml-facts.md section 2 (the Ampere+ catalog, the codes it
// lists as unused with the older table's meanings, and the codes found only
// in the driver source). Severity is derived from the immediate bucket:
// a node reboot or GPU reset -> critical, restart the app (or act on another
// Xid) -> warning, ignore -> info.
//
// Thread-safe: the table is built once on first use; the returned references
// stay valid for the life of the process.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

enum class XidCategory {
  kApplication,
  kDriver,
  kMemory,
  kPcieBus,
  kThermal,
  kPower,
  kNvlink,
  kGsp,
  kHardware,
  kOther,
};

enum class XidSeverity { kInfo, kWarning, kCritical };

// NVIDIA's "Resolution Bucket (Immediate Action)".
enum class XidResolution {
  kRestartApp,
  kResetGpu,
  kRestartBm,
  kRestartVm,
  kContactSupport,
  kIgnore,
  kCheckMechanicals,
  kCheckUvm,
  kUpdateSwFw,
  kXid154,
  kWorkflowXid45,
  kWorkflowXid48,
  kWorkflowNvlinkErr,
  kWorkflowNvlink5Err,
  kNoneListed,  // the catalog gives no bucket (codes 162-172)
};

struct XidInfo {
  int code = 0;
  std::string mnemonic;  // "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"
  std::string meaning;   // "GPU has fallen off the bus"
  XidCategory category = XidCategory::kOther;
  XidSeverity severity = XidSeverity::kWarning;
  XidResolution immediate = XidResolution::kContactSupport;
  std::string investigatory;  // "CONTACT_SUPPORT", "WORKFLOW_XID_31", ...
  std::string action_en;      // what to do, one or two sentences
  std::string action_zh;
  bool in_catalog = true;  // false for unknown codes and source-only codes
  bool unused = false;     // the Ampere+ catalog lists it as unused
};

// The entry for `code`; for a code nobody documents, a safe default
// ("unknown Xid N", warning, CONTACT_SUPPORT). Never fails.
const XidInfo& LookupXid(int code);

// Every documented code, ascending.
const std::vector<XidInfo>& AllXids();

std::string_view XidResolutionName(XidResolution r);  // "RESTART_APP"
std::string_view XidCategoryName(XidCategory c);      // "pcie_bus"
std::string_view XidSeverityName(XidSeverity s);      // "critical"

// SXid (NVSwitch) codes carry their fatality in the line itself
// ("SXid (PCI:...): 20034, Fatal, ..."), so there is no per-code table.
struct SxidNote {
  XidSeverity severity;
  std::string_view action_en;
  std::string_view action_zh;
};
const SxidNote& SxidNoteFor(bool fatal);

}  // namespace gpudoctor
