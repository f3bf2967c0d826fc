#include "store/rdma_cells.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <string>
#include <tuple>

namespace gpudoctor {
namespace rdma_cells_detail {

enum class Member {
  kIgnored,
  kState,
  kStateName,
  kPhys,
  kPhysName,
  kRate,
  kRateText,
  kLinkLayer,
  kCounter,
  kHwCounter,
  kFw,
  kHca,
  kPci,
  kNuma,
  kNear,
};

constexpr std::pair<std::string_view, Member> kPortMembers[] = {
    {"state", Member::kState},         {"state_name", Member::kStateName},
    {"phys", Member::kPhys},           {"phys_name", Member::kPhysName},
    {"rate", Member::kRate},           {"rate_text", Member::kRateText},
    {"link_layer", Member::kLinkLayer}};
constexpr std::pair<std::string_view, Member> kDeviceMembers[] = {{"fw", Member::kFw},
                                                                  {"hca", Member::kHca},
                                                                  {"pci", Member::kPci},
                                                                  {"numa", Member::kNuma},
                                                                  {"near", Member::kNear}};

void Put(std::vector<NamedCell>& cells, std::string name, Cell value) {
  cells.push_back(NamedCell{std::move(name), std::move(value)});
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What a column names, resolved once per set.
struct Target {
  Member member = Member::kIgnored;
  std::size_t device = 0;  // index into the set's devices
  std::size_t port = 0;    // index into that device's ports (port members)
  std::string counter;     // kCounter, kHwCounter
};

struct Skeleton {
  std::vector<RdmaDevice> devices;  // names and port numbers only
  std::map<std::string, std::size_t, std::less<>> by_name;

  std::size_t Device(std::string_view name) {
    if (auto it = by_name.find(name); it != by_name.end()) return it->second;
    devices.push_back(RdmaDevice{std::string(name), "", {}});
    by_name.emplace(std::string(name), devices.size() - 1);
    return devices.size() - 1;
  }
  std::size_t Port(std::size_t device, unsigned number) {
    auto& ports = devices[device].ports;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      if (ports[i].port == number) return i;
    }
    ports.push_back(RdmaPort{});
    ports.back().port = number;
    return ports.size() - 1;
  }
};

Target Resolve(std::string_view name, Skeleton& skeleton) {
  Target t;
  auto slash = name.find('/');
  if (slash == std::string_view::npos) {
    auto colon = name.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return t;
    for (const auto& [n, m] : kDeviceMembers) {
      if (n != name.substr(colon + 1)) continue;
      t.member = m;
      t.device = skeleton.Device(name.substr(0, colon));
    }
    return t;
  }
  std::string_view rest = name.substr(slash + 1);
  auto dot = rest.find('.');
  if (dot == std::string_view::npos || slash == 0) return t;
  unsigned number = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + dot, number);
  if (ec != std::errc() || end != rest.data() + dot) return t;
  std::string_view member = rest.substr(dot + 1);
  if (member.starts_with("c.") && member.size() > 2) {
    t.member = Member::kCounter;
    t.counter = std::string(member.substr(2));
  } else if (member.starts_with("hw.") && member.size() > 3) {
    t.member = Member::kHwCounter;
    t.counter = std::string(member.substr(3));
  } else {
    for (const auto& [n, m] : kPortMembers) {
      if (n == member) t.member = m;
    }
  }
  if (t.member == Member::kIgnored) return t;
  t.device = skeleton.Device(name.substr(0, slash));
  t.port = skeleton.Port(t.device, number);
  return t;
}

std::optional<std::int64_t> IntOf(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) return std::llround(*d);
  return std::nullopt;
}

