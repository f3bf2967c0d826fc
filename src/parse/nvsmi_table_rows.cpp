// The cells of a GPU block and of a process row of the default nvidia-smi table:
//
//   |   0  NVIDIA A30          Off  | 00000000:01:00.0 Off |                    0 |
//   | N/A   26C    P0    29W / 165W |      0MiB / 24576MiB |      0%      Default |
//   |                               |                      |             Disabled |
//
//   |    2   N/A  N/A     88420      C   python                          27064MiB |
#include "parse/nvsmi_table_rows.h"

#include <string>

#include "parse/nvsmi_table.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor::nvsmi_table {
namespace {

using nvsmi::Trim;

bool IsErr(std::string_view cell) { return Trim(cell) == "ERR!"; }

// Sets `out` from the cell, or records the ERR! under `field`.
template <typename T, typename Parse>
void Read(std::string_view cell, Parse parse, const char* field, std::optional<T>& out,
          GpuStatus& gpu) {
  if (IsErr(cell)) {
    gpu.field_errors[field] = std::string(kTableErrCell);
    return;
  }
  if (auto value = parse(cell)) out = *value;
}

// "821MiB"; drivers before 340 wrote "821MB", which meant MiB too.
std::optional<std::int64_t> MemoryBytes(std::string_view text) {
  text = Trim(text);
  if (text.size() > 2 && text.ends_with("MB") && !text.ends_with("iMB")) {
    return nvsmi::ParseMemoryBytes(std::string(text.substr(0, text.size() - 2)) + "MiB");
  }
  return nvsmi::ParseMemoryBytes(text);
}

// The Persistence-M column's values, or Windows' Driver-Model ones (which say
// nothing of persistence mode). Drivers before 320 have no such column: the
// name then fills the cell.
bool IsModeWord(std::string_view word) {
  for (std::string_view mode : {"On", "Off", "ERR!", "N/A", "WDDM", "TCC", "MCDM"}) {
    if (word == mode) return true;
  }
  return false;
}

std::string_view At(const std::vector<std::string_view>& v, std::size_t i) {
  return i < v.size() ? v[i] : std::string_view{};
}

// "On"/"Off"; nullopt for anything else.
std::optional<bool> OnOff(std::string_view text) {
  text = Trim(text);
  if (text == "On") return true;
  if (text == "Off") return false;
  return std::nullopt;
}

// First row: index, name, persistence mode (or the Windows driver model);
// bus id and Disp.A; the volatile uncorrected ECC count.
bool ReadFirstRow(std::string_view row, GpuStatus& gpu) {
  auto cells = Cells(row);
  if (cells.size() < 3) return false;
  auto words = Words(cells[0]);
  auto index = nvsmi::ParseInteger(At(words, 0));
  if (!index || *index < 0 || *index > 4095) return false;
  gpu.index = static_cast<unsigned>(*index);
  if (words.size() >= 2) {
    // The name lies between the index and the mode (or the cell's end), spaces and all.
    std::string_view cell = cells[0];
    std::size_t from = static_cast<std::size_t>(words[0].data() + words[0].size() - cell.data());
    std::size_t to = cell.size();
    if (IsModeWord(words.back())) {
      std::string_view mode = words.back();
      Read(mode, OnOff, "persistence_mode", gpu.persistence_mode, gpu);
      to = static_cast<std::size_t>(mode.data() - cell.data());
    }
    std::string_view name = Trim(cell.substr(from, to - from));
    if (IsErr(name)) {
      gpu.field_errors["name"] = std::string(kTableErrCell);
    } else {
      gpu.name = std::string(name);
    }
  }
  gpu.pci_bus_id = NormalizePciBusId(std::string(At(Words(cells[1]), 0)));
  std::string_view ecc = Trim(cells[2]);
  if (IsErr(ecc)) {
    gpu.field_errors["ecc_volatile_uncorrected"] = std::string(kTableErrCell);
  } else if (auto count = nvsmi::ParseInteger(ecc); count && *count >= 0) {
    gpu.ecc_volatile_uncorrected = *count;
    gpu.ecc_mode_enabled = true;
  } else if (auto on = OnOff(ecc)) {
    gpu.ecc_mode_enabled = *on;  // MIG mode shows the ECC mode, not a count
  }
  return true;
}

// Second row: fan, temperature, P-state, power draw / cap; memory used /
// total; GPU utilisation and compute mode.
void ReadSecondRow(std::string_view row, GpuStatus& gpu) {
  auto cells = Cells(row);
  if (cells.size() < 3) return;
  auto words = Words(cells[0]);
  std::size_t slash = 0;
  while (slash < words.size() && words[slash] != "/") ++slash;
  if (slash == 4) {
    Read(words[0], nvsmi::ParsePercent, "fan_speed_percent", gpu.fan_speed_percent, gpu);
    Read(words[1], nvsmi::ParseCelsius, "temperature_c", gpu.temperature_c, gpu);
    Read(words[2], nvsmi::ParsePstate, "pstate", gpu.pstate, gpu);
    Read(words[3], nvsmi::ParseWatts, "power_draw_w", gpu.power_draw_w, gpu);
    Read(At(words, 5), nvsmi::ParseWatts, "power_limit_w", gpu.power_limit_w, gpu);
  }
  if (gpu.fan_speed_percent) gpu.fan_speeds_percent = {*gpu.fan_speed_percent};
  std::string_view memory = cells[1];
  std::size_t split = memory.find('/');
  if (split != std::string_view::npos) {
    // The used amount is the last word before the '/': drivers before 320 put
    // the memory utilisation ("0%") in front of it.
    auto used = Words(memory.substr(0, split));
    Read(used.empty() ? std::string_view{} : used.back(), MemoryBytes, "memory_used_bytes",
         gpu.memory_used_bytes, gpu);
    Read(memory.substr(split + 1), MemoryBytes, "memory_total_bytes", gpu.memory_total_bytes,
         gpu);
  }
  auto util = Words(cells[2]);
  Read(At(util, 0), nvsmi::ParsePercent, "utilization_gpu_percent", gpu.utilization_gpu_percent,
       gpu);
  if (util.size() >= 2) {
    std::string_view cell = cells[2];
    std::string_view mode = Trim(cell.substr(static_cast<std::size_t>(util[1].data() - cell.data())));
    Read(mode, nvsmi::NormalizeComputeMode, "compute_mode", gpu.compute_mode, gpu);
  }
}

}  // namespace

