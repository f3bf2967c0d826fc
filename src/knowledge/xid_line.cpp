#include "knowledge/xid_line.h"

#include <fmt/format.h>

#include "core/gpu_status.h"
#include "knowledge/xid_catalog.h"

namespace gpudoctor {

Result<std::string> XidKernelLine(int code, std::string_view gpu_bus_id) {
  const XidInfo& info = LookupXid(code);
  if (!info.in_catalog || info.unused) {
    return Error{ErrorCode::kInvalid,
                 fmt::format("--xid {}: not an Xid NVIDIA's catalog documents", code)};
  }
  const std::string bus = NormalizePciBusId(std::string(gpu_bus_id));
  if (bus.empty()) {
    return Error{ErrorCode::kInvalid, fmt::format("--gpu {}: not a PCI bus id ({})", gpu_bus_id,
                                                  PciBusIdProblem(std::string(gpu_bus_id)))};
  }
  // The driver names the device without its function: "PCI:0000:18:00".
  const std::string device = bus.substr(0, bus.rfind('.'));
  std::string meaning = info.meaning;
  if (!meaning.empty() && meaning.back() != '.') meaning += '.';
  return fmt::format("NVRM: Xid (PCI:{}): {}, pid='<unknown>', name=<unknown>, {}", device, code,
                     meaning);
}

}  // namespace gpudoctor
