// The default nvidia-smi table: its banner, then up to three tables, each a
// title or column header, a "|===|" line and a body of rows between "+---+"
// rules. Which table a body belongs to is told by its header.
#include "parse/nvsmi_table.h"

#include <map>
#include <string>
#include <vector>

#include "parse/nvsmi_table_rows.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor {
namespace {

using nvsmi::Trim;
using nvsmi_table::Cells;
using nvsmi_table::Words;

enum class Table { kNone, kGpus, kMig, kProcesses };

bool Contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// A line of only '|', '+', '-', '=' (and spaces) with at least one '-' or '='.
bool IsRule(std::string_view line) {
  line = Trim(line);
  if (line.empty() || line.find_first_not_of("|+-= ") != std::string_view::npos) return false;
  return line.find_first_of("-=") != std::string_view::npos;
}

// The value after `label` ("Driver Version:") up to the next run of two
// spaces or the end of the cell.
std::optional<std::string_view> ValueAfter(std::string_view cell, std::string_view label) {
  std::size_t at = cell.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  auto words = Words(cell.substr(at + label.size()));
  if (words.empty()) return std::nullopt;
  return words[0];
}

// Calls `on_line(line)` for each line of `text` (without its '\n') until it
// returns false.
template <typename OnLine>
void ForEachLine(std::string_view text, OnLine on_line) {
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (!on_line(text.substr(pos, end - pos))) return;
    pos = end + 1;
  }
}

// "|   3  NVIDIA A30 ..." : a GPU block's first row.
bool StartsWithIndex(std::string_view line) {
  auto cells = Cells(line);
  if (cells.empty()) return false;
  auto words = Words(cells[0]);
  return !words.empty() && nvsmi::ParseInteger(words[0]).has_value();
}

void ReadBanner(std::string_view cell, SystemStatus& system) {
  auto driver = ValueAfter(cell, "Driver Version:");
  if (!driver) driver = ValueAfter(cell, "KMD Version:");
  if (driver && !nvsmi::IsUnavailable(*driver)) system.driver_version = std::string(*driver);
  auto cuda = ValueAfter(cell, "CUDA Version:");
  if (!cuda) cuda = ValueAfter(cell, "CUDA UMD Version:");
  if (cuda) system.cuda_driver_version = nvsmi::ParseCudaVersion(*cuda);
}

struct Parser {
  std::string_view source;
  SystemStatus system;
  bool gpu_header = false;  // the GPU table's column header was seen
  bool processes_seen = false;
  std::map<unsigned, std::vector<GpuProcess>> processes;
  Table header = Table::kNone;  // the table whose header lines come now
  Table body = Table::kNone;    // the table whose rows come now
  bool instance_ids = false;    // the process table has GI and CI columns
  std::vector<std::string_view> block;
  std::string error;

  void Flush() {
    if (block.empty()) return;
    auto gpu = nvsmi_table::GpuFromBlock(block);
    if (!gpu && error.empty()) {
      error = "GPU row '" + std::string(Trim(block[0]).substr(0, 60)) +
              "' is not a row of the GPU table";
    }
    block.clear();
    if (!gpu) return;
    // A file with the table twice (run again, or `watch`): the later one wins.
    for (GpuStatus& seen : system.gpus) {
      if (!gpu->pci_bus_id.empty() && seen.pci_bus_id == gpu->pci_bus_id) {
        seen = std::move(*gpu);
        return;
      }
    }
    system.gpus.push_back(std::move(*gpu));
  }

  void Header(std::string_view line) {
    auto cells = Cells(line);
    std::string_view first = cells.empty() ? std::string_view{} : cells[0];
    if (Contains(line, "NVIDIA-SMI ")) {
      ReadBanner(first, system);
    } else if (Contains(line, "Bus-Id")) {
      header = Table::kGpus;
      gpu_header = true;
    } else if (Contains(first, "MIG devices:")) {
      header = Table::kMig;
    } else if (Contains(first, "Processes:")) {
      header = Table::kProcesses;
      processes_seen = true;
      processes.clear();  // a later table's list replaces an earlier one
      instance_ids = false;
    } else if (header == Table::kProcesses && Contains(first, "PID")) {
      instance_ids = Contains(first, " GI ");
    }
  }

  void Line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (Trim(line).empty()) {  // a blank line ends a table
      Flush();
      body = header = Table::kNone;
      return;
    }
    if (IsRule(line)) {
      Flush();
      if (Contains(line, "=")) {  // the end of a header
        body = header;
        header = Table::kNone;
      }
      return;
    }
    switch (body) {
      case Table::kGpus:
        if (block.empty() && !StartsWithIndex(line)) {  // a table right after, no blank line
          body = Table::kNone;
          Header(line);
          return;
        }
        if (!Cells(line).empty()) block.push_back(line);
        return;
      case Table::kProcesses:
        if (auto row = nvsmi_table::ProcessFromRow(line, instance_ids)) {
          processes[row->gpu].push_back(std::move(row->process));
        }
        return;
      case Table::kMig:
        return;
      case Table::kNone:
        Header(line);
        return;
    }
  }

  Result<SystemStatus> Finish() {
    Flush();
    auto fail = [&](const std::string& why) -> Result<SystemStatus> {
      return Error{ErrorCode::kCorrupt,
                   std::string(source) + ": not an nvidia-smi table: " + why};
    };
    if (!error.empty()) return fail(error);
    if (!gpu_header) return fail("no GPU table header ('| GPU  Name ... Bus-Id ... |') found");
    system.nvml_loaded = true;
    for (GpuStatus& gpu : system.gpus) {
      if (!processes_seen) continue;
      auto it = processes.find(gpu.index);
      gpu.processes = it == processes.end() ? std::vector<GpuProcess>{} : it->second;
    }
    return std::move(system);
  }
};

}  // namespace

Result<SystemStatus> ParseNvidiaSmiTable(std::string_view text, std::string_view source_name) {
  Parser parser;
  parser.source = source_name;
  ForEachLine(text, [&parser](std::string_view line) {
    parser.Line(line);
    return true;
  });
  return parser.Finish();
}

bool LooksLikeNvidiaSmiTable(std::string_view head) {
  bool found = false;
  ForEachLine(head, [&found](std::string_view line) {
    line = Trim(line);
    if (line.empty() || line.front() != '|') return true;
    auto words = Words(line.substr(1));
    found = (words.size() >= 3 && words[0] == "NVIDIA-SMI" && Contains(line, "Version:")) ||
            (words.size() >= 2 && words[0] == "GPU" && words[1] == "Name" &&
             Contains(line, "Bus-Id"));
    return !found;
  });
  return found;
}

}  // namespace gpudoctor
