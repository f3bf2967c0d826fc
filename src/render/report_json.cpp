#include "render/report_json.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/gpu_status.h"
#include "core/time_format.h"
#include "render/events_json.h"
#include "render/report_active.h"
#include "render/report_timeline.h"

namespace gpudoctor {
namespace {

using J = nlohmann::ordered_json;

J TimeOrNull(const std::optional<WallTime>& t) { return t ? J(FormatRfc3339(*t)) : J(nullptr); }

J SourceJson(const std::optional<SourceRef>& source) {
  if (!source) return nullptr;
  return J{{"file", source->file}, {"line", source->line}};
}

J Number(double v) {
  // Integers stay integers in JSON; everything else keeps 3 decimals.
  if (std::nearbyint(v) == v && std::fabs(v) < 9e15) return static_cast<std::int64_t>(v);
  return std::round(v * 1000) / 1000;
}

J WindowJson(const DiagnosisInput& input) {
  J w;
  w["from"] = TimeOrNull(input.window_from);
  w["to"] = TimeOrNull(input.window_to);
  if (input.window_from && input.window_to) {
    w["duration_s"] = Number(std::chrono::duration<double>(*input.window_to - *input.window_from).count());
  } else {
    w["duration_s"] = nullptr;
  }
  return w;
}

J HostJson(const DiagnosisInput& input) {
  J h;
  h["hostname"] = input.hostname.empty() ? J(nullptr) : J(input.hostname);
  h["kernel"] = input.kernel_release.empty() ? J(nullptr) : J(input.kernel_release);
  h["driver_version"] = input.driver_version ? J(*input.driver_version) : J(nullptr);
  h["cuda_driver_version"] =
      input.cuda_driver_version ? J(CudaVersionText(*input.cuda_driver_version)) : J(nullptr);
  h["nvml_loaded"] = input.nvml_loaded;
  h["nvml_error"] = input.nvml_error.empty() ? J(nullptr) : J(input.nvml_error);
  h["gpu_count"] = input.gpus.size();
  h["source"] = input.live ? "live" : "files";
  return h;
}

J GpusJson(const ReportContext& r) {
  J out = J::array();
  for (const GpuVerdict& v : r.diagnosis->gpus) {
    J g;
    g["index"] = v.index;
    g["uuid"] = v.uuid.empty() ? J(nullptr) : J(v.uuid);
    g["pci_bus_id"] = v.pci_bus_id;
    g["name"] = v.name;
    g["state"] = v.state;
    g["verdict"] = SeverityName(v.verdict);
    g["recommended_action"] = RecoveryActionName(v.recommended);
    g["findings"] = v.finding_ids;
    const GpuSeries* series = FindGpu(*r.input, v.key);
    J metrics = J::object();
    if (series != nullptr) {
      g["readings"] = series->readings.size();
      for (const auto& [name, s] : ReportMetrics(r, *series)) {
        metrics[name] = J{{"min", Number(s.min)}, {"avg", Number(s.avg)}, {"max", Number(s.max)}};
      }
    }
    g["metrics"] = std::move(metrics);
    J processes = J::array();
    if (series != nullptr) {
      auto summary = [](const std::optional<MetricSummary>& s) {
        return s ? J{{"min", Number(s->min)}, {"avg", Number(s->avg)}, {"max", Number(s->max)}}
                 : J(nullptr);
      };
      auto text = [](const std::string& t) { return t.empty() ? J(nullptr) : J(t); };
      for (const ProcessSummary& p : SummarizeProcesses(*series)) {
        processes.push_back(J{{"pid", p.pid},
                              {"name", p.name},
                              {"user", text(p.user)},
                              {"container_id", text(p.container_id)},
                              {"pod_uid", text(p.pod_uid)},
                              {"readings", p.readings},
                              {"sm_util_percent", summary(p.sm_util_percent)},
                              {"memory_util_percent", summary(p.memory_util_percent)},
                              {"used_memory_max_bytes", p.used_memory_max_bytes
                                                            ? Number(*p.used_memory_max_bytes)
                                                            : J(nullptr)}});
      }
    }
    g["processes"] = std::move(processes);
    if (r.timeline != nullptr) {
      J throttled = J::object();
      for (const auto& t : r.timeline->throttled) {
        if (t.pci_bus_id != v.pci_bus_id) continue;
        for (const auto& [reason, secs] : t.seconds_by_reason) throttled[reason] = Number(secs);
        g["sampled_seconds"] = Number(t.sampled_seconds);
      }
      g["throttled_seconds"] = std::move(throttled);
    }
    out.push_back(std::move(g));
  }
  return out;
}

J EvidenceJson(const std::vector<EvidenceItem>& items, Lang lang) {
  J evidence = J::array();
  for (const EvidenceItem& e : items) {
    J item;
    item["text"] = e.text.In(lang);
    item["value"] = e.value ? Number(*e.value) : J(nullptr);
    item["unit"] = e.unit.empty() ? J(nullptr) : J(e.unit);
    item["source"] = SourceJson(e.source);
    item["time"] = TimeOrNull(e.time);
    evidence.push_back(std::move(item));
  }
  return evidence;
}

}  // namespace

J FindingToJson(const Finding& f, Lang lang) {
  J j;
  j["id"] = f.id;
  j["category"] = f.category;
  j["severity"] = SeverityName(f.severity);
  j["gpus"] = f.gpus;
  j["title"] = f.title.In(lang);
  j["explanation"] = f.explanation.In(lang);
  j["evidence"] = EvidenceJson(f.evidence, lang);
  J actions = J::array();
  for (const Action& a : f.actions) {
    actions.push_back(J{{"text", a.text.In(lang)}, {"command", a.command.empty() ? J(nullptr) : J(a.command)}});
  }
  j["actions"] = std::move(actions);
  j["recommended_action"] = RecoveryActionName(f.recommended.value_or(RecoveryAction::kNone));
  j["recommended_action_by_driver"] = f.recommended_by_driver;
  j["xids"] = f.xids;
  // Folded across GPUs: what the rule said of each GPU alone (empty when the
  // finding is about one GPU or the host).
  J per_gpu = J::array();
  for (const GpuShare& share : f.per_gpu) {
    per_gpu.push_back(J{{"gpu", share.gpu},
                        {"label", share.label},
                        {"title", share.title.In(lang)},
                        {"evidence", EvidenceJson(share.evidence, lang)}});
  }
  j["per_gpu"] = std::move(per_gpu);
  return j;
}

J ReportToJson(const ReportContext& r) {
  J doc;
  doc["schema"] = "gpudoctor.report/v1";
  doc["command"] = r.command;
  doc["lang"] = r.lang == Lang::kZh ? "zh" : "en";
  doc["verdict"] = SeverityName(r.diagnosis->verdict);
  doc["recommended_action"] = RecoveryActionName(r.diagnosis->recommended);
  {
    // The same action in the words of the remediation systems that read it.
    const bool vm = r.input->versions && r.input->versions->stack.virtual_machine.value_or(false);
    const NvsentinelAction nvsentinel = NvsentinelActionFor(r.diagnosis->recommended, vm);
    doc["recommended_action_as"] =
        J{{"gpud", GpudRepairAction(r.diagnosis->recommended)},
          {"nvsentinel", J{{"name", nvsentinel.name}, {"value", nvsentinel.number}}}};
  }
  doc["generated_at"] = FormatRfc3339(r.generated_at);
  doc["window"] = WindowJson(*r.input);
  if (r.interrupted) {
    doc["interrupted"] = J{{"sampled_s", static_cast<double>(r.interrupted->sampled.count()) / 1000.0},
                           {"planned_s", static_cast<double>(r.interrupted->planned.count()) / 1000.0}};
  }
  doc["host"] = HostJson(*r.input);
  if (!r.files.empty()) {
    J files = J::array();
    for (const auto& f : r.files) {
      J file{{"path", f.path}, {"kind", f.kind}, {"ok", f.ok},
             {"error", f.ok ? J(nullptr) : J(f.error)}};
      if (!f.notes.empty()) file["notes"] = f.notes;
      files.push_back(std::move(file));
    }
    doc["inputs"] = std::move(files);
  }
  doc["gpus"] = GpusJson(r);
  doc["events"] = r.input->kernel ? EventsToJson(r.input->kernel->events) : J::array();
  J findings = J::array();
  for (const Finding& f : r.diagnosis->findings) findings.push_back(FindingToJson(f, r.lang));
  doc["findings"] = std::move(findings);
  J not_checked = J::array();
  for (const NotChecked& n : r.diagnosis->not_checked) {
    not_checked.push_back(J{{"rule", n.rule}, {"reason", n.reason.In(r.lang)}});
  }
  doc["not_checked"] = std::move(not_checked);
  doc["rules_run"] = r.diagnosis->rules_run;
  if (r.timeline != nullptr) {
    doc["timeline"] = TimelineToJson(r);
    doc["rdma_ports"] = RdmaPortsToJson(r);
  }
  if (r.input->active) doc["active"] = ActiveRunJson(*r.input);
  return doc;
}

}  // namespace gpudoctor
