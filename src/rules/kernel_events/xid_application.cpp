// xid.application: Xids that an application usually causes (the catalog's
// application category: 13 graphics exception, 31 MMU fault, 43, ...) and
// Xid 45 (the driver cleaning up a process's GPU work after an error). Who
// caused them decides the verdict: one program repeating them is an
// application bug (warning, or info when few); different programs on one
// GPU point to that GPU (NVIDIA's WORKFLOW_XID_13/31: run diagnostics);
// different programs on several GPUs may be the driver. Xid 45 after another
// Xid is a consequence (info).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_application_rule {

using events::EventList;

// An application fault seen this many times is worth a warning.
constexpr std::size_t kManyFaults = 3;

// Pids listed per program name before the rest are only counted.
constexpr std::size_t kPidsListed = 12;

struct Spread {
  std::map<std::string, std::set<std::int64_t>> pids_by_name;  // named processes only
  std::set<std::string> gpus;
  std::size_t unnamed = 0;  // events whose process the log does not name
  std::size_t left_out = 0;  // distinct processes of floods not listed (KernelEvent)
  bool left_out_is_floor = false;
};

Spread SpreadOf(const EventList& faults) {
  Spread s;
  for (const KernelEvent* e : faults) {
    s.gpus.insert(e->pci_bus_id);
    if (e->process.empty()) s.unnamed += e->count - e->varied_count;
    for (const EventProcess& p : events::ProcessesOf(*e)) {
      if (p.name.empty()) continue;
      auto& pids = s.pids_by_name[p.name];
      if (p.pid) pids.insert(*p.pid);
    }
    s.left_out += e->other_processes_left_out;
    s.left_out_is_floor = s.left_out_is_floor || e->other_processes_left_out_is_floor;
  }
  return s;
}

std::string PidList(const std::set<std::int64_t>& pids) {
  if (pids.empty()) return "?";
  std::string list;
  std::size_t n = 0;
  for (std::int64_t pid : pids) {
    if (n++ == kPidsListed) break;
    list += (list.empty() ? "" : ", ") + std::to_string(pid);
  }
  if (pids.size() > kPidsListed) list += fmt::format(", ... ({} in all)", pids.size());
  return list;
}

void AddProcessEvidence(const Spread& s, Finding& f) {
  for (const auto& [name, pids] : s.pids_by_name) {
    std::string list = PidList(pids);
    f.evidence.push_back(
        events::NumberEvidence(Text{fmt::format("process `{}` (pids {})", name, list),
                                    fmt::format("进程 `{}`（pid {}）", name, list)},
                               static_cast<double>(pids.size()), "processes"));
  }
  if (s.left_out > 0) {
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("processes not listed: {}", events::LeftOutText(s.left_out, s.left_out_is_floor, Lang::kEn)),
             fmt::format("未列出的进程：{}", events::LeftOutText(s.left_out, s.left_out_is_floor, Lang::kZh))},
        static_cast<double>(s.left_out), "processes"));
  }
}

void ReportFaults(const EventList& faults, RuleOutput& out) {
  Spread s = SpreadOf(faults);
  std::size_t total = events::TotalCount(faults);
  std::size_t names = s.pids_by_name.size();
  Severity severity = total >= kManyFaults || names >= 2 ? Severity::kWarning : Severity::kInfo;
  Finding& f = out.Add(std::max(severity, events::XidPolicyFloor(faults)));
  for (const std::string& bus : s.gpus) {
    if (!bus.empty()) f.gpus.push_back(bus);
  }
  f.xids = events::CodesOf(faults);
  std::string codes = fmt::format("{}", fmt::join(f.xids, ", "));
  f.title = Text{fmt::format("Application faults on the GPU (Xid {}, {} times)", codes, total),
                 fmt::format("GPU 上的应用程序错误（Xid {}，{} 次）", codes, total)};
  f.explanation = Text{
      "These Xids (graphics exceptions, GPU memory page faults) are most often caused by the "
      "program running on the GPU: an out-of-range access, a bad kernel, a driver/CUDA mismatch.",
      "这类 Xid（图形异常、显存页错误）最常由 GPU "
      "上运行的程序引起：越界访问、错误的内核代码或驱动与 "
      "CUDA 版本不匹配。"};
  if (names >= 2 && s.gpus.size() >= 2) {
    f.explanation.en +=
        " They come from different programs on several GPUs, which an application "
        "bug rarely explains: the driver (or hardware) may be at fault.";
    f.explanation.zh +=
        "它们来自多个 GPU 上的不同程序，单个应用缺陷难以解释：可能是驱动（或硬件）问题。";
  } else if (names >= 2) {
    f.explanation.en +=
        " Different programs hit them on the same GPU: that GPU may be faulty "
        "(NVIDIA's workflow for Xid 13/31: run diagnostics).";
    f.explanation.zh +=
        "不同程序在同一块 GPU 上触发了它们：该 GPU 可能有故障（NVIDIA 对 Xid 13/31 "
        "的处理流程：运行诊断）。";
  } else if (names == 1) {
    f.explanation.en += fmt::format(
        " All named ones come from `{}`: an application bug, not "
        "hardware.",
        s.pids_by_name.begin()->first);
    f.explanation.zh +=
        fmt::format("所有注明进程的错误都来自 `{}`：这是应用程序缺陷，而非硬件问题。",
                    s.pids_by_name.begin()->first);
  } else {
    f.explanation.en +=
        " The log does not name the process (older drivers do not), so check which "
        "job ran at these times.";
    f.explanation.zh += "日志未注明进程（较旧的驱动不记录），请核对这些时间点运行的是哪个任务。";
  }
  events::AddEventEvidence(f, faults);
  AddProcessEvidence(s, f);
  f.actions.push_back(Action{
      Text{"Restart the application and check it: run it with compute-sanitizer, and check that "
           "its CUDA build suits the driver.",
           "重启应用程序并排查：用 `compute-sanitizer` 运行它，并确认其 CUDA 版本与驱动匹配。"},
      "compute-sanitizer <program>"});
  if (names >= 2) {
    f.actions.push_back(Action{
        Text{"Run NVIDIA's diagnostics on the GPU once it is free; if they fail, contact support.",
             "待 GPU 空闲后运行 NVIDIA 诊断；若未通过，请联系技术支持。"},
        "dcgmi diag -r 3"});
  }
}

