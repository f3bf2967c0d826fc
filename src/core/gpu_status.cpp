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

namespace {
namespace pci_bus_id_detail {

struct PciParts {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
};

// Reads "DDDDDDDD:BB:DD.F", "DDDD:BB:DD.F", "BB:DD.F" and the kernel log's
// "DDDD:BB:DD" (function 0), each also after the driver's "PCI:". Returns
// why the text is not a bus id, or empty when `out` holds it.
std::string Parse(const std::string& text, PciParts& out) {
  std::string lower;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  std::string_view rest = lower;
  if (rest.substr(0, 4) == "pci:") rest.remove_prefix(4);  // the driver's "PCI:0000:18:00"
  if (auto dot = rest.rfind('.'); dot != std::string_view::npos) {
    if (!ParseHex(rest.substr(dot + 1), 1, &out.function))
      return "the function is not one hex digit";
    rest = rest.substr(0, dot);
  } else if (std::count(rest.begin(), rest.end(), ':') != 2) {
    return "not domain:bus:device[.function]";  // without a function only the full form
  }
  std::vector<std::string_view> parts;
  while (true) {
    auto colon = rest.find(':');
    parts.push_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (parts.size() == 3) {
    if (!ParseHex(parts[0], 8, &out.domain)) return "the domain is not 1 to 8 hex digits";
    parts.erase(parts.begin());
  } else if (parts.size() != 2) {
    return "not domain:bus:device[.function]";
  }
  if (!ParseHex(parts[0], 2, &out.bus)) return "the bus is not 1 or 2 hex digits";
  if (!ParseHex(parts[1], 2, &out.device)) return "the device is not 1 or 2 hex digits";
  char why[64];
  if (out.domain > 0xffff) {
    std::snprintf(why, sizeof why, "domain 0x%x is above 0xffff", out.domain);
    return why;
  }
  if (out.device > 0x1f) {
    std::snprintf(why, sizeof why, "device 0x%x is above 0x1f", out.device);
    return why;
  }
  if (out.function > 7) {
    std::snprintf(why, sizeof why, "function %u is above 7", out.function);
    return why;
  }
  return {};
}

}  // namespace pci_bus_id_detail
}  // namespace

std::string NormalizePciBusId(const std::string& text) {
  pci_bus_id_detail::PciParts p;
  if (!pci_bus_id_detail::Parse(text, p).empty()) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", p.domain, p.bus, p.device, p.function);
  return buf;
}

std::string PciBusIdProblem(const std::string& text) {
  pci_bus_id_detail::PciParts p;
  return pci_bus_id_detail::Parse(text, p);
}

}  // namespace gpudoctor
