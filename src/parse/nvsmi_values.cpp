#include "parse/nvsmi_values.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace gpudoctor::nvsmi {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

char Lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

// A double that fits an int64 after rounding, or nullopt.
std::optional<std::int64_t> ToInt64(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return std::nullopt;
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  constexpr double kLimit = 9223372036854775808.0;
  double rounded = std::round(*value);
  if (rounded >= kLimit || rounded < -kLimit) return std::nullopt;
  return static_cast<std::int64_t>(rounded);
}

std::optional<std::int64_t> Scaled(std::optional<double> value, double factor) {
  if (!value) return std::nullopt;
  return ToInt64(*value * factor);
}

}  // namespace

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

namespace {

// The trimmed text without the square brackets nvidia-smi puts around some
// values ("[N/A]").
std::string_view Unbracketed(std::string_view text) {
  text = Trim(text);
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    text = Trim(text.substr(1, text.size() - 2));
  }
  return text;
}

}  // namespace

bool IsUnavailable(std::string_view text) {
  static constexpr std::array<std::string_view, 12> kMissing = {
      "n/a",           "not supported",
      "unknown error", "requested functionality has been deprecated",
      "err!",          "insufficient permissions",
      "no permission", "gpu is lost",
      "not available", "unknown",
      "not found",     "gpu requires reset",
  };
  text = Unbracketed(text);
  if (text.empty()) return true;
  for (std::string_view missing : kMissing) {
    if (EqualsIgnoreCase(text, missing)) return true;
  }
  return false;
}

std::optional<std::string> QueryFailure(std::string_view text) {
  struct Failure {
    std::string_view text;
    std::string_view code;
  };
  static constexpr std::array<Failure, 4> kFailures = {{
      {"unknown error", "NVML_ERROR_UNKNOWN"},
      {"gpu is lost", "NVML_ERROR_GPU_IS_LOST"},
      {"gpu requires reset", "NVML_ERROR_RESET_REQUIRED"},
      {"err!", "ERR!"},
  }};
  text = Unbracketed(text);
  for (const Failure& f : kFailures) {
    if (!EqualsIgnoreCase(text, f.text)) continue;
    if (f.code == "ERR!") return std::string("ERR!");
    return std::string(text) + " (" + std::string(f.code) + ")";
  }
  return std::nullopt;
}

bool CountsQueryFailure(std::string_view field) {
  static constexpr std::array<std::string_view, 15> kCounted = {
      "name",           "fan_speed_percent",       "pstate",
      "persistence_mode", "utilization_gpu_percent", "utilization_memory_percent",
      "memory_used_bytes", "memory_total_bytes",   "temperature_c",
      "power_draw_w",   "clocks_graphics_mhz",     "clocks_sm_mhz",
      "clocks_memory_mhz", "ecc_mode_enabled",     "pcie_link_gen_current",
  };
  return std::find(kCounted.begin(), kCounted.end(), field) != kCounted.end();
}

void MarkLostFromFailures(GpuStatus& gpu) {
  for (const auto& [field, error] : gpu.field_errors) {
    if (error.find("NVML_ERROR_GPU_IS_LOST") == std::string::npos) continue;
    gpu.state = GpuState::kLost;
    gpu.state_detail = "nvidia-smi printed \"GPU is lost\" for " + field;
    return;
  }
}

std::optional<std::string> ParseText(std::string_view text) {
  if (IsUnavailable(text)) return std::nullopt;
  return std::string(Trim(text));
}

std::string_view WithoutBracketNote(std::string_view value) {
  value = Trim(value);
  if (!value.empty() && value.back() == ']') {
    if (std::size_t open = value.rfind(" ["); open != std::string_view::npos) {
      value = Trim(value.substr(0, open));
    }
  }
  return value;
}

