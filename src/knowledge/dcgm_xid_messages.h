// The text dcgm-exporter puts in the err_msg label of DCGM_FI_DEV_XID_ERRORS
// for each Xid code, so that alert rules and dashboards that match on it
// read the agent's series unchanged. These are dcgm-exporter's own short
// texts (after NVIDIA's "XID errors v580" list), not our catalog's meanings
// (knowledge/xid_catalog.h), which are longer or newer for some codes.
#pragma once

#include <string_view>

namespace gpudoctor {

// dcgm-exporter's err_msg for `code`: "No Error" for 0 (every release since
// 3.3.6; an unreleased build before it said "Unknown Error"), the listed
// text for 1 to 172, "Unknown Error" for any other code.
std::string_view DcgmXidErrorMessage(int code);

// The highest code dcgm-exporter has a text for.
inline constexpr int kDcgmXidMessageMaxCode = 172;

}  // namespace gpudoctor
