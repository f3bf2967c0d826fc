// host.zombies: more than 1,000 zombie processes (gpud's os component uses
// the same bound). A zombie has exited but its parent has not read its exit
// status; it holds a slot of the PID table until then, and a parent that
// never reaps (a launcher or data-loader bug) fills the table until no
// thread can start (host.limits). The largest parents are named: restarting
// one lets init reap its zombies.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_zombies_rule {

constexpr std::uint64_t kWarnZombies = 1000;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const ProcessStateFacts& facts = input.host->processes;
  if (!facts.zombies) {
    std::string why = facts.sources.empty() ? "not read" : facts.sources.front().why;
    out.NotCheckedBecause(Text{"the process table: " + why, "未能读取进程表"});
    return;
  }
  if (*facts.zombies <= kWarnZombies) return;
  Finding& f = out.Add(Severity::kWarning);
  std::string en_parents, zh_parents;
  for (const ZombieParent& z : facts.zombie_parents) {
    std::string name =
        z.comm.empty() ? fmt::format("pid {}", z.pid) : fmt::format("`{}` (pid {})", z.comm, z.pid);
    en_parents += (en_parents.empty() ? "" : ", ") + fmt::format("{} holds {}", name, z.zombies);
    zh_parents += (zh_parents.empty() ? "" : "，") + fmt::format("{} 有 {} 个", name, z.zombies);
  }
  f.title = Text{
      fmt::format("{} zombie processes{}", *facts.zombies,
                  en_parents.empty() ? "" : ": " + en_parents),
      fmt::format("{} 个僵尸进程{}", *facts.zombies, zh_parents.empty() ? "" : "：" + zh_parents)};
  f.evidence.push_back(NumberEvidence(
      fmt::format("{} processes in state Z (warning above {})", *facts.zombies, kWarnZombies),
      fmt::format("{} 个进程处于 Z 状态（超过 {} 个即警告）", *facts.zombies, kWarnZombies),
      static_cast<double>(*facts.zombies), "processes"));
  f.explanation = Text{
      "Each zombie has exited, but its parent has not collected its exit status, so it keeps a "
      "slot in the PID table. A parent that never does fills the table until no process or "
      "thread can start, and data loaders, NCCL and the CUDA runtime fail.",
      "僵尸进程已经退出，但父进程没有回收其退出状态，因此仍占用进程号表的一个位置。父进程一直不回收，"
      "进程号表最终被占满，新的进程和线程都无法创建，数据加载进程、NCCL 和 CUDA 运行时随之失败。"};
  f.actions.push_back(
      Action{Text{"Count the zombies by parent.", "按父进程统计僵尸进程。"},
             "ps -eo ppid=,stat= | awk '$2 ~ /^Z/ {print $1}' | sort | uniq -c | sort -rn | head"});
  if (!facts.zombie_parents.empty()) {
    f.actions.push_back(Action{
        Text{
            "Restart the parent that holds the most when its job allows: init then reaps them. "
            "A parent that never reaps its children has a bug to report.",
            "在任务允许时重启持有最多僵尸进程的父进程，由 init 回收它们。从不回收子进程的父进程有缺陷，应上报。"},
        fmt::format("ps -o pid,etime,cmd -p {}", facts.zombie_parents.front().pid)});
  }
}

}  // namespace host_zombies_rule
}  // namespace

const Rule kHostZombiesRule{"host.zombies", "host",
                            "More than 1,000 zombie processes, with the parents that hold them",
                            kNeedsHost, host_zombies_rule::Evaluate};

}  // namespace gpudoctor