// One cell of a device (firmware, HCA, PCI address, NUMA node, nearest GPUs)
// into it; false when the cell is a port's.
bool ApplyDeviceCell(const Target& t, const Cell& cell, RdmaDevice& d) {
  const auto number = IntOf(cell);
  const auto* text = std::get_if<std::string>(&cell);
  switch (t.member) {
    case Member::kFw:
      if (text) d.fw_version = *text;
      return true;
    case Member::kHca:
      if (text) d.hca_type = *text;
      return true;
    case Member::kPci:
      if (text) d.pci_bus_id = *text;
      return true;
    case Member::kNuma:
      if (number) d.numa_node = static_cast<int>(*number);
      return true;
    case Member::kNear:
      if (text) d.nearest_gpus = SplitCommas(*text);
      return true;
    default:
      return false;
  }
}

// One cell into the row's devices; true when it belonged to a port. A
// device's own cells need no port (a device recorded without any).
bool Apply(const Target& t, const Cell& cell, std::vector<RdmaDevice>& devices) {
  RdmaDevice& d = devices[t.device];
  if (t.member == Member::kIgnored || ApplyDeviceCell(t, cell, d)) return false;
  if (t.port >= d.ports.size()) return false;
  RdmaPort& p = d.ports[t.port];
  const auto number = IntOf(cell);
  const auto* text = std::get_if<std::string>(&cell);
  switch (t.member) {
    case Member::kState:
    case Member::kPhys:
    case Member::kStateName:
    case Member::kPhysName: {
      const bool port_state = t.member == Member::kState || t.member == Member::kStateName;
      auto& state = port_state ? p.state : p.phys_state;
      if (!state) state.emplace();
      if (text && (t.member == Member::kStateName || t.member == Member::kPhysName)) {
        state->name = *text;
      } else if (number) {
        state->code = static_cast<int>(*number);
        if (port_state) p.active = *number == 4;
      }
      return true;
    }
    case Member::kRate:
      if (const auto* r = std::get_if<double>(&cell)) p.rate_gbps = *r;
      if (number && !std::holds_alternative<double>(cell))
        p.rate_gbps = static_cast<double>(*number);
      return true;
    case Member::kRateText:
      if (text) p.rate_text = *text;
      return true;
    case Member::kLinkLayer:
      if (text) {
        p.link_layer = *text;
        p.roce = *text == "Ethernet";
      }
      return true;
    case Member::kCounter:
    case Member::kHwCounter:
      if (number) {
        p.counters.push_back(RdmaCounter{t.counter, t.member == Member::kHwCounter,
                                         static_cast<std::uint64_t>(*number)});
      }
      return true;
    default:
      return false;
  }
}

}  // namespace rdma_cells_detail

void RdmaToCells(const RdmaFacts& facts, std::vector<NamedCell>& cells) {
  using rdma_cells_detail::Put;
  for (const RdmaDevice& d : facts.devices) {
    const std::string dev = d.name + ":";
    if (!d.fw_version.empty()) Put(cells, dev + "fw", d.fw_version);
    if (!d.hca_type.empty()) Put(cells, dev + "hca", d.hca_type);
    if (!d.pci_bus_id.empty()) Put(cells, dev + "pci", d.pci_bus_id);
    if (d.numa_node) Put(cells, dev + "numa", std::int64_t{*d.numa_node});
    if (!d.nearest_gpus.empty())
      Put(cells, dev + "near", rdma_cells_detail::Joined(d.nearest_gpus));
    for (const RdmaPort& p : d.ports) {
      const std::string port = d.name + "/" + std::to_string(p.port) + ".";
      // Each port has at least its state cell, so that a port with nothing
      // readable still appears in the reading.
      Put(cells, port + "state", std::int64_t{p.state ? p.state->code : -1});
      if (p.state && !p.state->name.empty()) Put(cells, port + "state_name", p.state->name);
      if (p.phys_state) {
        Put(cells, port + "phys", std::int64_t{p.phys_state->code});
        if (!p.phys_state->name.empty()) Put(cells, port + "phys_name", p.phys_state->name);
      }
      if (p.rate_gbps) Put(cells, port + "rate", *p.rate_gbps);
      if (!p.rate_text.empty()) Put(cells, port + "rate_text", p.rate_text);
      if (!p.link_layer.empty()) Put(cells, port + "link_layer", p.link_layer);
      for (const RdmaCounter& c : p.counters) {
        Put(cells, port + (c.hw ? "hw." : "c.") + c.name, static_cast<std::int64_t>(c.value));
      }
    }
  }
}

