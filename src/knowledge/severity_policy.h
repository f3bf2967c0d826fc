// The severity policy for Xid and SXid codes, written once: the level one
// occurrence of a code gets, why, and the user's per-code overrides from the
// config file ([severity] xid.94 = "warning", sxid.12028 = "critical").
//   - Xid: the floor of xid_severity.h (NVIDIA catalog resolution, DCGM's
//     always-fatal list, Xid 154's recovery action) raised to the catalog's
//     own severity; the application Xids (13, 31, 43, 45) are judged by
//     their rule (info or warning).
//   - SXid: sxid_catalog.h (NVIDIA's Fabric Manager guide).
//   - An override replaces gpudoctor's level for that code in every command:
//     a finding whose codes all have an override takes the highest of them
//     (ApplySeverityOverrides in the rules engine).
// `gpudoctor rules --severity` prints this table. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/config.h"
#include "knowledge/sxid_catalog.h"
#include "knowledge/xid_catalog.h"

namespace gpudoctor {

struct CodeLevel {
  XidSeverity severity = XidSeverity::kWarning;
  std::string why;          // one line: where the level comes from
  bool overridden = false;  // the config file set it
};

// gpudoctor's level for one occurrence of Xid `code` (`recovery_action`:
// Xid 154's, ignored otherwise), then the user's override.
CodeLevel XidLevel(int code, const SeverityOverrides& overrides,
                   std::string_view recovery_action = {});

// The same for SXid `code` whose line says `says`.
CodeLevel SxidLevelOf(int code, SxidLineSays says, const SeverityOverrides& overrides);

// The user's level for a code, when the config file sets one.
std::optional<XidSeverity> XidOverride(int code, const SeverityOverrides& overrides);
std::optional<XidSeverity> SxidOverride(int code, const SeverityOverrides& overrides);

// info / warning / critical of a config Level (kNone and kNormal -> info).
XidSeverity XidSeverityOfLevel(Level level);

}  // namespace gpudoctor
