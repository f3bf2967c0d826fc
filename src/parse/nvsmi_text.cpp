#include "parse/nvsmi_text.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "parse/nvsmi_text_sections.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor {
namespace {

Error NotNvsmiText(std::string_view source_name, std::string_view why) {
  return Error{ErrorCode::kCorrupt,
               fmt::format("{}: not nvidia-smi -q output: {}", source_name, why)};
}

struct TextLine {
  std::size_t indent = 0;
  std::string label;                      // lower case, trimmed
  std::optional<std::string_view> value;  // nullopt for a section header
  std::string_view raw_label;             // as written, trimmed
};

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// Splits one line; nullopt for blank lines, the banner and "[...]" elisions.
std::optional<TextLine> SplitLine(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  TextLine line;
  while (line.indent < raw.size() && (raw[line.indent] == ' ' || raw[line.indent] == '\t')) {
    ++line.indent;
  }
  std::string_view rest = nvsmi::Trim(raw.substr(line.indent));
  if (rest.empty() || StartsWith(rest, "====")) return std::nullopt;
  if (rest.front() == '[' && rest.back() == ']' && rest.find(':') == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t colon = rest.find(" :");
  std::size_t skip = 2;
  if (colon == std::string_view::npos) {
    colon = rest.find(": ");
    skip = 1;
  }
  if (colon == std::string_view::npos && rest.back() == ':') {
    colon = rest.size() - 1;
    skip = 1;
  }
  if (colon == std::string_view::npos) {
    line.raw_label = rest;
  } else {
    line.raw_label = nvsmi::Trim(rest.substr(0, colon));
    line.value = nvsmi::Trim(rest.substr(colon + skip));
  }
  line.label = Lower(line.raw_label);
  return line;
}

// "GPU 00000000:3B:00.0" -> the normalised bus id; empty for other lines.
std::string GpuHeaderBusId(const TextLine& line) {
  if (line.indent != 0 || line.value || !StartsWith(line.raw_label, "GPU ")) return "";
  return NormalizePciBusId(std::string(nvsmi::Trim(line.raw_label.substr(4))));
}

// "GPU 00000000:3A:25.0" whose address is not a PCI bus id (a device above
// 0x1f, a function above 7): the address as printed; empty for other lines.
std::string GpuHeaderNotBusId(const TextLine& line) {
  if (line.indent != 0 || line.value || !StartsWith(line.raw_label, "GPU ")) return "";
  std::string address(nvsmi::Trim(line.raw_label.substr(4)));
  if (address.find(':') == std::string::npos ||
      address.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos ||
      !NormalizePciBusId(address).empty()) {
    return "";
  }
  return address;
}

bool IsMigBlock(std::string_view lower_label) { return StartsWith(lower_label, "mig device"); }

// Top-level lines; true when the line was one. 610 and later print "KMD
// Version" and "CUDA UMD Version" beside the deprecated "Driver Version" and
// "CUDA Version"; the new names win when both are there.
bool ApplyTopLevel(const TextLine& line, SystemStatus& system, bool& kmd_seen) {
  if (line.indent != 0 || !line.value) return false;
  std::string_view value = nvsmi::WithoutBracketNote(*line.value);
  if (line.label == "kmd version") {
    system.driver_version = nvsmi::ParseText(value);
    kmd_seen = true;
  } else if (line.label == "driver version") {
    if (!kmd_seen || !system.driver_version) system.driver_version = nvsmi::ParseText(value);
  } else if (line.label == "cuda umd version") {
    system.cuda_driver_version = nvsmi::ParseCudaVersion(value);
  } else if (line.label == "cuda version") {
    if (!system.cuda_driver_version) system.cuda_driver_version = nvsmi::ParseCudaVersion(value);
  } else if (line.label != "timestamp" && line.label != "attached gpus") {
    return false;
  }
  return true;
}

bool IsNone(std::string_view value) {
  std::string_view v = nvsmi::Trim(value);
  return v == "None" || v == "none" || v == "NONE";
}

// "Processes" block: "Process ID" opens an entry, "Name" and "Used GPU
// Memory" (nested under it in newer drivers) fill it.
bool ApplyProcess(const std::vector<std::string>& path, std::string_view label,
                  std::optional<std::string_view> value, nvsmi::TextGpu& out) {
  GpuStatus& gpu = out.gpu;
  if (path.empty() && label == "processes") {
    if (!value || IsNone(*value)) gpu.processes.emplace();
    return true;
  }
  if (path.empty() || path[0] != "processes" || !value) return false;
  if (!gpu.processes) gpu.processes.emplace();
  if (label == "process id") {
    auto pid = nvsmi::ParseInteger(*value);
    out.in_process = pid && *pid >= 0 && *pid <= 0xffffffffLL;
    if (out.in_process) {
      GpuProcess process;
      process.pid = static_cast<std::uint32_t>(*pid);
      gpu.processes->push_back(std::move(process));
    }
    return true;
  }
  if (label == "gpu instance id") {
    out.in_process = false;
    return true;
  }
  if (!out.in_process || gpu.processes->empty()) return false;
  if (label == "name") {
    gpu.processes->back().name = nvsmi::ParseText(*value).value_or("");
    return true;
  }
  if (label == "used gpu memory") {
    gpu.processes->back().used_memory_bytes = nvsmi::ParseMemoryBytes(*value);
    return true;
  }
  return false;
}

}  // namespace

Result<SystemStatus> ParseNvidiaSmiText(std::string_view text, std::string_view source_name,
                                        std::vector<std::string>* notes) {
  if (nvsmi::Trim(text).empty()) return NotNvsmiText(source_name, "empty input");
  if (text.find('\0') != std::string_view::npos) {
    return NotNvsmiText(source_name, "binary data (NUL byte)");
  }
  SystemStatus system;
  system.nvml_loaded = true;
  std::vector<nvsmi::TextGpu> gpus;
  std::vector<std::pair<std::size_t, std::string>> stack;  // indent, lower label
  std::vector<std::string> path;
  int top_level = 0;
  bool implicit_gpu = false;
  bool kmd_seen = false;
  bool skipping = false;  // inside the block of a GPU whose header is not a bus id

  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::optional<TextLine> line = SplitLine(text.substr(pos, end - pos));
    pos = end + 1;
    if (!line) continue;

    if (std::string bus_id = GpuHeaderBusId(*line); !bus_id.empty()) {
      gpus.emplace_back();
      gpus.back().gpu.pci_bus_id = std::move(bus_id);
      stack.clear();
      skipping = false;
      continue;
    }
    if (std::string address = GpuHeaderNotBusId(*line); !address.empty()) {
      // Not a GPU anyone can address: its block is left out, not read into
      // the GPU above it.
      if (notes != nullptr) {
        notes->push_back(fmt::format("GPU {} is not a PCI bus id ({}): that GPU's block was left out", address,
                                     PciBusIdProblem(address)));
      }
      skipping = true;
      stack.clear();
      continue;
    }
    if (skipping) continue;
    while (!stack.empty() && stack.back().first >= line->indent) stack.pop_back();
    if (stack.empty() && ApplyTopLevel(*line, system, kmd_seen)) {
      ++top_level;
      continue;
    }
    path.clear();
    bool in_mig = IsMigBlock(line->label);
    for (const auto& entry : stack) {
      path.push_back(entry.second);
      in_mig = in_mig || IsMigBlock(entry.second);
    }
    stack.emplace_back(line->indent, line->label);
    if (in_mig) continue;
    if (gpus.empty()) {
      gpus.emplace_back();
      implicit_gpu = true;
    }
    if (ApplyProcess(path, line->label, line->value, gpus.back())) {
      ++gpus.back().recognised;
    } else {
      nvsmi::ApplyTextField(path, line->label, line->value, gpus.back());
    }
  }

