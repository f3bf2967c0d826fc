#include "store/sample_codec.h"

#include <charconv>
#include <cmath>
#include <string>

#include "core/gpu_fields.h"
#include "store/fabric_cells.h"

namespace gpudoctor {

namespace {

constexpr const char* kNvlinkMembers[] = {"active", "crc_flit_errors", "crc_data_errors",
                                          "replay_errors", "recovery_errors"};
constexpr std::optional<std::int64_t> NvLinkStatus::*kNvlinkCounters[] = {
    &NvLinkStatus::crc_flit_errors, &NvLinkStatus::crc_data_errors, &NvLinkStatus::replay_errors,
    &NvLinkStatus::recovery_errors};

constexpr GpuState kStates[] = {GpuState::kOk, GpuState::kLost, GpuState::kHung, GpuState::kError};

void Add(std::vector<NamedCell>& cells, std::string name, Cell value) {
  cells.push_back(NamedCell{std::move(name), std::move(value)});
}

std::optional<std::int64_t> AsInt(const Cell& c) {
  if (const auto* i = std::get_if<std::int64_t>(&c)) return *i;
  if (const auto* d = std::get_if<double>(&c)) return std::llround(*d);
  return std::nullopt;
}

const std::string* AsText(const Cell& c) { return std::get_if<std::string>(&c); }

// Splits "a\tb\tc\n..." into lines of tab-separated parts.
std::vector<std::vector<std::string>> SplitRecords(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::vector<std::string> record(1);
  for (char ch : text) {
    if (ch == '\n') {
      out.push_back(std::move(record));
      record.assign(1, {});
    } else if (ch == '\t') {
      record.emplace_back();
    } else {
      record.back().push_back(ch);
    }
  }
  return out;
}

std::string Clean(const std::string& s) {
  std::string out = s;
  for (char& ch : out) {
    if (ch == '\t' || ch == '\n') ch = ' ';
  }
  return out;
}

std::string ProcessesText(const std::vector<GpuProcess>& processes) {
  std::string out;
  for (const auto& p : processes) {
    out += std::to_string(p.pid) + '\t' + Clean(p.name) + '\t' +
           (p.used_memory_bytes ? std::to_string(*p.used_memory_bytes) : "") + '\n';
  }
  return out;
}

// Utilisation and owner per process: a column of its own, so that readers
// from before it still read "processes" (they keep only 3-part records).
std::string ProcessDetailsText(const std::vector<GpuProcess>& processes) {
  std::string out;
  for (const auto& p : processes) {
    if (!p.sm_util_percent && !p.memory_util_percent && p.user.empty() &&
        p.container_id.empty() && p.pod_uid.empty()) {
      continue;
    }
    auto number = [](const std::optional<std::int64_t>& v) {
      return v ? std::to_string(*v) : std::string();
    };
    out += std::to_string(p.pid) + '\t' + number(p.sm_util_percent) + '\t' +
           number(p.memory_util_percent) + '\t' + Clean(p.user) + '\t' + Clean(p.container_id) +
           '\t' + Clean(p.pod_uid) + '\n';
  }
  return out;
}

std::optional<std::int64_t> ParseInt(const std::string& s) {
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::vector<GpuProcess> ParseProcesses(const std::string& text) {
  std::vector<GpuProcess> out;
  for (auto& r : SplitRecords(text)) {
    if (r.size() != 3) continue;
    GpuProcess p;
    p.pid = static_cast<std::uint32_t>(ParseInt(r[0]).value_or(0));
    p.name = r[1];
    p.used_memory_bytes = ParseInt(r[2]);
    out.push_back(std::move(p));
  }
  return out;
}

// The process of `pid` in gpu.processes, added when absent (the details
// column may be decoded before the processes column).
GpuProcess& ProcessAt(GpuStatus& gpu, std::uint32_t pid) {
  if (!gpu.processes) gpu.processes.emplace();
  for (auto& p : *gpu.processes) {
    if (p.pid == pid) return p;
  }
  gpu.processes->push_back(GpuProcess{});
  gpu.processes->back().pid = pid;
  return gpu.processes->back();
}

void ApplyProcessDetails(GpuStatus& gpu, const std::string& text) {
  for (auto& r : SplitRecords(text)) {
    if (r.size() < 6) continue;
    auto pid = ParseInt(r[0]);
    if (!pid) continue;
    GpuProcess& p = ProcessAt(gpu, static_cast<std::uint32_t>(*pid));
    p.sm_util_percent = ParseInt(r[1]);
    p.memory_util_percent = ParseInt(r[2]);
    p.user = r[3];
    p.container_id = r[4];
    p.pod_uid = r[5];
  }
}

// The processes column over details already decoded for the same pids.
void ApplyProcesses(GpuStatus& gpu, const std::string& text) {
  std::vector<GpuProcess> parsed = ParseProcesses(text);
  if (gpu.processes) {
    for (GpuProcess& p : parsed) {
      for (const GpuProcess& known : *gpu.processes) {
        if (known.pid != p.pid) continue;
        p.sm_util_percent = known.sm_util_percent;
        p.memory_util_percent = known.memory_util_percent;
        p.user = known.user;
        p.container_id = known.container_id;
        p.pod_uid = known.pod_uid;
      }
    }
  }
  gpu.processes = std::move(parsed);
}

NvLinkStatus& LinkAt(GpuStatus& gpu, unsigned link) {
  for (auto& l : gpu.nvlinks) {
    if (l.link == link) return l;
  }
  gpu.nvlinks.push_back(NvLinkStatus{});
  gpu.nvlinks.back().link = link;
  return gpu.nvlinks.back();
}

std::optional<unsigned> ParseNumber(std::string_view s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The fields a MIG device's status holds (mig_reader.h): memory and GPM.
bool IsMigField(const GpuField& field) {
  return field.name.starts_with("memory_") || field.name.starts_with("gpm_");
}

MigDeviceStatus& MigAt(GpuStatus& gpu, unsigned slot) {
  if (gpu.mig_devices.size() <= slot) gpu.mig_devices.resize(slot + 1);
  gpu.mig_devices[slot].status.index = slot;
  return gpu.mig_devices[slot];
}

}  // namespace

void StatusToCells(const GpuStatus& gpu, std::vector<NamedCell>& cells) {
  Add(cells, "index", static_cast<std::int64_t>(gpu.index));
  Add(cells, "state", static_cast<std::int64_t>(gpu.state));
  if (!gpu.state_detail.empty()) Add(cells, "state_detail", gpu.state_detail);
  Add(cells, "name", gpu.name);
  Add(cells, "uuid", gpu.uuid);
  Add(cells, "pci_bus_id", gpu.pci_bus_id);
  for (const GpuField& field : ScalarGpuFields()) {
    std::visit(
        [&](auto member) {
          const auto& value = gpu.*member;
          if (!value) return;
          using T = std::decay_t<decltype(*value)>;
          if constexpr (std::is_same_v<T, std::string>) {
            Add(cells, std::string(field.name), *value);
          } else if constexpr (std::is_same_v<T, double>) {
            Add(cells, std::string(field.name), *value);
          } else {
            Add(cells, std::string(field.name), static_cast<std::int64_t>(*value));
          }
        },
        field.member);
  }
  if (gpu.pstate) Add(cells, "pstate", *gpu.pstate);
  if (gpu.clock_event_reasons_mask) {
    Add(cells, "clock_event_reasons_mask",
        static_cast<std::int64_t>(*gpu.clock_event_reasons_mask));
  }
  for (std::size_t i = 0; i < gpu.fan_speeds_percent.size(); ++i) {
    Add(cells, "fan." + std::to_string(i), gpu.fan_speeds_percent[i]);
  }
  for (const NvLinkStatus& l : gpu.nvlinks) {
    std::string prefix = "nvlink." + std::to_string(l.link);
    Add(cells, prefix, std::int64_t{1});
    if (l.active) Add(cells, prefix + ".active", std::int64_t{*l.active ? 1 : 0});
    for (std::size_t m = 0; m < std::size(kNvlinkCounters); ++m) {
      if (const auto& v = l.*kNvlinkCounters[m])
        Add(cells, prefix + "." + kNvlinkMembers[m + 1], *v);
    }
  }
  for (std::size_t i = 0; i < gpu.mig_devices.size(); ++i) {
    const MigDeviceStatus& m = gpu.mig_devices[i];
    const std::string prefix = "mig." + std::to_string(i);
    Add(cells, prefix, static_cast<std::int64_t>(m.gpu_instance_id));
    if (m.compute_instance_id) {
      Add(cells, prefix + ".ci", static_cast<std::int64_t>(*m.compute_instance_id));
    }
    if (!m.status.uuid.empty()) Add(cells, prefix + ".uuid", m.status.uuid);
    for (const GpuField& field : ScalarGpuFields()) {
      if (!IsMigField(field)) continue;
      std::visit(
          [&](auto member) {
            const auto& value = m.status.*member;
            if (!value) return;
            using T = std::decay_t<decltype(*value)>;
            if constexpr (std::is_same_v<T, double>) {
              Add(cells, prefix + "." + std::string(field.name), *value);
            } else if constexpr (!std::is_same_v<T, std::string>) {
              Add(cells, prefix + "." + std::string(field.name), static_cast<std::int64_t>(*value));
            }
          },
          field.member);
    }
  }
  if (gpu.processes) {
    Add(cells, "processes", ProcessesText(*gpu.processes));
    std::string details = ProcessDetailsText(*gpu.processes);
    if (!details.empty()) Add(cells, "process_details", std::move(details));
  }
  if (gpu.fabric) FabricToCells(*gpu.fabric, cells);
  if (!gpu.field_errors.empty()) {
    std::string text;
    for (const auto& [k, v] : gpu.field_errors) text += Clean(k) + '\t' + Clean(v) + '\n';
    Add(cells, "field_errors", text);
  }
}

SampleColumn ResolveSampleColumn(std::string_view name) {
  using K = SampleColumn::Kind;
  SampleColumn c;
  static const std::pair<std::string_view, K> kFixed[] = {
      {"index", K::kIndex},         {"name", K::kName},
      {"uuid", K::kUuid},           {"pci_bus_id", K::kBusId},
      {"state", K::kState},         {"state_detail", K::kStateDetail},
      {"pstate", K::kPstate},       {"clock_event_reasons_mask", K::kMask},
      {"processes", K::kProcesses}, {"field_errors", K::kFieldErrors},
      {"process_details", K::kProcessDetails}};
  for (const auto& [n, k] : kFixed) {
    if (n == name) {
      c.kind = k;
      return c;
    }
  }
  if (const GpuField* f = FindGpuField(name)) {
    c.kind = K::kScalar;
    c.field = f;
    return c;
  }
  if (name.starts_with("fan.")) {
    if (auto n = ParseNumber(name.substr(4))) {
      c.kind = K::kFan;
      c.number = *n;
    }
    return c;
  }
  if (name.starts_with("fabric.")) {
    if (auto member = FabricMemberOf(name.substr(7))) {
      c.kind = K::kFabric;
      c.number = *member;
    }
    return c;
  }
  if (name.starts_with("mig.")) {
    std::string_view rest = name.substr(4);
    auto dot = rest.find('.');
    auto n = ParseNumber(rest.substr(0, dot));
    if (!n || *n >= 64) return c;  // more slots than NVML has: not ours
    c.number = *n;
    std::string_view member = dot == std::string_view::npos ? "" : rest.substr(dot + 1);
    if (member.empty()) {
      c.mig_member = 0;
    } else if (member == "ci") {
      c.mig_member = 1;
    } else if (member == "uuid") {
      c.mig_member = 2;
    } else if (const GpuField* f = FindGpuField(member); f && IsMigField(*f)) {
      c.mig_member = 3;
      c.field = f;
    } else {
      return c;
    }
    c.kind = SampleColumn::Kind::kMig;
    return c;
  }
  if (name.starts_with("nvlink.")) {
    std::string_view rest = name.substr(7);
    auto dot = rest.find('.');
    auto n = ParseNumber(rest.substr(0, dot));
    if (!n) return c;
    c.number = *n;
    if (dot == std::string_view::npos) {
      c.kind = K::kNvlink;
      return c;
    }
    for (int m = 0; m < static_cast<int>(std::size(kNvlinkMembers)); ++m) {
      if (rest.substr(dot + 1) == kNvlinkMembers[m]) {
        c.kind = K::kNvlink;
        c.nvlink_member = m;
      }
    }
  }
  return c;
}

void ApplyCell(GpuStatus& gpu, const SampleColumn& column, const Cell& value) {
  using K = SampleColumn::Kind;
  auto number = AsInt(value);
  const std::string* text = AsText(value);
  switch (column.kind) {
    case K::kIgnored:
      return;
    case K::kScalar:
      if (text) {
        if (const auto* m = std::get_if<TextMember>(&column.field->member)) gpu.*(*m) = *text;
      } else if (const auto* d = std::get_if<double>(&value)) {
        SetNumber(gpu, *column.field, *d);
      } else {
        SetNumber(gpu, *column.field, static_cast<double>(*number));
      }
      return;
    case K::kIndex:
      if (number) gpu.index = static_cast<unsigned>(*number);
      return;
    case K::kName:
      if (text) gpu.name = *text;
      return;
    case K::kUuid:
      if (text) gpu.uuid = *text;
      return;
    case K::kBusId:
      if (text) gpu.pci_bus_id = *text;
      return;
    case K::kState:
      if (number && *number >= 0 && *number < static_cast<std::int64_t>(std::size(kStates))) {
        gpu.state = kStates[*number];
      }
      return;
    case K::kStateDetail:
      if (text) gpu.state_detail = *text;
      return;
    case K::kPstate:
      if (number) gpu.pstate = *number;
      return;
    case K::kMask:
      if (number) gpu.clock_event_reasons_mask = static_cast<std::uint64_t>(*number);
      return;
    case K::kFan:
      if (!number) return;
      if (gpu.fan_speeds_percent.size() <= column.number) {
        gpu.fan_speeds_percent.resize(column.number + 1, 0);
      }
      gpu.fan_speeds_percent[column.number] = *number;
      return;
    case K::kNvlink: {
      if (!number) return;
      NvLinkStatus& link = LinkAt(gpu, column.number);
      if (column.nvlink_member == 0) link.active = *number != 0;
      if (column.nvlink_member > 0) link.*kNvlinkCounters[column.nvlink_member - 1] = *number;
      return;
    }
    case K::kMig: {
      if (!number && !text) return;  // no value in this row
      MigDeviceStatus& m = MigAt(gpu, column.number);
      if (column.mig_member == 0 && number) {
        m.gpu_instance_id = static_cast<unsigned>(*number);
      } else if (column.mig_member == 1 && number) {
        m.compute_instance_id = static_cast<unsigned>(*number);
      } else if (column.mig_member == 2 && text) {
        m.status.uuid = *text;
      } else if (column.mig_member == 3 && number) {
        const auto* d = std::get_if<double>(&value);
        SetNumber(m.status, *column.field, d ? *d : static_cast<double>(*number));
      }
      return;
    }
    case K::kFabric:
      ApplyFabricCell(gpu, column.number, value);
      return;
    case K::kProcesses:
      if (text) ApplyProcesses(gpu, *text);
      return;
    case K::kProcessDetails:
      if (text) ApplyProcessDetails(gpu, *text);
      return;
    case K::kFieldErrors:
      if (!text) return;
      for (auto& r : SplitRecords(*text)) {
        if (r.size() == 2) gpu.field_errors[r[0]] = r[1];
      }
      return;
  }
}

std::vector<GpuStatus> DecodeSamples(const ColumnSet& set) {
  std::vector<SampleColumn> columns;
  columns.reserve(set.columns.size());
  for (const Column& c : set.columns) columns.push_back(ResolveSampleColumn(c.name));
  std::vector<GpuStatus> out(set.times_ms.size());
  ColumnSetReader reader(set);
  for (GpuStatus& gpu : out) {
    reader.NextRow([&](std::size_t c, const Cell& cell) { ApplyCell(gpu, columns[c], cell); });
  }
  return out;
}

bool IsNumericColumn(const SampleColumn& column) {
  using K = SampleColumn::Kind;
  switch (column.kind) {
    case K::kScalar:
      return !std::holds_alternative<TextMember>(column.field->member);
    case K::kPstate:
    case K::kMask:
    case K::kFan:
      return true;
    case K::kNvlink:
      return column.nvlink_member >= 0;
    default:
      return false;
  }
}

}  // namespace gpudoctor
