#include "store/fabric_cells.h"

#include <cmath>
#include <iterator>
#include <string>

namespace gpudoctor {
namespace fabric_cells_detail {

constexpr std::string_view kMembers[] = {"state",
                                         "status_code",
                                         "status",
                                         "clique_id",
                                         "cluster_uuid",
                                         "health_mask",
                                         "degraded_bandwidth",
                                         "route_recovery",
                                         "route_unhealthy",
                                         "access_timeout_recovery",
                                         "health_summary"};
constexpr unsigned kFirstCondition = 6;
constexpr unsigned kHealthSummary = 10;
constexpr std::optional<bool> GpuFabric::*kConditions[] = {
    &GpuFabric::degraded_bandwidth, &GpuFabric::route_recovery, &GpuFabric::route_unhealthy,
    &GpuFabric::access_timeout_recovery};

std::string Name(unsigned member) { return "fabric." + std::string(kMembers[member]); }

std::optional<std::int64_t> IntOf(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) return std::llround(*d);
  return std::nullopt;
}

}  // namespace fabric_cells_detail

void FabricToCells(const GpuFabric& f, std::vector<NamedCell>& cells) {
  using namespace fabric_cells_detail;
  cells.push_back({Name(0), Cell(static_cast<std::int64_t>(f.state))});
  if (f.status_code) cells.push_back({Name(1), Cell(*f.status_code)});
  if (!f.status.empty()) cells.push_back({Name(2), Cell(f.status)});
  if (f.clique_id) cells.push_back({Name(3), Cell(static_cast<std::int64_t>(*f.clique_id))});
  if (!f.cluster_uuid.empty()) cells.push_back({Name(4), Cell(f.cluster_uuid)});
  if (f.health_mask) cells.push_back({Name(5), Cell(static_cast<std::int64_t>(*f.health_mask))});
  for (unsigned i = 0; i < std::size(kConditions); ++i) {
    if (const auto& v = f.*kConditions[i]) {
      cells.push_back({Name(kFirstCondition + i), Cell(std::int64_t{*v ? 1 : 0})});
    }
  }
  if (f.health_summary) {
    cells.push_back({Name(kHealthSummary), Cell(static_cast<std::int64_t>(*f.health_summary))});
  }
}

std::optional<unsigned> FabricMemberOf(std::string_view member) {
  using namespace fabric_cells_detail;
  for (unsigned i = 0; i < std::size(kMembers); ++i) {
    if (kMembers[i] == member) return i;
  }
  return std::nullopt;
}

void ApplyFabricCell(GpuStatus& gpu, unsigned member, const Cell& value) {
  using namespace fabric_cells_detail;
  const auto number = IntOf(value);
  const auto* text = std::get_if<std::string>(&value);
  if (member == 2 || member == 4 ? text == nullptr : !number) return;
  GpuFabric& f = gpu.fabric ? *gpu.fabric : gpu.fabric.emplace();
  switch (member) {
    case 0:
      if (*number >= 0 && *number <= static_cast<std::int64_t>(FabricState::kCompleted)) {
        f.state = static_cast<FabricState>(*number);
      }
      return;
    case 1:
      f.status_code = *number;
      return;
    case 2:
      f.status = *text;
      return;
    case 3:
      f.clique_id = static_cast<std::uint32_t>(*number);
      return;
    case 4:
      f.cluster_uuid = *text;
      return;
    case 5:
      f.health_mask = static_cast<std::uint32_t>(*number);
      return;
    case kHealthSummary:
      if (*number >= 0 && *number <= static_cast<std::int64_t>(FabricHealthSummary::kLimitedCapacity)) {
        f.health_summary = static_cast<FabricHealthSummary>(*number);
      }
      return;
    default:
      if (member - kFirstCondition < std::size(kConditions)) {
        f.*kConditions[member - kFirstCondition] = *number != 0;
      }
      return;
  }
}

}  // namespace gpudoctor