std::vector<RdmaFacts> DecodeRdmaReadings(const ColumnSet& set) {
  using namespace rdma_cells_detail;
  Skeleton skeleton;
  std::vector<Target> targets;
  targets.reserve(set.columns.size());
  for (const Column& c : set.columns) targets.push_back(Resolve(c.name, skeleton));
  std::vector<RdmaFacts> out;
  out.reserve(set.times_ms.size());
  ColumnSetReader reader(set);
  for (std::int64_t t : set.times_ms) {
    std::vector<RdmaDevice> devices = skeleton.devices;
    std::vector<std::vector<bool>> seen(devices.size());
    for (std::size_t d = 0; d < devices.size(); ++d) seen[d].assign(devices[d].ports.size(), false);
    std::vector<bool> in_row(devices.size(), false);  // a cell of the device or of its ports
    reader.NextRow([&](std::size_t c, const Cell& cell) {
      const Target& target = targets[c];
      if (target.member == Member::kIgnored) return;
      in_row[target.device] = true;
      if (Apply(target, cell, devices)) seen[target.device][target.port] = true;
    });
    RdmaFacts facts;
    facts.read_at = std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::milliseconds(t)));
    for (std::size_t d = 0; d < devices.size(); ++d) {
      RdmaDevice& dev = devices[d];
      std::vector<RdmaPort> ports;
      for (std::size_t p = 0; p < dev.ports.size(); ++p) {
        if (!seen[d][p]) continue;
        RdmaPort& port = dev.ports[p];
        if (port.state && port.state->code < 0) port.state.reset();
        std::stable_sort(port.counters.begin(), port.counters.end(),
                         [](const RdmaCounter& a, const RdmaCounter& b) {
                           return std::tie(a.hw, a.name) < std::tie(b.hw, b.name);
                         });
        ports.push_back(std::move(port));
      }
      if (!in_row[d]) continue;
      dev.ports = std::move(ports);
      facts.devices.push_back(std::move(dev));
    }
    out.push_back(std::move(facts));
  }
  return out;
}

}  // namespace gpudoctor

namespace gpudoctor {
namespace rdma_cells_detail {

std::string StateKey(const RdmaFacts& facts) {
  std::string key;
  for (const RdmaDevice& d : facts.devices) {
    for (const RdmaPort& p : d.ports) {
      key += d.name + "/" + std::to_string(p.port) + "=" +
             std::to_string(p.state ? p.state->code : -1) + ";";
    }
  }
  return key;
}

}  // namespace rdma_cells_detail

std::vector<RdmaFacts> ThinRdmaReadings(std::vector<RdmaFacts> readings, std::size_t max_readings) {
  const std::size_t n = readings.size();
  if (n <= max_readings || max_readings == 0) return readings;
  std::vector<bool> keep(n, false);
  keep.front() = keep.back() = true;
  std::size_t changes = 0;
  std::string previous = rdma_cells_detail::StateKey(readings.front());
  for (std::size_t i = 1; i < n; ++i) {
    std::string key = rdma_cells_detail::StateKey(readings[i]);
    if (key != previous && changes < max_readings) {
      keep[i - 1] = keep[i] = true;
      ++changes;
    }
    previous = std::move(key);
  }
  const std::size_t step = (n + max_readings - 1) / max_readings;
  for (std::size_t i = 0; i < n; i += step) keep[i] = true;
  std::vector<RdmaFacts> out;
  for (std::size_t i = 0; i < n; ++i) {
    if (keep[i]) out.push_back(std::move(readings[i]));
  }
  return out;
}

}  // namespace gpudoctor
