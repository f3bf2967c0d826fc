// FixToJson: schema gpudoctor.fix/v1.
#include <nlohmann/json.hpp>

#include "fix/plan_text.h"

#include "core/json_dump.h"

namespace gpudoctor {
namespace {

using J = nlohmann::ordered_json;

J OrNull(const std::string& s) { return s.empty() ? J(nullptr) : J(s); }

J StepJson(const FixStep& s, const StepResult* r, Lang lang) {
  J j;
  j["action"] = StepActionName(s.action);
  j["finding"] = OrNull(s.finding_id);
  j["gpu"] = s.gpu_index ? J(*s.gpu_index) : J(nullptr);
  j["pci_bus_id"] = OrNull(s.pci_bus_id);
  j["uuid"] = OrNull(s.uuid);
  j["automatic"] = s.automatic;
  j["safe_with_processes"] = s.safe_with_processes;
  j["risk"] = RiskName(s.risk);
  j["what"] = s.what.In(lang);
  j["command"] = OrNull(s.command);
  j["field"] = OrNull(s.field);
  j["before"] = OrNull(s.before);
  j["target"] = OrNull(s.target);
  J procs = J::array();
  for (const GpuProcess& p : s.processes) procs.push_back(J{{"pid", p.pid}, {"name", p.name}});
  j["processes"] = std::move(procs);
  j["skipped"] = s.skipped;
  j["skip_reason"] = s.skipped ? J(s.skip_reason.In(lang)) : J(nullptr);
  j["note"] = OrNull(s.note.In(lang));
  if (r != nullptr) {
    j["outcome"] = StepOutcomeName(r->outcome);
    j["error"] = OrNull(r->error);
    j["after"] = OrNull(r->after);
    j["finding_gone"] = r->finding_gone ? J(*r->finding_gone) : J(nullptr);
  }
  return j;
}

}  // namespace

std::string FixToJson(const FixView& v) {
  J doc;
  doc["schema"] = "gpudoctor.fix/v1";
  doc["lang"] = v.lang == Lang::kZh ? "zh" : "en";
  doc["source"] = v.report_file.empty() ? J{{"kind", "live"}, {"file", nullptr}}
                                        : J{{"kind", "report"}, {"file", v.report_file}};
  doc["applied"] = v.results != nullptr;
  J steps = J::array();
  for (std::size_t i = 0; i < v.plan->steps.size(); ++i) {
    const StepResult* r = v.results != nullptr ? &(*v.results)[i] : nullptr;
    steps.push_back(StepJson(v.plan->steps[i], r, v.lang));
  }
  doc["steps"] = std::move(steps);
  doc["unaddressed"] = v.plan->unaddressed;
  doc["audit_log"] = OrNull(v.audit_log);
  return DumpJson(doc, 2) + "\n";
}

}  // namespace gpudoctor
