// gpudoctor's findings in the terms of dcgm-exporter's
// DCGM_EXP_GPU_HEALTH_STATUS: the DCGM health watch (health_watch label) a
// finding falls under, the DCGM failure code (health_error_code) closest to
// it, and DCGM's result values (0 pass, 10 warn, 20 fail).
#pragma once

#include <optional>
#include <span>
#include <string_view>


namespace gpudoctor {

// The watches dcgm-exporter serves a series for, in its order.
std::span<const std::string_view> DcgmHealthWatches();

struct DcgmHealthIncident {
  std::string_view watch;       // "THERMAL"
  std::string_view error_code;  // "DCGM_FR_CLOCK_THROTTLE_THERMAL"
};

// The incident a finding (its rule id, "thermal.slowdown") stands for;
// nullopt for findings DCGM's health checks have no watch for (application
// Xids, configuration, utilisation, host-wide).
std::optional<DcgmHealthIncident> DcgmHealthIncidentOf(std::string_view finding_id);

// DCGM_HEALTH_RESULT_*.
inline constexpr int kDcgmHealthPass = 0;
inline constexpr int kDcgmHealthWarn = 10;
inline constexpr int kDcgmHealthFail = 20;

// The watch's position in DcgmHealthWatches(); -1 for a name not there.
int DcgmHealthWatchIndex(std::string_view watch);

inline constexpr std::string_view kDcgmHealthOk = "DCGM_FR_OK";

}  // namespace gpudoctor
