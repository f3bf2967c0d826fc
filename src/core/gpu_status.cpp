#include "core/gpu_status.h"

#include <cctype>
#include <cstdio>

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

std::string CudaVersionText(std::int64_t encoded) {
  if (encoded <= 0) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld.%lld",
                static_cast<long long>(encoded / 1000),
                static_cast<long long>((encoded % 1000) / 10));
  return buf;
}

std::string NormalizePciBusId(const std::string& text) {
  // Accept "DDDDDDDD:BB:DD.F", "DDDD:BB:DD.F" and "BB:DD.F".
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  int used = 0;
  std::string lower;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) {
      lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (std::sscanf(lower.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &device,
                  &function, &used) == 4 &&
      used == static_cast<int>(lower.size())) {
  } else if (std::sscanf(lower.c_str(), "%x:%x.%x%n", &bus, &device, &function,
                         &used) == 3 &&
             used == static_cast<int>(lower.size())) {
    domain = 0;
  } else {
    return {};
  }
  if (domain > 0xffff || bus > 0xff || device > 0x1f || function > 7) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, device,
                function);
  return buf;
}

}  // namespace gpudoctor
