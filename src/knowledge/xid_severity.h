// The one severity policy for Xid occurrences, from the catalog's data
// (xid_catalog.h). Every xid.* rule raises its finding to at least this:
//   - Xid 154 follows its recovery action: "None" -> info; "GPU Reset
//     Required", "Node Reboot Required", "OS Reboot", "Drain and Reset" ->
//     critical; any other action -> warning.
//   - The application Xids (13, 31, 43, 45) have no floor: their rule keeps
//     info or warning (a fault of the job, not the GPU).
//   - One occurrence of an Xid whose immediate resolution in NVIDIA's catalog
//     is a GPU reset or worse (RESET_GPU, RESTART_VM, RESTART_BM), or that
//     DCGM treats as always fatal (48, 74, 79, 95, 119, 120, 140), is
//     critical.
//   - Xid 38 (driver firmware error, the FECS watchdog): warning, although
//     the catalog says IGNORE -- a firmware engine stopped answering.
//   - Any other Xid: info (the rules judge it by its own evidence).
// Pure; thread-safe.
#pragma once

#include <span>
#include <string_view>

#include "knowledge/xid_catalog.h"

namespace gpudoctor {

// The Xids DCGM's health checks treat as fatal on the first occurrence.
std::span<const int> DcgmFatalXids();
// 13, 31, 43, 45: faults of the application (or cleanup after one).
bool IsApplicationXid(int code);
// RESET_GPU, RESTART_VM or RESTART_BM.
bool ResolvesWithResetOrWorse(XidResolution immediate);

// The least severity one occurrence of Xid `code` gives the verdict;
// `recovery_action` is Xid 154's ("GPU Reset Required"), ignored otherwise.
XidSeverity XidOccurrenceFloor(int code, std::string_view recovery_action = {});

}  // namespace gpudoctor
