// host.network_fs: a network file system stopped answering. NFS's "server
// X not responding" (and lockd's) until "server X OK"; a lock reclaim that
// failed after a server restart; a Lustre client evicted by a target, or
// its connection lost until restored. A server still not answering at the
// end of the log is critical: every task reading or writing the mount
// hangs in D state (data loaders, checkpoints), and the GPUs idle. One that
// came back is a warning: the jobs stalled meanwhile. An eviction is
// critical: the operations in flight failed. Never a reason to reboot: the
// node is fine, the server or the network to it is not.
#include <fmt/format.h>

#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_network_fs_rule {

using events::EventList;

struct Server {
  std::string name;  // "nfs 10.0.0.5", "lustre fs-OST0001"
  std::string last;  // its last state
  const KernelEvent* last_event = nullptr;
  std::size_t outages = 0;  // "not responding", "timed out", "connection lost"
  bool evicted = false;
};

// When an event (folded repeats included) was last seen: wall time, else
// seconds since boot.
std::optional<double> LastSeenS(const KernelEvent& e) {
  auto wall = e.last_time ? e.last_time : e.time;
  if (wall) return std::chrono::duration<double>(wall->time_since_epoch()).count();
  return std::nullopt;
}
std::optional<double> LastSeenMonoS(const KernelEvent& e) {
  return e.last_monotonic_s ? e.last_monotonic_s : e.monotonic_s;
}

// Whether `e` was last seen after `than`: identical lines fold into their
// first event, so the log order of first lines is not the order of the
// last ones. By wall time, else by seconds since boot, else by log order.
bool SeenLater(const KernelEvent& e, const KernelEvent& than) {
  auto a = LastSeenS(e), b = LastSeenS(than);
  if (a && b) return *a >= *b;
  auto ma = LastSeenMonoS(e), mb = LastSeenMonoS(than);
  if (ma && mb) return *ma >= *mb;
  return true;  // the events come in log order
}

bool IsOutage(const std::string& what) {
  return what == "not responding" || what == "timed out" || what == "connection lost";
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList events = events::EventsOfKind(input, {KernelEventKind::kNetworkFs});
  if (events.empty()) return;
  std::map<std::string, Server> servers;
  std::vector<std::string> order;
  bool reclaim = false;
  for (const KernelEvent* e : events) {
    auto [name, what] = host_events::SplitDetail(e->detail);
    if (what == "lock reclaim failed") {
      reclaim = true;
      continue;
    }
    if (!servers.contains(name)) order.push_back(name);
    Server& s = servers[name];
    s.name = name;
    if (!s.last_event || SeenLater(*e, *s.last_event)) {
      s.last = what;
      s.last_event = e;
    }
    if (IsOutage(what)) s.outages += e->count;
    s.evicted = s.evicted || what == "evicted";
  }
  std::vector<std::string> down, recovered, evicted;
  for (const std::string& n : order) {
    const Server& s = servers[n];
    if (s.evicted) evicted.push_back(n);
    if (IsOutage(s.last)) {
      down.push_back(n);
    } else if (s.outages > 0) {
      recovered.push_back(n);
    }
  }
  // An "OK" alone (the outage before the log began) says nothing new.
  if (down.empty() && recovered.empty() && evicted.empty() && !reclaim) return;
  const bool critical = !down.empty() || !evicted.empty();
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::string what_en, what_zh;
  auto part = [&](const std::string& en, const std::string& zh) {
    what_en += (what_en.empty() ? "" : "; ") + en;
    what_zh += (what_zh.empty() ? "" : "；") + zh;
  };
  for (const std::string& n : down) {
    part(fmt::format("`{}` is not answering", n), fmt::format("`{}` 无响应", n));
  }
  for (const std::string& n : evicted) {
    part(fmt::format("`{}` evicted this client", n), fmt::format("`{}` 驱逐了本客户端", n));
  }
  for (const std::string& n : recovered) {
    const std::size_t k = servers[n].outages;
    part(fmt::format("`{}` stopped answering ({} {}), then recovered", n, k,
                     k == 1 ? "report" : "reports"),
         fmt::format("`{}` 曾停止响应（{} 次报告）后恢复", n, k));
  }
  if (reclaim) part("NFS lock reclaim failed", "NFS 锁恢复失败");
  f.title = Text{"Network file system trouble: " + what_en, "网络文件系统故障：" + what_zh};
  f.explanation = Text{
      "While a file server does not answer, every task that reads or writes its mount waits in "
      "D state: data loaders starve the GPUs, checkpoints hang, and the kernel may report hung "
      "tasks. The node itself is fine; rebooting it does not help.",
      "文件服务器无响应期间，所有读写其挂载点的任务都在 D 状态等待：数据加载跟不上，GPU "
      "空闲，检查点挂起，内核可能报告任务挂起。节点本身没有问题，重启无济于事。"};
  if (!evicted.empty()) {
    f.explanation.en +=
        " An eviction failed the operations that were in flight: the job's "
        "reads or writes at that time returned errors.";
    f.explanation.zh += "被驱逐时正在进行的操作已失败：任务当时的读写返回了错误。";
  }
  events::AddEventEvidence(f, events);
  f.actions.push_back(Action{Text{"List the network mounts and their servers and options.",
                                  "列出网络挂载及其服务器和挂载选项。"},
                             "findmnt -t nfs,nfs4,lustre,beegfs; nfsstat -m"});
  f.actions.push_back(Action{
      Text{"Check the server and the network path to it (reachability, MTU, the server's load); "
           "do not reboot this node for it.",
           "检查服务器及到它的网络路径（连通性、MTU、服务器负载）；不要为此重启本节点。"},
      ""});
  f.actions.push_back(Action{
      Text{"Stage the training data on local disk, so a file server's stall does not stall the "
           "GPUs.",
           "将训练数据预先拷贝到本地磁盘，避免文件服务器停顿拖慢 GPU。"},
      ""});
}

}  // namespace host_network_fs_rule
}  // namespace

const Rule kHostNetworkFsRule{"host.network_fs", "host",
                              "NFS and Lustre servers that stop answering, evictions, failed lock "
                              "reclaims",
                              kNeedsKernelLog, host_network_fs_rule::Evaluate};

}  // namespace gpudoctor
