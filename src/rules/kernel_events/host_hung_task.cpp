// host.hung_task: the kernel's hung-task detector saw tasks blocked in
// uninterruptible sleep (D state) for longer than its timeout (120 s by
// default). A task stuck inside the NVIDIA driver cannot be killed, and the
// GPU it holds does not come back without a reboot: critical, reboot. A
// training job's task stuck this way stalls the job (and its peers, through
// NCCL): critical. Other tasks: a warning. When the same log shows a
// network file system that stopped answering or storage errors, the tasks
// are most likely waiting for it: fix that, a reboot does not help.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_hung_task_rule {

using events::EventList;

constexpr std::size_t kTasksNamed = 5;

// Whether an event of the log says a file server or a disk stopped answering.
bool StorageOrNfsTrouble(const DiagnosisInput& input) {
  for (const KernelEvent* e :
       events::EventsOfKind(input, {KernelEventKind::kNetworkFs, KernelEventKind::kStorageError})) {
    const std::string what = host_events::SplitDetail(e->detail).second;
    if (what != "OK" && what != "connection restored") return true;
  }
  return false;
}

// The longest "blocked for more than N seconds" of the reports (0: none read).
long LongestBlockS(const EventList& hung) {
  long longest = 0;
  for (const KernelEvent* e : hung) {
    auto at = e->message.find("blocked for more than ");
    if (at == std::string::npos) continue;
    long n = 0;
    for (std::size_t i = at + 22; i < e->message.size() && i < at + 32; ++i) {
      char c = e->message[i];
      if (c < '0' || c > '9') break;
      n = n * 10 + (c - '0');
    }
    longest = std::max(longest, n);
  }
  return longest;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList hung = events::EventsOfKind(input, {KernelEventKind::kHungTask});
  if (hung.empty()) return;
  std::vector<std::string> names;
  bool nvidia = false, training = false;
  for (const KernelEvent* e : hung) {
    for (const EventProcess& p : events::ProcessesOf(*e)) {
      names.push_back(p.name);
      nvidia = nvidia || host_events::IsNvidiaTask(p.name);
      training = training || host_events::IsTrainingTask(p.name);
    }
  }
  const bool waits_for_io = StorageOrNfsTrouble(input);
  Finding& f = out.Add(nvidia || training ? Severity::kCritical : Severity::kWarning);
  std::size_t times = events::TotalCount(hung);
  long longest_s = LongestBlockS(hung);
  std::string en_for = longest_s > 0 ? fmt::format("more than {} s", longest_s) : "too long";
  std::string zh_for = longest_s > 0 ? fmt::format("超过 {} 秒", longest_s) : "过久";
  f.title = Text{
      fmt::format("Tasks blocked for {} ({}): {}", en_for, host_events::Reports(times, Lang::kEn),
                  host_events::NameList(names, kTasksNamed, Lang::kEn)),
      fmt::format("有任务被阻塞{}（{}）：{}", zh_for, host_events::Reports(times, Lang::kZh),
                  host_events::NameList(names, kTasksNamed, Lang::kZh))};
  f.explanation = Text{
      "The kernel's hung-task detector found tasks in uninterruptible sleep (D state): each "
      "waited longer than the timeout for I/O, a lock or a driver call, and cannot be killed "
      "while it waits.",
      "内核的挂起任务检测发现有任务处于不可中断睡眠（D 状态）：它们等待 I/O、锁或驱动调用超过了"
      "超时时间，等待期间无法被终止。"};
  if (nvidia) {
    f.explanation.en +=
        " An NVIDIA task is among them: the driver itself is stuck, and the GPUs it holds will "
        "not recover without a reboot.";
    f.explanation.zh += "其中有 NVIDIA 任务：驱动本身已卡住，它占用的 GPU 不重启无法恢复。";
  } else if (training) {
    f.explanation.en +=
        " A training process is among them: the job is stalled, and its peers will time out in "
        "NCCL.";
    f.explanation.zh += "其中有训练进程：任务已停滞，其他节点上的进程将在 NCCL 中超时。";
  }
  if (waits_for_io) {
    f.explanation.en +=
        " The same log shows a file server or a disk that stopped answering (see host.network_fs "
        "and host.storage): the tasks most likely wait for it, and a reboot does not fix that.";
    f.explanation.zh +=
        "同一日志显示有文件服务器或磁盘停止响应（见 host.network_fs 和 "
        "host.storage）：这些任务很可能在等待它，重启无法解决。";
  }
  events::AddEventEvidence(f, hung);
  f.actions.push_back(Action{
      Text{"List the tasks in D state and what they wait for (the kernel function in WCHAN).",
           "列出处于 D 状态的任务及其等待的内核函数（WCHAN 列）。"},
      "ps -eo pid,stat,wchan:32,comm | awk 'NR==1 || $2 ~ /D/'"});
  f.actions.push_back(Action{Text{"Print the blocked tasks' kernel stacks into the log (as root).",
                                  "将被阻塞任务的内核调用栈打印到日志中（需 root）。"},
                             "echo w | sudo tee /proc/sysrq-trigger; sudo dmesg | tail -200"});
  if (waits_for_io) {
    f.actions.push_back(Action{
        Text{"Fix the file server, the network to it or the disk first; do not reboot for this.",
             "先修复文件服务器、到它的网络或磁盘；不要为此重启节点。"},
        ""});
  }
  if (nvidia) {
    f.actions.push_back(Action{
        Text{"Reboot the node: a task stuck in the NVIDIA driver cannot be killed, and its GPUs "
             "stay unusable until the driver reloads.",
             "重启节点：卡在 NVIDIA 驱动中的任务无法被终止，驱动重新加载前其 GPU 一直不可用。"},
        "sudo reboot"});
    f.actions.push_back(events::CollectBugReportAction());
  }
}

}  // namespace host_hung_task_rule
}  // namespace

const Rule kHostHungTaskRule{"host.hung_task", "host",
                             "Tasks blocked in D state longer than the kernel's hung-task timeout",
                             kNeedsKernelLog, host_hung_task_rule::Evaluate};

}  // namespace gpudoctor
