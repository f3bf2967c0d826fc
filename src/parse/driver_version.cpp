#include "parse/driver_version.h"
#include "parse/proc_text.h"

#include <charconv>

namespace gpudoctor {
namespace {

std::string_view LineStartingWith(std::string_view text, std::string_view prefix) {
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = Trim(text.substr(pos, end - pos));
    if (line.substr(0, prefix.size()) == prefix) return line;
    pos = end + 1;
  }
  return {};
}

}  // namespace

std::optional<KernelModuleVersion> ParseProcDriverVersion(std::string_view text) {
  const std::string_view line = LineStartingWith(text, "NVRM version:");
  if (line.empty()) return std::nullopt;
  KernelModuleVersion out;
  out.open_module = line.find("Open Kernel Module") != std::string_view::npos;
  // Fields are separated by runs of spaces; the version is the first
  // whitespace-separated token after "Module" (and after "for <arch>" on the
  // open module) that parses as a driver version.
  std::string_view rest = line.substr(
      line.find("Module") == std::string_view::npos ? line.size() : line.find("Module") + 6);
  if (auto unix_pos = line.find("NVIDIA UNIX "); unix_pos != std::string_view::npos) {
    std::string_view after = line.substr(unix_pos + 12);
    const std::string_view first = after.substr(0, after.find(' '));
    if (first != "Open" && first != "Kernel") out.arch = std::string(first);
  }
  std::size_t pos = 0;
  while (pos < rest.size()) {
    const auto b = rest.find_first_not_of(' ', pos);
    if (b == std::string_view::npos) break;
    auto e = rest.find(' ', b);
    if (e == std::string_view::npos) e = rest.size();
    const std::string_view token = rest.substr(b, e - b);
    if (token == "for" && out.arch.empty()) {
      const auto ab = rest.find_first_not_of(' ', e);
      if (ab != std::string_view::npos) {
        auto ae = rest.find(' ', ab);
        if (ae == std::string_view::npos) ae = rest.size();
        out.arch = std::string(rest.substr(ab, ae - ab));
        pos = ae;
        continue;
      }
    }
    if (auto v = ParseDriverVersion(token)) {
      out.version = *v;
      out.build_info = std::string(Trim(rest.substr(e)));
      const std::string_view gcc = LineStartingWith(text, "GCC version:");
      if (!gcc.empty()) out.gcc_version = std::string(Trim(gcc.substr(12)));
      return out;
    }
    pos = e;
  }
  return std::nullopt;
}

std::optional<DriverVersion> DriverVersionFromLibraryName(std::string_view file_name,
                                                          std::string_view library) {
  if (file_name.size() <= library.size() + 1) return std::nullopt;
  if (file_name.substr(0, library.size()) != library || file_name[library.size()] != '.') {
    return std::nullopt;
  }
  return ParseDriverVersion(file_name.substr(library.size() + 1));
}

std::optional<std::uint32_t> ParseNvidiaParam(std::string_view params_text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < params_text.size()) {
    auto end = params_text.find('\n', pos);
    if (end == std::string_view::npos) end = params_text.size();
    const std::string_view line = Trim(params_text.substr(pos, end - pos));
    pos = end + 1;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || Trim(line.substr(0, colon)) != key) continue;
    std::string_view value = Trim(line.substr(colon + 1));
    int base = 10;
    if (value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X')) {
      value.remove_prefix(2);
      base = 16;
    }
    std::uint32_t out = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), out, base);
    if (ec != std::errc() || ptr != value.data() + value.size()) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

GspFirmwareParam DecodeEnableGpuFirmware(std::uint32_t raw) {
  GspFirmwareParam p;
  p.raw = raw;
  switch (raw & 0xFu) {
    case 0:
      p.mode = GspMode::kDisabled;
      break;
    case 1:
      p.mode = GspMode::kEnabled;
      break;
    case 2:
      p.mode = GspMode::kDefault;
      break;
    default:
      p.mode = GspMode::kUnknown;
      break;
  }
  p.allow_fallback = (raw & 0x10u) != 0;
  p.default_on_ws_server = (raw & 0x20u) != 0;
  return p;
}

}  // namespace gpudoctor
