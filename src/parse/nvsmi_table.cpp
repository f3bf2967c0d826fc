// The default nvidia-smi table: its banner, then up to three tables, each a
// title or column header, a "|===|" line and a body of rows between "+---+"
// rules. Which table a body belongs to is told by its header.
#include "parse/nvsmi_table.h"

#include <deque>
#include <map>
#include <string>
#include <vector>

#include "parse/nvsmi_table_rows.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor {
namespace {

using nvsmi_table::Cells;
using nvsmi_table::Words;

enum class Table { kNone, kGpus, kMig, kProcesses };

// More GPU rows than any machine has: a damaged or made-up file.
constexpr std::size_t kMaxTableGpus = 1024;

bool Contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// A line of only '|', '+', '-', '=' (and spaces) with at least one '-' or '='.
bool IsRule(std::string_view line) {
  line = nvsmi::Trim(line);
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

// "|   0  NVIDIA GeForce RTX 2080 ...    Off |   00000000:0C:00.0 Off | ...":
// the first row of a GPU block, told by its index and its bus id, for a
// fragment pasted without the banner and the column header.
bool IsGpuFirstRow(std::string_view line) {
  if (!StartsWithIndex(line)) return false;
  auto cells = Cells(line);
  if (cells.size() < 2) return false;
  auto words = Words(cells[1]);
  return !words.empty() && !NormalizePciBusId(std::string(words[0])).empty();
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
  nvsmi_table::ProcessColumns process_columns;
  std::vector<std::string_view> block;
  std::map<std::string, std::size_t> by_bus_id;  // position in system.gpus
  std::string error;

  void Flush() {
    if (block.empty()) return;
    auto gpu = nvsmi_table::GpuFromBlock(block);
    if (!gpu && error.empty()) {
      error = "GPU row '" + std::string(nvsmi::Trim(block[0]).substr(0, 60)) +
              "' is not a row of the GPU table";
    }
    block.clear();
    if (!gpu) return;
    // The same GPU twice in one table (pasted twice): the later row wins.
    if (!gpu->pci_bus_id.empty()) {
      auto [it, added] = by_bus_id.emplace(gpu->pci_bus_id, system.gpus.size());
      if (!added) {
        system.gpus[it->second] = std::move(*gpu);
        return;
      }
    }
    if (system.gpus.size() >= kMaxTableGpus) {
      if (error.empty()) error = "more than " + std::to_string(kMaxTableGpus) + " GPU rows";
      return;
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
    } else if (Contains(first, "Processes:") || Contains(first, "processes:")) {
      header = Table::kProcesses;  // "Compute processes:" before driver 340
      processes_seen = true;
      processes.clear();  // a later list replaces an earlier one
      process_columns = {};
    } else if (header == Table::kProcesses && Contains(first, "PID")) {
      process_columns.instance_ids = Contains(first, " GI ");
      process_columns.type = Contains(first, " Type ");
    }
  }

  void Line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view trimmed = nvsmi::Trim(line);
    // A blank line, or text that is no table line (a date, a prompt), ends a table.
    if (trimmed.empty() || (trimmed.front() != '|' && trimmed.front() != '+')) {
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
        if (StartsWithIndex(line)) {
          Flush();  // the next GPU, even without a rule between them
        } else if (block.empty()) {  // a table right after, no blank line
          body = Table::kNone;
          Header(line);
          return;
        }
        if (!Cells(line).empty()) block.push_back(line);
        return;
      case Table::kProcesses:
        if (auto row = nvsmi_table::ProcessFromRow(line, process_columns)) {
          processes[row->gpu].push_back(std::move(row->process));
        }
        return;
      case Table::kMig:
        return;
      case Table::kNone:
        if (header == Table::kNone && IsGpuFirstRow(line)) {
          body = Table::kGpus;  // rows pasted without their header
          gpu_header = true;
          block.push_back(line);
          return;
        }
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

std::vector<std::string_view> SplitNvidiaSmiTables(std::string_view text) {
  std::deque<std::size_t> starts = {0};
  std::size_t prev = std::string_view::npos, before_prev = std::string_view::npos;
  bool header_seen = false;  // a GPU header since the last start
  ForEachLine(text, [&](std::string_view line) {
    std::size_t at = static_cast<std::size_t>(line.data() - text.data());
    std::string_view trimmed = nvsmi::Trim(line);
    if (!trimmed.empty() && trimmed.front() == '|' && Contains(trimmed, "NVIDIA-SMI ") &&
        Contains(trimmed, "Version:")) {
      if (header_seen) {
        // Back over the rule above the banner, then over a date line above that.
        std::size_t start = at;
        auto line_at = [&](std::size_t pos) {
          return nvsmi::Trim(text.substr(pos, text.find('\n', pos) - pos));
        };
        if (prev != std::string_view::npos && IsRule(line_at(prev))) {
          start = prev;
          if (before_prev != std::string_view::npos) {
            std::string_view above = line_at(before_prev);
            if (!above.empty() && above.front() != '|' && above.front() != '+') start = before_prev;
          }
        }
        if (starts.size() == kMaxTables) starts.pop_front();  // keep the latest
        starts.push_back(start);
        header_seen = false;
      }
    } else if (!trimmed.empty() && trimmed.front() == '|' && Contains(trimmed, "Bus-Id")) {
      header_seen = true;
    }
    before_prev = prev;
    prev = at;
    return true;
  });
  std::vector<std::string_view> tables;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    std::size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
    tables.push_back(text.substr(starts[i], end - starts[i]));
  }
  return tables;
}

bool LooksLikeNvidiaSmiTable(std::string_view head) {
  bool found = false;
  ForEachLine(head, [&found](std::string_view line) {
    line = nvsmi::Trim(line);
    if (line.empty() || line.front() != '|') return true;
    auto words = Words(line.substr(1));
    found = (words.size() >= 3 && words[0] == "NVIDIA-SMI" && Contains(line, "Version:")) ||
            (words.size() >= 2 && words[0] == "GPU" && words[1] == "Name" &&
             Contains(line, "Bus-Id")) ||
            IsGpuFirstRow(line);
    return !found;
  });
  return found;
}

}  // namespace gpudoctor
