// host.kernel_crash: the kernel crashed: a panic (the machine stopped, and
// rebooted if it is set to), a BUG or an oops (the task died inside the
// kernel, which may now be inconsistent), a general protection fault.
// Always critical. Where the crash lines place it in the NVIDIA driver (a
// RIP in its modules, an NVIDIA task), the driver is named and a bug report
// is the first step; otherwise the kernel's trace and the previous boot's
// log are. A crash read from pstore is said to be an earlier boot's.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_kernel_crash_rule {

using events::EventList;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList crashes = events::EventsOfKind(input, {KernelEventKind::kKernelCrash});
  if (crashes.empty()) return;
  bool panic = false, nvidia = false;
  std::vector<std::string> whats, tasks;
  for (const KernelEvent* e : crashes) {
    panic = panic || e->detail.rfind("panic", 0) == 0;
    nvidia = nvidia || host_events::InNvidiaDriver(*e);
    // An oops line repeats the BUG before it: named only when alone.
    if (e->detail != "oops") whats.push_back(e->detail);
    tasks.push_back(host_events::TaskOf(*e).name);
  }
  if (whats.empty()) whats.emplace_back("oops");
  Finding& f = out.Add(Severity::kCritical);
  std::string in_en = nvidia ? " in the NVIDIA driver" : "";
  std::string in_zh = nvidia ? "（在 NVIDIA 驱动中）" : "";
  std::string tasks_en = host_events::NameList(tasks, 3, Lang::kEn);
  std::string tasks_zh = host_events::NameList(tasks, 3, Lang::kZh);
  f.title = Text{
      fmt::format("The kernel crashed{}: {}{}", in_en, host_events::NameList(whats, 3, Lang::kEn),
                  tasks_en.empty() ? "" : " (task " + tasks_en + ")"),
      fmt::format("内核崩溃{}：{}{}", in_zh, host_events::NameList(whats, 3, Lang::kZh),
                  tasks_zh.empty() ? "" : "（任务 " + tasks_zh + "）")};
  f.explanation = panic ? Text{"The kernel panicked: the machine stopped (and rebooted if "
                               "kernel.panic is set). Every job on it ended.",
                               "内核发生 panic：机器停止运行（若设置了 kernel.panic "
                               "则会重启）。其上的所有任务都已终止。"}
                        : Text{"A task crashed inside the kernel (a BUG, an oops or a protection "
                               "fault): the task died, and the kernel may be inconsistent until "
                               "the next reboot.",
                               "有任务在内核中崩溃（BUG、oops "
                               "或保护错误）：该任务已终止，在下次重启前内核可能处于不一致状态。"};
  const bool kept = std::any_of(crashes.begin(), crashes.end(), [](const KernelEvent* e) {
    return e->source.file.find("/pstore") != std::string::npos;
  });
  if (kept) {
    f.explanation.en +=
        " It was kept in pstore: it happened in an earlier boot, and the machine "
        "restarted after it.";
    f.explanation.zh += "它保存在 pstore 中：发生在之前的一次启动中，机器随后重启。";
  }
  if (nvidia) {
    f.explanation.en += " The crash lines place it in the NVIDIA driver.";
    f.explanation.zh += "崩溃信息显示它发生在 NVIDIA 驱动中。";
  }
  events::AddEventEvidence(f, crashes);
  if (nvidia) f.actions.push_back(events::CollectBugReportAction());
  f.actions.push_back(Action{
      Text{"Read the whole trace; after a reboot it is in the previous boot's log, or in pstore.",
           "阅读完整的调用栈；重启后可在上一次启动的日志或 pstore 中找到。"},
      "journalctl -k -b -1 | tail -200; ls /sys/fs/pstore /var/lib/systemd/pstore"});
  if (!panic) {
    f.actions.push_back(Action{
        Text{"Reboot the node when its jobs allow: after an oops the kernel is not to be trusted.",
             "在任务允许时重启节点：发生 oops 后内核不再可信。"},
        "sudo reboot"});
  }
  f.actions.push_back(Action{
      Text{"If it recurs, update the kernel and the NVIDIA driver, and keep a crash dump (kdump).",
           "若反复出现，请更新内核和 NVIDIA 驱动，并保留崩溃转储（kdump）。"},
      ""});
}

}  // namespace host_kernel_crash_rule
}  // namespace

const Rule kHostKernelCrashRule{"host.kernel_crash", "host",
                                "Kernel panics, BUGs, oopses and protection faults",
                                kNeedsKernelLog, host_kernel_crash_rule::Evaluate};

}  // namespace gpudoctor
