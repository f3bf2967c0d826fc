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
  if (e.count > 1 && e.last_time) j["last_time"] = FormatRfc3339(*e.last_time);
  if (e.varied_count > 0) {
    // A flood: lines of the same cause that differ from this one, counted in.
    j["varied_count"] = e.varied_count;
    J others = J::array();
    for (const EventProcess& p : e.other_processes) {
      others.push_back(J{{"pid", p.pid ? J(*p.pid) : J(nullptr)},
                         {"process", p.name.empty() ? J(nullptr) : J(p.name)}});
    }
    j["other_processes"] = std::move(others);
    j["other_processes_left_out"] = e.other_processes_left_out;
    if (e.other_processes_left_out_is_floor) j["other_processes_left_out_is_floor"] = true;
  }
  j["source"] = {{"file", e.source.file}, {"line", e.source.line}};
  if (!e.detail.empty()) j["detail"] = e.detail;
  if (!e.continuation.empty()) j["continuation"] = e.continuation;
  if (e.continuation_left_out > 0) j["continuation_left_out"] = e.continuation_left_out;
  return j;
}

nlohmann::ordered_json EventsToJson(const std::vector<KernelEvent>& events) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& e : events) out.push_back(EventToJson(e));
  return out;
}

}  // namespace gpudoctor
