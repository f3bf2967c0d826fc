#include "render/events_json.h"

#include <nlohmann/json.hpp>

#include "core/time_format.h"

namespace gpudoctor {

nlohmann::ordered_json EventToJson(const KernelEvent& e) {
  using J = nlohmann::ordered_json;
  J j;
  j["time"] = e.time ? J(FormatRfc3339(*e.time)) : J(nullptr);
  j["kind"] = KernelEventKindName(e.kind);
  j["code"] = e.code ? J(*e.code) : J(nullptr);
  j["pci_bus_id"] = e.pci_bus_id.empty() ? J(nullptr) : J(e.pci_bus_id);
  if (e.gpu_number) j["gpu_number"] = *e.gpu_number;  // the driver's "GPUn" (GSP lines)
  j["pid"] = e.pid ? J(*e.pid) : J(nullptr);
  j["process"] = e.process.empty() ? J(nullptr) : J(e.process);
  j["message"] = e.message;
  j["count"] = e.count;
  j["source"] = {{"file", e.source.file}, {"line", e.source.line}};
  if (!e.detail.empty()) j["detail"] = e.detail;
  if (!e.continuation.empty()) j["continuation"] = e.continuation;
  return j;
}

nlohmann::ordered_json EventsToJson(const std::vector<KernelEvent>& events) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& e : events) out.push_back(EventToJson(e));
  return out;
}

}  // namespace gpudoctor
