#include "parse/gpu_stack.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "parse/proc_text.h"
#include "parse/version_numbers.h"

namespace gpudoctor {

namespace {
namespace gpu_stack_parse {

constexpr std::size_t kExtendedStart = 0x100;
constexpr std::size_t kConfigSize = 4096;
constexpr std::uint32_t kAcsId = 0x000d;

std::uint32_t Le32(std::string_view b, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  }
  return v;
}

}  // namespace gpu_stack_parse
}  // namespace

std::optional<std::uint16_t> AcsControl(std::string_view config) {
  using gpu_stack_parse::Le32;
  if (config.size() < gpu_stack_parse::kConfigSize) return std::nullopt;
  std::size_t at = gpu_stack_parse::kExtendedStart;
  for (int guard = 0; guard < 256 && at >= gpu_stack_parse::kExtendedStart &&
                      at + 8 <= gpu_stack_parse::kConfigSize;
       ++guard) {
    const std::uint32_t header = Le32(config, at);
    if (header == 0 || header == 0xffffffffu) return std::nullopt;
    if ((header & 0xffffu) == gpu_stack_parse::kAcsId) {
      return static_cast<std::uint16_t>(Le32(config, at + 4) >> 16);
    }
    at = (header >> 20) & 0xffcu;
  }
  return std::nullopt;
}

std::vector<std::string> ModuleNames(std::string_view proc_modules) {
  std::vector<std::string> out;
  for (std::string_view line : SplitLines(proc_modules)) {
    auto words = SplitWords(line);
    if (!words.empty()) out.emplace_back(words[0]);
  }
  return out;
}

bool CpuinfoHasHypervisor(std::string_view cpuinfo) {
  for (std::string_view line : SplitLines(cpuinfo)) {
    if (line.substr(0, 5) != "flags") continue;
    for (std::string_view w : SplitWords(line)) {
      if (w == "hypervisor") return true;
    }
  }
  return false;
}

std::vector<DriverVersion> CdiDriverVersions(std::string_view spec) {
  std::vector<DriverVersion> out;
  for (std::string_view lib : {"libcuda.so.", "libnvidia-ml.so."}) {
    for (std::size_t at = spec.find(lib); at != std::string_view::npos;
         at = spec.find(lib, at + 1)) {
      std::size_t start = at + lib.size();
      std::size_t end = start;
      while (end < spec.size() &&
             (std::isdigit(static_cast<unsigned char>(spec[end])) != 0 || spec[end] == '.')) {
        ++end;
      }
      std::string_view text = spec.substr(start, end - start);
      while (!text.empty() && text.back() == '.') text.remove_suffix(1);
      if (text.find('.') == std::string_view::npos) continue;  // "libcuda.so.1"
      auto v = ParseDriverVersion(text);
      if (v && std::find(out.begin(), out.end(), *v) == out.end()) out.push_back(*v);
    }
  }
  return out;
}

std::optional<bool> DockerNamesNvidiaRuntime(std::string_view daemon_json) {
  auto doc = nlohmann::json::parse(daemon_json, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto runtimes = doc.find("runtimes");
  if (runtimes != doc.end() && runtimes->is_object() && runtimes->contains("nvidia")) return true;
  auto def = doc.find("default-runtime");
  return def != doc.end() && def->is_string() && def->get<std::string>() == "nvidia";
}

bool ContainerdConfigNamesNvidia(std::string_view toml) {
  for (std::string_view line : SplitLines(toml)) {
    std::string_view t = Trim(line);
    if (t.empty() || t.front() == '#') continue;
    if (t.find("runtimes.nvidia]") != std::string_view::npos ||
        t.find("runtimes.\"nvidia\"]") != std::string_view::npos ||
        t.find("nvidia-container-runtime") != std::string_view::npos) {
      return true;
    }
    std::string compact;
    for (char c : t) {
      if (c != ' ' && c != '\t') compact += c;
    }
    if (compact == "enable_cdi=true") return true;
  }
  return false;
}

}  // namespace gpudoctor