std::optional<double> ParseQuantity(std::string_view text,
                                    std::string_view unit) {
  text = Trim(text);
  double value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  if (begin != end && *begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string_view rest = Trim(std::string_view(ptr, end - ptr));
  if (rest != unit) return std::nullopt;
  return value;
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  text = Trim(text);
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> ParseMemoryBytes(std::string_view text) {
  struct Unit {
    std::string_view name;
    double factor;
  };
  static constexpr std::array<Unit, 5> kUnits = {{
      {"MiB", 1024.0 * 1024.0},
      {"GiB", 1024.0 * 1024.0 * 1024.0},
      {"KiB", 1024.0},
      {"TiB", 1024.0 * 1024.0 * 1024.0 * 1024.0},
      {"B", 1.0},
  }};
  for (const Unit& unit : kUnits) {
    if (auto value = ParseQuantity(text, unit.name)) {
      if (*value < 0) return std::nullopt;
      return Scaled(value, unit.factor);
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> ParsePercent(std::string_view text) {
  return ToInt64(ParseQuantity(text, "%"));
}

std::optional<std::int64_t> ParseCelsius(std::string_view text) {
  return ToInt64(ParseQuantity(text, "C"));
}

std::optional<double> ParseWatts(std::string_view text) {
  return ParseQuantity(text, "W");
}

std::optional<std::int64_t> ParseMegahertz(std::string_view text) {
  return ToInt64(ParseQuantity(text, "MHz"));
}

std::optional<std::int64_t> ParseKilobytesPerSecond(std::string_view text) {
  return Scaled(ParseQuantity(text, "KB/s"), 1024.0);
}

std::optional<std::int64_t> ParseMicroseconds(std::string_view text) {
  return ToInt64(ParseQuantity(text, "us"));
}

std::optional<std::int64_t> ParseLinkWidth(std::string_view text) {
  return ToInt64(ParseQuantity(text, "x"));
}

std::optional<std::int64_t> ParsePstate(std::string_view text) {
  text = Trim(text);
  if (text.size() < 2 || (text[0] != 'P' && text[0] != 'p')) {
    return std::nullopt;
  }
  auto value = ParseInteger(text.substr(1));
  if (!value || *value < 0 || *value > 15) return std::nullopt;
  return value;
}

std::optional<std::int64_t> ParseCudaVersion(std::string_view text) {
  text = Trim(text);
  std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto major = ParseInteger(text.substr(0, dot));
  auto minor = ParseInteger(text.substr(dot + 1));
  if (!major || !minor || *major < 0 || *major > 1000 || *minor < 0 ||
      *minor > 99) {
    return std::nullopt;
  }
  return *major * 1000 + *minor * 10;
}

std::optional<bool> ParseEnabled(std::string_view text) {
  text = Trim(text);
  if (EqualsIgnoreCase(text, "Enabled")) return true;
  if (EqualsIgnoreCase(text, "Disabled")) return false;
  return std::nullopt;
}

std::optional<bool> ParseYesNo(std::string_view text) {
  text = Trim(text);
  if (EqualsIgnoreCase(text, "Yes")) return true;
  if (EqualsIgnoreCase(text, "No")) return false;
  return std::nullopt;
}

std::optional<bool> ParseActive(std::string_view text) {
  text = Trim(text);
  if (EqualsIgnoreCase(text, "Active")) return true;
  if (EqualsIgnoreCase(text, "Not Active")) return false;
  return std::nullopt;
}

std::optional<std::string> NormalizeComputeMode(std::string_view text) {
  struct Spelling {
    std::string_view text;
    std::string_view mode;
  };
  static constexpr std::array<Spelling, 9> kSpellings = {{
      {"Default", "Default"},
      {"Exclusive_Process", "Exclusive_Process"},
      {"Exclusive Process", "Exclusive_Process"},
      {"E. Process", "Exclusive_Process"},
      {"Prohibited", "Prohibited"},
      {"Exclusive_Thread", "Exclusive_Thread"},
      {"Exclusive Thread", "Exclusive_Thread"},
      {"E. Thread", "Exclusive_Thread"},
      {"Exclusive", "Exclusive_Process"},
  }};
  text = Trim(text);
  for (const Spelling& s : kSpellings) {
    if (EqualsIgnoreCase(text, s.text)) return std::string(s.mode);
  }
  return std::nullopt;
}

}  // namespace gpudoctor::nvsmi
