// host.memory_errors: the host's RAM reported errors. EDAC's uncorrected
// (UE) reports and mce's "Uncorrected hardware memory error" are critical:
// the data was lost, a process was killed or the kernel may panic. EDAC's
// corrected (CE) reports and machine checks alone are a warning: the
// hardware fixed them, but a DIMM that keeps correcting is failing. Each
// DIMM is named as the firmware labels it. The firmware's own reports
// (APEI GHES: "section_type: memory error") count by their severity:
// "corrected" as corrected, "recoverable" and "fatal" as uncorrected. (The GPU's own memory errors are
// xid.memory's and ecc.*'s.)
#include <fmt/format.h>

#include <map>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "parse/kernel_catalog_host.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_memory_errors_rule {

using events::EventList;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList errors = events::EventsOfKind(input, {KernelEventKind::kMemoryError});
  if (errors.empty()) return;
  std::map<std::string, std::size_t> corrected, uncorrected;
  std::size_t machine_checks = 0;
  EventList shown;
  for (const KernelEvent* e : errors) {
    if (e->detail == kevents::kGhesReport) {
      // The firmware's report: a memory error, or some other part's.
      kevents::GhesMemoryError ghes = kevents::ReadGhesReport(*e);
      if (!ghes.memory) continue;
      std::string where = ghes.dimm.empty() ? "memory" : ghes.dimm;
      (ghes.severity == "corrected" ? corrected : uncorrected)[where] += e->count;
      shown.push_back(e);
      continue;
    }
    shown.push_back(e);
    auto [kind, where] = host_events::SplitDetail(e->detail);
    if (kind.empty()) {
      machine_checks += e->count;
      continue;
    }
    (kind == "corrected" ? corrected : uncorrected)[where] += e->count;
  }
  if (shown.empty()) return;
  const bool critical = !uncorrected.empty();
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::string en, zh;
  auto part = [&](const std::map<std::string, std::size_t>& m, std::string_view word_en,
                  std::string_view word_zh) {
    for (const auto& [where, n] : m) {
      en += (en.empty() ? "" : ", ") + fmt::format("{} {} on `{}`", n, word_en, where);
      zh += (zh.empty() ? "" : "，") + fmt::format("`{}` 上 {} 次{}", where, n, word_zh);
    }
  };
  part(uncorrected, "uncorrected", "不可纠正错误");
  part(corrected, "corrected", "可纠正错误");
  if (machine_checks > 0) {
    en += (en.empty() ? "" : ", ") + fmt::format("{} machine-check {}", machine_checks,
                                                 machine_checks == 1 ? "report" : "reports");
    zh += (zh.empty() ? "" : "，") + fmt::format("{} 次机器检查报告", machine_checks);
  }
  f.title = Text{"Host memory errors: " + en, "主机内存错误：" + zh};
  f.explanation =
      critical ? Text{"The host's RAM returned data it could not correct: the process using it "
                      "was killed, or the kernel may panic. The DIMM named is failing.",
                      "主机内存返回了无法纠正的数据：使用它的进程被终止，或内核可能 "
                      "panic。所指的内存条正在损坏。"}
               : Text{"The host's RAM corrected errors (or the CPU logged machine checks). "
                      "Nothing was lost yet, but a DIMM that keeps correcting errors usually "
                      "fails outright later.",
                      "主机内存纠正了错误（或 CPU "
                      "记录了机器检查）。尚未丢失数据，但持续出现可纠正错误的内存条通常随后会彻底"
                      "损坏。"};
  events::AddEventEvidence(f, shown);
  f.actions.push_back(
      Action{Text{"Read the error counts per DIMM.", "查看各内存条的错误计数。"},
             "sudo ras-mc-ctl --error-count || grep -H . "
             "/sys/devices/system/edac/mc/mc*/dimm*/dimm_{label,ce_count,ue_count}"});
  if (machine_checks > 0) {
    f.actions.push_back(Action{Text{"Decode the machine checks.", "解码机器检查记录。"},
                               "sudo ras-mc-ctl --errors; sudo journalctl -k | grep -i mce"});
  }
  f.actions.push_back(Action{
      Text{critical ? "Drain the node and replace the DIMM named; on a cloud instance, stop and "
                      "start it to move to another host, and tell the provider."
                    : "Plan to replace the DIMM named if its count keeps rising; on a cloud "
                      "instance, tell the provider.",
           critical ? "排空节点并更换所指的内存条；在云实例上请停止再启动实例以迁移到其他宿主机，"
                      "并告知云厂商。"
                    : "若该内存条的计数持续上升，请计划更换；在云实例上请告知云厂商。"},
      ""});
}

}  // namespace host_memory_errors_rule
}  // namespace

const Rule kHostMemoryErrorsRule{"host.memory_errors", "host",
                                 "Host RAM errors: EDAC corrected and uncorrected reports per "
                                 "DIMM, machine checks",
                                 kNeedsKernelLog, host_memory_errors_rule::Evaluate};

}  // namespace gpudoctor
