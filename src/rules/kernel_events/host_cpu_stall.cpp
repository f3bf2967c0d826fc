// host.cpu_stall: a CPU stopped scheduling. The watchdog's soft lockup (a
// CPU looped in the kernel for more than 20 s), its hard lockup (the same
// with interrupts off: critical) and RCU stalls (a grace period that could
// not end because a CPU did not pass through a quiescent state). Processes
// on that CPU stall with it: a training step takes seconds longer, NCCL
// peers time out. A lockup in an NVIDIA task is the driver's: critical, and
// the driver is to be updated. On a virtual machine a vCPU starved by its
// host looks the same (steal time).
#include <fmt/format.h>

#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_cpu_stall_rule {

using events::EventList;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList stalls = events::EventsOfKind(input, {KernelEventKind::kCpuStall});
  if (stalls.empty()) return;
  bool hard = false, nvidia = false;
  std::vector<std::string> kinds, names;
  for (const KernelEvent* e : stalls) {
    hard = hard || e->detail == "hard lockup";
    kinds.push_back(e->detail);
    EventProcess task = host_events::TaskOf(*e);
    names.push_back(task.name);
    nvidia = nvidia || host_events::InNvidiaDriver(*e);
  }
  Finding& f = out.Add(hard || nvidia ? Severity::kCritical : Severity::kWarning);
  const std::size_t times = events::TotalCount(stalls);
  std::string tasks_en = host_events::NameList(names, 4, Lang::kEn);
  std::string tasks_zh = host_events::NameList(names, 4, Lang::kZh);
  std::string what_en = host_events::NameList(kinds, 3, Lang::kEn);
  f.title =
      Text{fmt::format("CPUs stopped scheduling ({}: {}){}", host_events::Reports(times, Lang::kEn),
                       what_en, tasks_en.empty() ? "" : " in " + tasks_en),
           fmt::format("CPU 停止调度（{}：{}）{}", host_events::Reports(times, Lang::kZh),
                       host_events::NameList(kinds, 3, Lang::kZh),
                       tasks_zh.empty() ? "" : "，涉及 " + tasks_zh)};
  f.explanation = Text{
      "A CPU ran kernel code without scheduling for tens of seconds (a soft lockup), with "
      "interrupts off (a hard lockup), or held up RCU (a stall). Every process on that CPU "
      "waits meanwhile: training steps slow down and NCCL peers may time out. On a virtual "
      "machine, a vCPU the hypervisor did not run looks the same.",
      "某个 CPU 在内核中运行数十秒未调度（软锁死）、在关中断状态下如此（硬锁死），或阻塞了 "
      "RCU（停顿）。期间该 CPU 上的所有进程都在等待：训练步变慢，NCCL "
      "对端可能超时。在虚拟机上，虚拟化层未调度 vCPU 时看起来也是这样。"};
  if (nvidia) {
    f.explanation.en += " The CPU was inside the NVIDIA driver: update the driver.";
    f.explanation.zh += "该 CPU 当时在 NVIDIA 驱动中：请更新驱动。";
  }
  events::AddEventEvidence(f, stalls);
  f.actions.push_back(Action{
      Text{"On a virtual machine, check the steal time (the st column): above a few percent, "
           "the host's CPUs are oversubscribed; ask the provider to move the instance.",
           "在虚拟机上查看 steal 时间（st 列）：超过几个百分点说明宿主机 CPU "
           "超配，请云厂商迁移实例。"},
      "vmstat 1 5"});
  f.actions.push_back(
      Action{Text{"Read the stack trace after the report to see which module the CPU was in.",
                  "查看报告后面的调用栈，确定 CPU 当时所在的模块。"},
             "sudo dmesg -T | grep -A30 -E 'soft lockup|hard LOCKUP|rcu.*stall'"});
  if (nvidia) f.actions.push_back(events::CollectBugReportAction());
  if (hard || nvidia) {
    f.actions.push_back(Action{
        Text{"Reboot the node if it still answers slowly: a CPU locked in the kernel leaves it "
             "in an uncertain state.",
             "若节点仍响应缓慢则重启：内核中锁死的 CPU 会让系统处于不确定状态。"},
        "sudo reboot"});
  }
}

}  // namespace host_cpu_stall_rule
}  // namespace

const Rule kHostCpuStallRule{"host.cpu_stall", "host",
                             "CPU soft and hard lockups and RCU stalls in the kernel log",
                             kNeedsKernelLog, host_cpu_stall_rule::Evaluate};

}  // namespace gpudoctor
