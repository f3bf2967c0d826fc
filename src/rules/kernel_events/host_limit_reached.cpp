// host.limit_reached: the kernel says a table was full: "VFS: file-max
// limit N reached" (no file could be opened host-wide: critical), "cgroup:
// fork rejected by pids controller in GROUP" (a container or service could
// not start a process or thread: critical, its job's data loaders and
// NCCL's threads fail), "nf_conntrack: table full, dropping packet" (new
// connections dropped: a warning, NCCL's bootstrap and storage traffic
// stall or fail).
#include <fmt/format.h>

#include <set>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_limit_reached_rule {

using events::EventList;

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList hits = events::EventsOfKind(input, {KernelEventKind::kHostLimit});
  if (hits.empty()) return;
  bool file_max = false, conntrack = false;
  std::vector<std::string> groups;
  for (const KernelEvent* e : hits) {
    file_max = file_max || e->detail == "file-max";
    conntrack = conntrack || e->detail == "conntrack table full";
    if (e->detail.rfind("pids limit: ", 0) == 0) groups.push_back(e->detail.substr(12));
  }
  const bool critical = file_max || !groups.empty();
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::vector<std::string> en, zh;
  if (file_max) {
    en.emplace_back("the host's open files (fs.file-max)");
    zh.emplace_back("主机可打开文件数（fs.file-max）");
  }
  if (!groups.empty()) {
    en.push_back("processes of " + host_events::NameList(groups, 3, Lang::kEn) + " (pids.max)");
    zh.push_back(host_events::NameList(groups, 3, Lang::kZh) + " 的进程数（pids.max）");
  }
  if (conntrack) {
    en.emplace_back("tracked connections (nf_conntrack_max)");
    zh.emplace_back("连接跟踪表（nf_conntrack_max）");
  }
  std::string title_en, title_zh;
  for (const auto& s : en) title_en += (title_en.empty() ? "" : ", ") + s;
  for (const auto& s : zh) title_zh += (title_zh.empty() ? "" : "，") + s;
  const std::size_t times = events::TotalCount(hits);
  f.title = Text{fmt::format("The kernel refused work at a full limit ({}): {}",
                             host_events::Reports(times, Lang::kEn), title_en),
                 fmt::format("内核因上限已满拒绝请求（{}）：{}",
                             host_events::Reports(times, Lang::kZh), title_zh)};
  f.explanation = Text{
      "A kernel table was full and the kernel said so: opening files, starting processes or "
      "threads, or opening connections failed meanwhile. Jobs see this as crashes of data "
      "loaders, NCCL or the CUDA runtime with errors that seldom name the cause.",
      "内核表已满，内核已报告：期间打开文件、创建进程或线程、建立连接都会失败。任务看到的是数据加载"
      "进程、NCCL 或 CUDA 运行时的崩溃，报错很少指明原因。"};
  events::AddEventEvidence(f, hits);
  if (file_max) {
    f.actions.push_back(Action{Text{"See the open-file count and raise fs.file-max if it is "
                                    "legitimate; find a process leaking descriptors.",
                                    "查看已打开文件数，若合理则提高 "
                                    "fs.file-max；找出泄漏文件描述符的进程。"},
                               "cat /proc/sys/fs/file-nr; sudo sysctl -w fs.file-max=<larger>"});
  }
  if (!groups.empty()) {
    f.actions.push_back(
        Action{Text{"Raise the group's pids.max (for Kubernetes, the kubelet's podPidsLimit; for "
                    "systemd, TasksMax=) or lower the job's worker and thread counts.",
                    "提高该组的 pids.max（Kubernetes 为 kubelet 的 podPidsLimit，systemd 为 "
                    "TasksMax=），或减少任务的工作进程和线程数。"},
               "cat /sys/fs/cgroup" + groups.front() + "/pids.max /sys/fs/cgroup" + groups.front() +
                   "/pids.current"});
  }
  if (conntrack) {
    f.actions.push_back(Action{Text{"Raise nf_conntrack_max, or exempt the cluster's traffic "
                                    "from connection tracking.",
                                    "提高 nf_conntrack_max，或让集群内部流量不经过连接跟踪。"},
                               "sudo sysctl net.netfilter.nf_conntrack_count "
                               "net.netfilter.nf_conntrack_max"});
  }
}

}  // namespace host_limit_reached_rule
}  // namespace

const Rule kHostLimitReachedRule{"host.limit_reached", "host",
                                 "The kernel reported a full table: file-max, a cgroup's pids "
                                 "limit, the conntrack table",
                                 kNeedsKernelLog, host_limit_reached_rule::Evaluate};

}  // namespace gpudoctor
