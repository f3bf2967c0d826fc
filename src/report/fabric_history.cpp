#include "report/fabric_history.h"

#include <fmt/format.h>

#include <algorithm>

#include "knowledge/ib_counters.h"
#include "rules/engine/rdma_ports.h"

namespace gpudoctor {
namespace fabric_history_detail {

double SecondsBetween(WallTime from, WallTime to) {
  return std::chrono::duration<double>(to - from).count();
}

std::string StateText(const RdmaPort& p) {
  if (!p.state) return "unknown";
  return p.state->name.empty() ? std::to_string(p.state->code)
                               : fmt::format("{}: {}", p.state->code, p.state->name);
}

bool IsErrorCounter(std::string_view name) {
  return FindIbCounter(name).kind != IbCounterClass::kOther;
}

// The rise of the port's error counters from `before` to `after`: a lower
// value is a reset (nothing counted), a counter pinned at its maximum at both
// ends is saturated (nothing known).
std::uint64_t ErrorRise(const RdmaPort& before, const RdmaPort& after,
                        std::map<std::string, std::uint64_t>& increases) {
  std::uint64_t total = 0;
  for (const RdmaCounter& c : after.counters) {
    if (!IsErrorCounter(c.name)) continue;
    auto was = before.Counter(c.name);
    if (!was || c.value <= *was) continue;
    const std::uint64_t rise = c.value - *was;
    total += rise;
    increases[c.name] += rise;
  }
  return total;
}

// The port's changes of state and its series, walking its readings.
void WalkPort(const RdmaPortHistory& h, double drop_s, Timeline& t) {
  RdmaPortSeries series;
  series.port = RdmaPortLabel(*h.device, *h.port);
  series.link_layer = h.port->link_layer;
  series.rate_text = h.port->rate_text;
  series.gpus = h.device->nearest_gpus;
  bool seen_active = false;
  std::optional<std::size_t> open_down;  // index into t.changes of the outage's start
  const RdmaPortReading* previous = nullptr;
  for (const RdmaPortReading& r : h.readings) {
    if (previous != nullptr && r.at && previous->at && *r.at > *previous->at) {
      std::uint64_t rise = ErrorRise(*previous->port, *r.port, series.increases);
      double per_s = static_cast<double>(rise) / SecondsBetween(*previous->at, *r.at);
      series.error_rates.push_back(PortErrorRate{*r.at, per_s});
      series.max_errors_per_s = std::max(series.max_errors_per_s, per_s);
    }
    const bool changed =
        previous != nullptr && r.at && StateText(*previous->port) != StateText(*r.port);
    if (changed) {
      StateChange c{*r.at,
                    "rdma_port",
                    series.port,
                    series.gpus,
                    StateText(*previous->port),
                    StateText(*r.port),
                    "",
                    std::nullopt};
      if (seen_active && previous->port->active && !r.port->active) {
        c.mark = "down";
        open_down = t.changes.size();
      } else if (r.port->active && open_down) {
        c.mark = "flap";
        c.down_s = SecondsBetween(t.changes[*open_down].at, *r.at);
        if (*c.down_s >= drop_s) t.changes[*open_down].mark = "drop";
        t.changes[*open_down].down_s = c.down_s;
        ++series.flaps;
        open_down.reset();
      }
      t.changes.push_back(std::move(c));
    }
    seen_active = seen_active || r.port->active;
    previous = &r;
  }
  if (open_down && previous != nullptr && previous->at) {
    StateChange& down = t.changes[*open_down];
    down.down_s = SecondsBetween(down.at, *previous->at);
    if (*down.down_s >= drop_s) down.mark = "drop";
  }
  for (std::size_t i = 0; i < t.changes.size(); ++i) {
    if (t.changes[i].subject == series.port && t.changes[i].mark == "drop") ++series.drops;
  }
  t.rdma_ports.push_back(std::move(series));
}

void WalkGpuFabric(const GpuSeries& g, Timeline& t) {
  std::optional<std::string> previous;
  const std::size_t n = std::min(g.readings.size(), g.times.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& fabric = g.readings[i].fabric;
    if (!fabric || !g.times[i]) continue;
    std::string now = FabricSummary(*fabric);
    if (previous && *previous != now) {
      t.changes.push_back(StateChange{*g.times[i],
                                      "nvlink_fabric",
                                      g.key,
                                      {g.key},
                                      *previous,
                                      now,
                                      "",
                                      std::nullopt});
    }
    previous = std::move(now);
  }
}

}  // namespace fabric_history_detail

std::string FabricSummary(const GpuFabric& f) {
  std::string out = FabricStateName(f.state);
  if (f.state == FabricState::kCompleted) {
    if (!f.status.empty()) {
      out += ", " + f.status;
    } else if (f.status_code) {
      out += fmt::format(", status {}", *f.status_code);
    }
  }
  const std::pair<const std::optional<bool>*, const char*> conditions[] = {
      {&f.degraded_bandwidth, "degraded bandwidth"},
      {&f.route_recovery, "route recovery"},
      {&f.route_unhealthy, "route unhealthy"},
      {&f.access_timeout_recovery, "access timeout recovery"}};
  std::string health;
  for (const auto& [value, name] : conditions) {
    if (value->value_or(false)) health += (health.empty() ? "" : ", ") + std::string(name);
  }
  return health.empty() ? out : out + "; " + health;
}

void AddFabricHistory(const DiagnosisInput& input, Timeline& timeline) {
  const double drop_s = input.config.ib.drop_minutes * 60;
  for (const RdmaPortHistory& h : RdmaPortHistories(input)) {
    fabric_history_detail::WalkPort(h, drop_s, timeline);
  }
  for (const GpuSeries& g : input.gpus) fabric_history_detail::WalkGpuFabric(g, timeline);
  std::stable_sort(timeline.changes.begin(), timeline.changes.end(),
                   [](const StateChange& a, const StateChange& b) { return a.at < b.at; });
}

}  // namespace gpudoctor