std::vector<std::string_view> Cells(std::string_view line) {
  std::vector<std::string_view> cells;
  line = Trim(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return cells;
  line = line.substr(1, line.size() - 2);
  for (std::size_t pos = 0;;) {
    std::size_t bar = line.find('|', pos);
    cells.push_back(line.substr(pos, bar == std::string_view::npos ? line.npos : bar - pos));
    if (bar == std::string_view::npos) break;
    pos = bar + 1;
  }
  return cells;
}

std::vector<std::string_view> Words(std::string_view cell) {
  std::vector<std::string_view> words;
  std::size_t pos = 0;
  while (pos < cell.size()) {
    std::size_t start = cell.find_first_not_of(" \t", pos);
    if (start == std::string_view::npos) break;
    std::size_t end = cell.find_first_of(" \t", start);
    if (end == std::string_view::npos) end = cell.size();
    words.push_back(cell.substr(start, end - start));
    pos = end;
  }
  return words;
}

std::optional<GpuStatus> GpuFromBlock(const std::vector<std::string_view>& rows) {
  GpuStatus gpu;
  if (rows.empty() || !ReadFirstRow(rows[0], gpu)) return std::nullopt;
  if (rows.size() >= 2) ReadSecondRow(rows[1], gpu);
  if (rows.size() >= 3) {
    auto cells = Cells(rows[2]);
    if (cells.size() >= 3) {
      Read(cells[2], nvsmi::ParseEnabled, "mig_mode_enabled", gpu.mig_mode_enabled, gpu);
    }
  }
  return gpu;
}

std::optional<ProcessRow> ProcessFromRow(std::string_view row, const ProcessColumns& columns) {
  auto cells = Cells(row);
  if (cells.size() != 1) return std::nullopt;
  auto words = Words(cells[0]);
  // GPU [GI CI] PID [Type] Name... Memory
  const std::size_t pid_at = columns.instance_ids ? 3 : 1;
  const std::size_t name_at = pid_at + (columns.type ? 2 : 1);
  if (words.size() < name_at + 2) return std::nullopt;
  auto gpu = nvsmi::ParseInteger(words[0]);
  auto pid = nvsmi::ParseInteger(words[pid_at]);
  if (!gpu || *gpu < 0 || *gpu > 4095 || !pid || *pid <= 0 || *pid > 0xFFFFFFFF) {
    return std::nullopt;
  }
  if (columns.type && words[pid_at + 1] == "G") return std::nullopt;
  ProcessRow out;
  out.gpu = static_cast<unsigned>(*gpu);
  out.process.pid = static_cast<std::uint32_t>(*pid);
  std::string_view cell = cells[0];
  std::string_view memory = words.back();
  std::size_t from = static_cast<std::size_t>(words[name_at].data() - cell.data());
  std::size_t to = static_cast<std::size_t>(memory.data() - cell.data());
  std::string_view name = Trim(cell.substr(from, to - from));
  // Windows without administrator rights: "Insufficient Permissions".
  if (!nvsmi::IsUnavailable(name)) out.process.name = std::string(name);
  out.process.used_memory_bytes = MemoryBytes(memory);
  return out;
}

}  // namespace gpudoctor::nvsmi_table
