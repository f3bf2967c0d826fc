#include "core/gpu_status.h"

#include <cctype>
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <vector>

namespace gpudoctor {

const char* GpuStateName(GpuState state) {
  switch (state) {
    case GpuState::kOk: return "ok";
    case GpuState::kLost: return "lost";
    case GpuState::kHung: return "hung";
    case GpuState::kError: return "error";
  }
  return "error";
}

std::string MigProfileOfName(std::string_view mig_device_name) {
  const auto at = mig_device_name.rfind(" MIG ");
  if (at == std::string_view::npos) return {};
  std::string_view profile = mig_device_name.substr(at + 5);
  while (!profile.empty() && profile.back() == ' ') profile.remove_suffix(1);
  // One word ("1g.10gb", "1g.10gb+me"): anything else is not a profile.
  if (profile.empty() || profile.find(' ') != std::string_view::npos) return {};
  // A compute instance's share of its GPU instance ("1c.3g.40gb") is not
  // part of the GPU instance's profile.
  if (const auto dot = profile.find('.'); dot != std::string_view::npos && dot > 1 &&
                                          profile[dot - 1] == 'c' &&
                                          profile.find('.', dot + 1) != std::string_view::npos) {
    profile.remove_prefix(dot + 1);
  }
  return std::string(profile);
}

std::string CudaVersionText(std::int64_t encoded) {
  if (encoded <= 0) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%lld",
                static_cast<long long>(encoded / 1000),
                static_cast<long long>((encoded % 1000) / 10));
  return buf;
}

namespace {

// Parses 1..max_digits hex digits that make up all of `text`.
bool ParseHex(std::string_view text, std::size_t max_digits, unsigned* out) {
  if (text.empty() || text.size() > max_digits) return false;
  unsigned value = 0;
  for (char c : text) {
    int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : (c >= 'a' && c <= 'f')                     ? c - 'a' + 10
                                                             : -1;
    if (digit < 0) return false;
    value = value * 16 + static_cast<unsigned>(digit);
  }
  *out = value;
  return true;
}

}  // namespace

std::string NormalizePciBusId(const std::string& text) {
  // Accept "DDDDDDDD:BB:DD.F", "DDDD:BB:DD.F", "BB:DD.F" and the kernel log's
  // "DDDD:BB:DD" (function 0).
  std::string lower;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  std::string_view rest = lower;
  unsigned function = 0;
  if (auto dot = rest.rfind('.'); dot != std::string_view::npos) {
    if (!ParseHex(rest.substr(dot + 1), 1, &function)) return {};
    rest = rest.substr(0, dot);
  } else if (std::count(lower.begin(), lower.end(), ':') != 2) {
    return {};  // without a function only the full domain:bus:device form
  }
  std::vector<std::string_view> parts;
  while (true) {
    auto colon = rest.find(':');
    parts.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  unsigned domain = 0, bus = 0, device = 0;
  if (parts.size() == 3) {
    if (!ParseHex(parts[0], 8, &domain)) return {};
    parts.erase(parts.begin());
  } else if (parts.size() != 2) {
    return {};
  }
  if (!ParseHex(parts[0], 2, &bus) || !ParseHex(parts[1], 2, &device)) return {};
  if (domain > 0xffff || device > 0x1f || function > 7) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device, function);
  return buf;
}

}  // namespace gpudoctor
