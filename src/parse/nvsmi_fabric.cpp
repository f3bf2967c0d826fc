#include "parse/nvsmi_fabric.h"

#include <cctype>
#include <string>

namespace gpudoctor {
namespace nvsmi_fabric_detail {

std::string Lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  std::size_t start = out.find_first_not_of(' ');
  return start == std::string::npos ? std::string() : out.substr(start);
}

// "True"/"Yes" (and "Degraded" for bandwidth) hold; "False"/"No"/"Full" do
// not; anything else is unknown.
std::optional<bool> Holds(const std::string& v) {
  if (v == "true" || v == "yes" || v == "degraded") return true;
  if (v == "false" || v == "no" || v == "full" || v == "not degraded") return false;
  return std::nullopt;
}

bool Unsigned(const std::string& v, std::uint32_t& out) {
  if (v.empty() || v.size() > 10) return false;
  std::uint64_t n = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<unsigned>(c - '0');
  }
  if (n > 0xFFFFFFFFu) return false;
  out = static_cast<std::uint32_t>(n);
  return true;
}

}  // namespace nvsmi_fabric_detail

bool ApplyFabricValue(std::string_view key, std::string_view value,
                      std::optional<GpuFabric>& fabric) {
  using namespace nvsmi_fabric_detail;
  const std::string k = Lower(key);
  static constexpr std::string_view kKeys[] = {"state",           "status",
                                               "cliqueid",        "clusteruuid",
                                               "bandwidth",       "route recovery in progress",
                                               "route unhealthy", "access timeout recovery",
                                               "summary"};
  bool known = false;
  for (std::string_view candidate : kKeys) known = known || k == candidate;
  if (!known) return false;
  const std::string v = Lower(value);
  if (v.empty() || v == "n/a" || v == "not supported") return true;
  if (!fabric) fabric.emplace();
  GpuFabric& f = *fabric;
  if (k == "state") {
    if (v == "not started") f.state = FabricState::kNotStarted;
    else if (v == "in progress") f.state = FabricState::kInProgress;
    else if (v == "completed") f.state = FabricState::kCompleted;
  } else if (k == "status") {
    f.status = std::string(value.substr(0, 200));
    while (!f.status.empty() && f.status.back() == ' ') f.status.pop_back();
    if (v == "success") f.status_code = 0;
  } else if (k == "cliqueid") {
    std::uint32_t id = 0;
    if (Unsigned(v, id)) f.clique_id = id;
  } else if (k == "clusteruuid") {
    if (v.size() <= 64) f.cluster_uuid = v;
  } else if (k == "bandwidth") {
    f.degraded_bandwidth = Holds(v);
  } else if (k == "route recovery in progress") {
    f.route_recovery = Holds(v);
  } else if (k == "route unhealthy") {
    f.route_unhealthy = Holds(v);
  } else if (k == "summary") {  // Health > Summary (R580 on)
    if (v == "healthy") f.health_summary = FabricHealthSummary::kHealthy;
    else if (v == "unhealthy") f.health_summary = FabricHealthSummary::kUnhealthy;
    else if (v == "limited capacity") f.health_summary = FabricHealthSummary::kLimitedCapacity;
  } else {
    f.access_timeout_recovery = Holds(v);
  }
  return true;
}

void FinishFabric(std::optional<GpuFabric>& fabric) {
  if (fabric && fabric->state == FabricState::kNotSupported) fabric.reset();
}

}  // namespace gpudoctor
