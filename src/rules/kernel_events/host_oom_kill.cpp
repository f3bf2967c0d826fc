// host.oom_kill: the kernel's OOM killer ended processes for lack of host RAM
// (or of the container's memory limit). A warning naming the processes: a
// training job killed this way looks like a crash or a hung NCCL rank.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace host_oom_kill_rule {

using events::EventList;

// Victims named in the title before the rest are only counted.
constexpr std::size_t kVictimsNamed = 5;

std::string Victims(const EventList& kills, Lang lang) {
  std::set<std::string> names;
  std::string out;
  std::size_t more = 0;
  for (const KernelEvent* e : kills) {
    if (e->detail == "invoked") continue;
    more += e->other_processes_left_out;
    for (const EventProcess& p : events::ProcessesOf(*e)) {
      if (p.name.empty() || !names.insert(p.name).second) continue;
      if (names.size() > kVictimsNamed) {
        ++more;
        continue;
      }
      out += (out.empty() ? "" : ", ") + ("`" + p.name + "`");
      if (p.pid) out += fmt::format(" (pid {})", *p.pid);
    }
  }
  if (more > 0) out += (lang == Lang::kZh ? "，" : " ") + events::LeftOutText(more, false, lang);
  return out;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList kills = events::EventsOfKind(input, {KernelEventKind::kOomKill});
  if (kills.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  std::string victims = Victims(kills, Lang::kEn);
  if (victims.empty()) {
    f.title = Text{"The kernel's OOM killer ran for lack of host memory",
                   "内核因主机内存不足触发了 OOM 终止机制"};
  } else {
    f.title = Text{fmt::format("The kernel killed {} for lack of host memory", victims),
                   fmt::format("内核因主机内存不足终止了 {}", Victims(kills, Lang::kZh))};
  }
  f.explanation = Text{
      "The host ran out of RAM and the kernel killed a process to free it. A training job killed "
      "this way looks like a crash, or like a hung rank to the other nodes (NCCL timeouts). Data "
      "loaders and pinned host buffers often use several times the GPU memory in host RAM.",
      "主机内存耗尽，内核终止了一个进程以释放内存。以这种方式被终止的训练任务看起来像是崩溃，在其他"
      "节点"
      "看来则像某个进程卡住（NCCL "
      "超时）。数据加载进程和锁页内存缓冲区占用的主机内存常是显存的数倍。"};
  bool cgroup = std::any_of(kills.begin(), kills.end(), [](const KernelEvent* e) {
    return e->detail.find("cgroup") != std::string::npos;
  });
  if (cgroup) {
    f.explanation.en +=
        " The kill was due to a cgroup (container) memory limit, not the whole host.";
    f.explanation.zh += "此次终止由 cgroup（容器）内存上限引起，而非整台主机内存耗尽。";
  }
  events::AddEventEvidence(f, kills);
  f.actions.push_back(Action{
      Text{"Check free memory and which processes use it.", "检查可用内存以及哪些进程在占用内存。"},
      "free -h; ps aux --sort=-rss | head"});
  if (cgroup) {
    f.actions.push_back(Action{Text{"Raise the container's memory limit or lower the job's use.",
                                    "提高容器的内存上限，或降低任务的内存占用。"},
                               "cat /sys/fs/cgroup/memory.max"});
  }
  f.actions.push_back(Action{
      Text{"Lower the job's host memory: fewer data-loader workers, smaller prefetch, or a node "
           "with 2-4 times the GPU memory in RAM.",
           "降低任务的主机内存占用：减少数据加载进程数、减小预取量，或换用内存为显存 2-4 "
           "倍的节点。"},
      ""});
}

}  // namespace host_oom_kill_rule
}  // namespace

const Rule kHostOomKillRule{
    "host.oom_kill", "host",
    "Processes killed by the kernel's OOM killer (host RAM or cgroup limit)", kNeedsKernelLog,
    host_oom_kill_rule::Evaluate};

}  // namespace gpudoctor