// "… caused by previous Xid 149" (drivers 570.124 and later).
std::set<int> CausesNamed(const EventList& cleanups) {
  std::set<int> causes;
  for (const KernelEvent* e : cleanups) {
    auto at = e->message.find("caused by previous Xid ");
    if (at == std::string::npos) continue;
    int code = 0;
    for (std::size_t i = at + 23;
         i < e->message.size() && std::isdigit(static_cast<unsigned char>(e->message[i])); ++i) {
      code = code * 10 + (e->message[i] - '0');
    }
    if (code > 0) causes.insert(code);
  }
  return causes;
}

void ReportCleanups(const DiagnosisInput& input, const EventList& cleanups, bool other_xids,
                    RuleOutput& out) {
  std::set<int> causes = CausesNamed(cleanups);
  bool nvswitch = input.versions && input.versions->fabric_manager.nvswitch_present;
  bool solo = causes.empty() && !other_xids;
  Finding& f = out.Add(solo && nvswitch ? Severity::kWarning : Severity::kInfo);
  std::set<std::string> gpus;
  for (const KernelEvent* e : cleanups) {
    if (!e->pci_bus_id.empty() && gpus.insert(e->pci_bus_id).second)
      f.gpus.push_back(e->pci_bus_id);
  }
  f.xids = {45};
  f.title = Text{
      fmt::format("The driver cleaned up GPU work after errors (Xid 45, {} GPUs)", gpus.size()),
      fmt::format("驱动在出错后清理了 GPU 任务（Xid 45，{} 块 GPU）", gpus.size())};
  f.explanation = Text{
      "Xid 45 means the driver stopped a process's work on the GPU because of an earlier error or "
      "because the process was killed: it is a consequence, not the cause.",
      "Xid 45 表示驱动因先前的错误或进程被终止而停止了该进程在 GPU 上的任务：它是结果，而非原因。"};
  if (!causes.empty()) {
    std::string list = fmt::format("{}", fmt::join(causes, ", "));
    f.explanation.en += fmt::format(" The log says it followed Xid {}: handle that first.", list);
    f.explanation.zh += fmt::format("日志表明它由 Xid {} 引起：请先处理该错误。", list);
  }
  events::AddEventEvidence(f, cleanups);
  f.actions.push_back(Action{Text{"Handle the Xid that caused it (see the other findings).",
                                  "先处理引起它的 Xid（见其他发现）。"},
                             ""});
  if (solo && nvswitch) {
    f.actions.push_back(Action{
        Text{"Alone on an NVSwitch system, NVIDIA's workflow is to restart the Fabric Manager.",
             "在 NVSwitch 系统上单独出现时，NVIDIA 的处理流程是重启 Fabric Manager。"},
        "sudo systemctl restart nvidia-fabricmanager"});
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList faults, cleanups;
  for (const KernelEvent* e : events::XidEventsOwnedBy(input, events::XidOwner::kApplication)) {
    (e->code == 45 ? cleanups : faults).push_back(e);
  }
  if (!faults.empty()) ReportFaults(faults, out);
  if (cleanups.empty()) return;
  auto all = events::EventsOfKind(input, {KernelEventKind::kXid});
  bool other_xids =
      std::any_of(all.begin(), all.end(), [](const KernelEvent* e) { return e->code != 45; });
  ReportCleanups(input, cleanups, other_xids, out);
}

}  // namespace xid_application_rule
}  // namespace

const Rule kXidApplicationRule{
    "xid.application", "xid",
    "Application-caused Xids (13, 31, 43, 45, ...): which processes and GPUs, app bug or not",
    kNeedsXidEvents, xid_application_rule::Evaluate};

}  // namespace gpudoctor
