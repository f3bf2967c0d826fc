#include "rules/engine/rdma_ports.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "knowledge/ib_counters.h"

namespace gpudoctor {

namespace {

const RdmaPort* FindPort(const RdmaFacts& facts, const std::string& device, unsigned port) {
  for (const RdmaDevice& d : facts.devices) {
    if (d.name != device) continue;
    for (const RdmaPort& p : d.ports) {
      if (p.port == port) return &p;
    }
  }
  return nullptr;
}

}  // namespace

std::vector<RdmaPortHistory> RdmaPortHistories(const DiagnosisInput& input) {
  std::vector<RdmaPortHistory> out;
  if (!input.network) return out;
  const RdmaFacts& latest = input.network->rdma;
  for (const RdmaDevice& d : latest.devices) {
    for (const RdmaPort& p : d.ports) {
      RdmaPortHistory h{&d, &p, {}};
      for (const RdmaFacts& earlier : input.rdma_history) {
        if (const RdmaPort* e = FindPort(earlier, d.name, p.port)) {
          h.readings.push_back(RdmaPortReading{earlier.read_at, e});
        }
      }
      h.readings.push_back(RdmaPortReading{latest.read_at, &p});
      out.push_back(std::move(h));
    }
  }
  return out;
}

std::optional<double> RdmaCounterGrowth::PerHour() const {
  if (span_s <= 0) return std::nullopt;
  return static_cast<double>(increase) * 3600.0 / span_s;
}

std::optional<RdmaCounterGrowth> GrowthOfCounter(const RdmaPortHistory& h, std::string_view name) {
  auto latest = h.port->Counter(name);
  if (!latest) return std::nullopt;
  RdmaCounterGrowth g;
  g.last = *latest;
  g.saturated = IbCounterSaturated(name, *latest);
  std::optional<std::uint64_t> previous;
  std::optional<WallTime> first_at;
  std::optional<WallTime> last_at;
  for (const RdmaPortReading& r : h.readings) {
    auto value = r.port->Counter(name);
    if (!value) continue;
    if (!previous) {
      g.first = *value;
    } else {
      ++g.steps;
      if (*value < *previous) {
        ++g.resets;
      } else if (*value > *previous) {
        g.increase += *value - *previous;
        ++g.rising_steps;
      }
    }
    previous = value;
    if (r.at) {
      if (!first_at) first_at = r.at;
      last_at = r.at;
    }
  }
  if (first_at && last_at && *last_at > *first_at) {
    g.span_s = std::chrono::duration<double>(*last_at - *first_at).count();
  }
  return g;
}

std::string RdmaPortDescription(const RdmaPortHistory& h) {
  std::string out = RdmaPortLabel(*h.device, *h.port);
  std::string detail = h.port->link_layer.empty() ? "?" : h.port->link_layer;
  if (!h.port->rate_text.empty()) detail += ", " + h.port->rate_text;
  if (!h.device->pci_bus_id.empty()) detail += ", PCI " + h.device->pci_bus_id;
  if (!h.device->nearest_gpus.empty()) {
    detail += "; next to GPU " + fmt::format("{}", fmt::join(h.device->nearest_gpus, ", "));
  }
  return out + " (" + detail + ")";
}

namespace {
constexpr double kSymbolRateMinSpanS = 600;  // a rate over less is extrapolated too far
}  // namespace

std::optional<Severity> JudgeRdmaCounter(const RdmaCounterGrowth& g, std::string_view name,
                                         const IbConfig& ib) {
  if (g.increase == 0) return std::nullopt;
  IbCounterClass kind = FindIbCounter(name).kind;
  if (kind == IbCounterClass::kOther) return std::nullopt;
  if (kind == IbCounterClass::kFatal) return Severity::kCritical;
  if (name == "symbol_error") {
    auto per_hour = g.PerHour();
    bool over_bound =
        static_cast<double>(g.increase) > ib.symbol_errors_per_hour ||
        (per_hour && g.span_s >= kSymbolRateMinSpanS && *per_hour > ib.symbol_errors_per_hour);
    if (over_bound) return Severity::kCritical;
  }
  bool steady = g.steps < 2 || g.rising_steps >= 2;
  if (static_cast<double>(g.increase) >= ib.error_count && steady) return Severity::kWarning;
  return std::nullopt;
}

RdmaPortOutages OutagesOf(const RdmaPortHistory& h) {
  RdmaPortOutages o;
  bool seen_active = false;
  bool down = false;
  std::optional<WallTime> down_since;
  for (const RdmaPortReading& r : h.readings) {
    if (r.port->active) {
      if (down) ++o.flaps;
      down = false;
      seen_active = true;
      continue;
    }
    if (!seen_active || down) continue;
    down = true;
    down_since = r.at;
    o.last_down = r.at;
  }
  o.down_now = down;
  const auto& latest = h.readings.back().at;
  if (down && down_since && latest && *latest > *down_since) {
    o.down_now_s = std::chrono::duration<double>(*latest - *down_since).count();
  }
  return o;
}

std::vector<std::string> RdmaPortTrouble(const RdmaPortHistory& h, const IbConfig& ib) {
  std::vector<std::string> out;
  const RdmaPort& p = *h.port;
  if (!p.active && p.state)
    out.push_back(fmt::format("not ACTIVE ({}: {})", p.state->code, p.state->name));
  RdmaPortOutages o = OutagesOf(h);
  if (o.flaps > 0) out.push_back(fmt::format("went down and came back {} time(s)", o.flaps));
  for (const RdmaCounter& c : p.counters) {
    auto g = GrowthOfCounter(h, c.name);
    if (g && JudgeRdmaCounter(*g, c.name, ib)) {
      out.push_back(fmt::format("{} rose by {}", c.name, g->increase));
    }
  }
  return out;
}

bool IsComputePort(const RdmaPort& p) { return p.link_layer == "InfiniBand"; }

ExpectedIbPorts ExpectedComputePorts(const DiagnosisInput& input) {
  ExpectedIbPorts e;
  const IbConfig& ib = input.config.ib;
  if (ib.ports || ib.rate_gbps) {
    e.ports = ib.ports;
    e.rate_gbps = ib.rate_gbps;
    e.configured = ib.ports.has_value();
    e.source = "[network] ib_ports / ib_rate_gbps in " + input.config.source;
  }
  if (input.gpus.empty()) return e;
  auto platform = DefaultIbPorts(input.gpus.front().latest().name, input.gpus.size());
  if (!platform) return e;
  if (!e.ports) e.ports = platform->ports;
  if (!e.rate_gbps) e.rate_gbps = platform->rate_gbps;
  std::string def = fmt::format("{} default ({})", platform->platform, platform->source);
  e.source = e.source.empty() ? def : e.source + "; " + def;
  return e;
}

}  // namespace gpudoctor
