// NVSwitch SXid codes as data: for each code the name NVIDIA gives it, the
// class NVIDIA's Fabric Manager user guide puts it in (its appendix "NVSwitch
// SXid errors": non-fatal, fatal, always fatal, other notable) and the level
// gpudoctor gives one occurrence, with the reason.
//
// Sources:
//   - NVIDIA Fabric Manager user guide, DU-09883-001 v1.3 (October 2023),
//     sections D.4 "Non-Fatal NVSwitch SXid Errors", D.5 "Fatal NVSwitch SXid
//     Errors", D.6 "Always Fatal NVSwitch SXid Errors", D.7 "Other Notable
//     NVSwitch SXid Errors" (codes, names, impact and recovery; also tabulated
//     in leptonai/gpud components/accelerator/nvidia/sxid/sxid.go).
//   - The SOE errors 26001-26008 (26006 = NVSWITCH_ERR_HW_SOE_HALT) are not
//     in the guide; their names come from the NVSwitch driver's error list,
//     NVIDIA/open-gpu-kernel-modules src/common/nvswitch/interface/
//     ctrl_dev_nvswitch.h. A halted SOE (the switch's management engine)
//     leaves the switch unmanaged: treated as fatal.
//
// Severity (XidSeverity, shared with the Xid catalog):
//   - always fatal, fatal, SOE -> critical;
//   - non-fatal -> warning, except where the guide's own impact text says
//     more: 11004 and 12028 ("NVLink traffic will be stalled, and subsequent
//     GPU access will hang"; the driver prints 12028 as "Non-fatal") are
//     critical -- gpudoctor follows the impact, not the word; single-bit ECC
//     errors the switch corrects and 22013 ("can be safely ignored") -> info;
//   - a code the guide does not list: what its line says ("Fatal" ->
//     critical, "Non-fatal" -> warning); a line that states nothing (a bare
//     SXid line, a "Data {...}" or "Severity N ..." line) -> warning, and the
//     finding says the severity is not stated rather than "non-fatal".
// Pure; thread-safe (constant tables).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "knowledge/xid_catalog.h"

namespace gpudoctor {

enum class SxidClass {
  kNonFatal,     // guide D.4
  kFatal,        // guide D.5: fatal to the port's traffic
  kAlwaysFatal,  // guide D.6: fatal to the whole fabric
  kNotable,      // guide D.7: other notable errors
  kSoe,          // the switch's SOE engine (driver source)
  kUnknown,      // not in any table
};

struct SxidInfo {
  int code = 0;
  std::string_view name;  // "LTSSM Fault Up"; empty when unknown
  SxidClass sxid_class = SxidClass::kUnknown;
  XidSeverity severity = XidSeverity::kWarning;
  std::string_view why;  // one line: where the level comes from
};

// What the driver's line says of the error: ", Fatal," / ", Non-fatal," or
// nothing (a continuation or bare line).
enum class SxidLineSays { kNothing, kFatal, kNonFatal };

// The documented entry for `code`, or nullopt.
std::optional<SxidInfo> FindSxid(int code);

// The level of one occurrence of SXid `code` whose line says `says`: the
// catalog's when the code is listed, else the line's word (see above).
SxidInfo SxidLevel(int code, SxidLineSays says);

// Every documented code, ascending.
std::span<const SxidInfo> AllSxids();

std::string_view SxidClassName(SxidClass c);  // "non-fatal", "fatal", "always fatal", ...

}  // namespace gpudoctor
