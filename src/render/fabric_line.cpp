#include "render/fabric_line.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "knowledge/ib_counters.h"

namespace gpudoctor {

namespace {

const RdmaPort* FindEarlierPort(const RdmaFacts& facts, const std::string& device, unsigned port) {
  for (const RdmaDevice& d : facts.devices) {
    if (d.name != device) continue;
    for (const RdmaPort& p : d.ports) {
      if (p.port == port) return &p;
    }
  }
  return nullptr;
}

std::string Gbps(double v) { return fmt::format("{:g}", v); }

}  // namespace

FabricSummary SummarizeFabric(const RdmaFacts& latest, const RdmaFacts* earlier,
                              std::optional<unsigned> ib_expected) {
  FabricSummary s;
  s.ib_expected = ib_expected;
  double span_s = 0;
  if (earlier && earlier->read_at && latest.read_at && *latest.read_at > *earlier->read_at) {
    span_s = std::chrono::duration<double>(*latest.read_at - *earlier->read_at).count();
  }
  for (const RdmaDevice& d : latest.devices) {
    for (const RdmaPort& p : d.ports) {
      if (p.link_layer == "InfiniBand") {
        ++s.ib_present;
        if (p.active) {
          ++s.ib_active;
          if (p.rate_gbps) {
            s.rate_min_gbps = std::min(s.rate_min_gbps.value_or(*p.rate_gbps), *p.rate_gbps);
            s.rate_max_gbps = std::max(s.rate_max_gbps.value_or(*p.rate_gbps), *p.rate_gbps);
          }
        }
      } else if (p.roce) {
        ++s.roce_present;
        s.roce_active += p.active ? 1 : 0;
      }
      const RdmaPort* before = earlier ? FindEarlierPort(*earlier, d.name, p.port) : nullptr;
      for (const RdmaCounter& c : p.counters) {
        if (FindIbCounter(c.name).kind == IbCounterClass::kOther) continue;
        if (IbCounterSaturated(c.name, c.value)) ++s.saturated;
        auto old = before ? before->Counter(c.name) : std::nullopt;
        if (!old || c.value <= *old || c.value - *old <= s.worst_rise) continue;
        s.worst_rise = c.value - *old;
        s.worst_port = RdmaPortLabel(d, p);
        s.worst_counter = c.name;
        s.worst_per_hour =
            span_s > 0 ? std::optional<double>(static_cast<double>(s.worst_rise) * 3600 / span_s)
                       : std::nullopt;
      }
    }
  }
  if (s.ib_present == 0) s.ib_expected.reset();  // a node without its compute fabric
  return s;
}

std::optional<unsigned> PlatformIbPorts(const SystemStatus& status) {
  if (status.gpus.empty()) return std::nullopt;
  auto p = DefaultIbPorts(status.gpus.front().name, status.gpus.size());
  return p ? std::optional<unsigned>(p->ports) : std::nullopt;
}

void AddNvlinkFabric(const SystemStatus& status, FabricSummary& s) {
  std::set<std::pair<unsigned, unsigned>> down;
  for (const GpuStatus& g : status.gpus) {
    for (const NvLinkPeer& p : g.nvlink_peers) {
      if (p.status != 0) down.insert(std::minmax(g.index, p.peer_index));
    }
    if (!g.fabric || g.fabric->state == FabricState::kNotSupported) continue;
    ++s.nvlink_gpus;
    const GpuFabric& f = *g.fabric;
    const bool failed = f.state == FabricState::kCompleted && f.status_code != 0 && !f.status.empty();
    if (f.state == FabricState::kCompleted && !failed) {
      ++s.nvlink_registered;
    } else if (s.nvlink_worst.empty() || failed) {
      s.nvlink_worst = failed ? "completed: " + f.status : FabricStateName(f.state);
    }
    if (f.degraded_bandwidth == true || f.route_recovery == true || f.route_unhealthy == true ||
        f.access_timeout_recovery == true) {
      ++s.nvlink_unhealthy;
    }
  }
  if (s.nvlink_gpus > 0) s.nvlink_pairs_down = static_cast<unsigned>(down.size());
}

namespace {

std::string NvlinkPart(const FabricSummary& s) {
  std::string part = fmt::format("NVLink {}/{} GPUs registered", s.nvlink_registered, s.nvlink_gpus);
  if (!s.nvlink_worst.empty()) part += fmt::format(" (other: {})", s.nvlink_worst);
  if (s.nvlink_unhealthy > 0) part += fmt::format(", {} GPU(s) unhealthy", s.nvlink_unhealthy);
  if (s.nvlink_pairs_down > 0) part += fmt::format(", {} pair(s) without NVLink P2P", s.nvlink_pairs_down);
  return part;
}

}  // namespace

std::string FabricLine(const FabricSummary& s) {
  if (s.ib_present == 0 && s.roce_present == 0) {
    return s.nvlink_gpus > 0 ? "fabric: " + NvlinkPart(s) : "";
  }
  std::string line = "fabric:";
  if (s.ib_present > 0 || s.ib_expected) {
    line += fmt::format(" InfiniBand {}/{} ports ACTIVE", s.ib_active, s.ib_present);
    if (s.ib_expected) line += fmt::format(" (expected {})", *s.ib_expected);
    if (s.rate_min_gbps && s.rate_max_gbps) {
      line += *s.rate_min_gbps == *s.rate_max_gbps
                  ? fmt::format(", {} Gb/s", Gbps(*s.rate_max_gbps))
                  : fmt::format(", {}-{} Gb/s", Gbps(*s.rate_min_gbps), Gbps(*s.rate_max_gbps));
    }
  }
  if (s.roce_present > 0) {
    line += fmt::format("{} RoCE {}/{} ACTIVE", s.ib_present > 0 ? ";" : "", s.roce_active,
                        s.roce_present);
  }
  if (s.worst_rise > 0) {
    line += fmt::format("; worst: {} {} +{}", s.worst_port, s.worst_counter, s.worst_rise);
    if (s.worst_per_hour) line += fmt::format(" ({:.0f}/h)", *s.worst_per_hour);
  } else {
    line += "; no error counter rising";
  }
  if (s.saturated > 0) line += fmt::format("; {} counter(s) saturated", s.saturated);
  if (s.nvlink_gpus > 0) line += "; " + NvlinkPart(s);
  return line;
}

nlohmann::ordered_json FabricJson(const FabricSummary& s) {
  nlohmann::ordered_json j;
  j["ib_ports_present"] = s.ib_present;
  j["ib_ports_active"] = s.ib_active;
  j["ib_ports_expected"] = s.ib_expected ? nlohmann::ordered_json(*s.ib_expected) : nullptr;
  j["ib_rate_min_gbps"] = s.rate_min_gbps ? nlohmann::ordered_json(*s.rate_min_gbps) : nullptr;
  j["ib_rate_max_gbps"] = s.rate_max_gbps ? nlohmann::ordered_json(*s.rate_max_gbps) : nullptr;
  j["roce_ports_present"] = s.roce_present;
  j["roce_ports_active"] = s.roce_active;
  if (s.worst_rise > 0) {
    j["worst_counter"] = {
        {"port", s.worst_port},
        {"counter", s.worst_counter},
        {"rise", s.worst_rise},
        {"per_hour", s.worst_per_hour ? nlohmann::ordered_json(*s.worst_per_hour) : nullptr}};
  } else {
    j["worst_counter"] = nullptr;
  }
  j["saturated_counters"] = s.saturated;
  j["nvlink_fabric_gpus"] = s.nvlink_gpus;
  j["nvlink_fabric_registered"] = s.nvlink_registered;
  j["nvlink_fabric_worst"] = s.nvlink_worst.empty() ? nlohmann::ordered_json(nullptr)
                                                    : nlohmann::ordered_json(s.nvlink_worst);
  j["nvlink_fabric_unhealthy_gpus"] = s.nvlink_unhealthy;
  j["nvlink_pairs_without_p2p"] = s.nvlink_pairs_down;
  return j;
}

}  // namespace gpudoctor