  // A fragment's GPU that recognised nothing is noise, not a GPU: also the
  // one an unknown top-level line above the first "GPU <bus id>" opens.
  if (implicit_gpu && gpus.front().recognised == 0) gpus.erase(gpus.begin());
  if (gpus.empty() && top_level == 0) {
    return NotNvsmiText(source_name, "no GPU block and no known nvidia-smi line");
  }
  unsigned index = 0;
  for (nvsmi::TextGpu& gpu : gpus) {
    nvsmi::FinishTextGpu(gpu);
    gpu.gpu.index = index++;
    system.gpus.push_back(std::move(gpu.gpu));
  }
  return system;
}

bool LooksLikeNvidiaSmiText(std::string_view head) {
  if (head.find('\0') != std::string_view::npos ||
      head.find("<nvidia_smi_log") != std::string_view::npos ||
      StartsWith(nvsmi::Trim(head), "<?xml")) {
    return false;
  }
  if (head.find("NVSMI LOG") != std::string_view::npos) return true;
  bool fabric_header_above = false;
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t end = head.find('\n', pos);
    if (end == std::string_view::npos) end = head.size();
    std::optional<TextLine> line = SplitLine(head.substr(pos, end - pos));
    pos = end + 1;
    if (!line) continue;
    if (!GpuHeaderBusId(*line).empty()) return true;
    for (std::string_view known :
         {"driver version", "kmd version", "cuda version", "product name", "gpu uuid", "attached gpus",
          "ecc errors", "remapped rows", "fb memory usage", "clocks event reasons",
          "clocks throttle reasons"}) {
      if (line->label == known) return true;
    }
    // An excerpt of a GPU's block: its slowdown reasons alone, or its
    // Fabric section (a header, then its State line).
    if (line->value && nvsmi::IsSlowdownReasonLabel(line->label)) return true;
    if (line->value && fabric_header_above && line->label == "state") return true;
    fabric_header_above = !line->value && line->label == "fabric";
  }
  return false;
}

}  // namespace gpudoctor
