// host.mount_unresponsive: a file system did not answer statvfs within 5 s
// (collect/mount_probe.h: the call runs in a child process that is killed
// at the deadline). Every network file system in /proc/mounts is probed,
// with the root, /tmp, /dev/shm, the data directory and the config's
// dataset mounts. A job that reads or writes there hangs in D state with it.
// Critical: its server or disk stopped answering. Never a reboot: the
// mount comes back when its server does.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_mount_unresponsive_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const DiskSpaceFacts& d = input.host->disk_space;
  if (d.unresponsive.empty()) return;
  const std::string timeout = FormatNumber(d.probe_timeout_s, 0);
  Finding& f = out.Add(Severity::kCritical);
  std::vector<std::string> paths;
  bool network = false;
  for (const UnresponsiveMount& m : d.unresponsive) {
    paths.push_back("`" + m.path + "`");
    std::string what = m.fs_type.empty() ? "" : fmt::format(" ({} {})", m.fs_type, m.source);
    network = network || !m.fs_type.empty();
    f.evidence.push_back(
        NumberEvidence(fmt::format("statvfs(\"{}\"){} did not answer within {} s{}", m.path, what,
                                   timeout, m.dataset ? "; a dataset mount of the config" : ""),
                       fmt::format("statvfs(\"{}\"){} 在 {} 秒内没有返回{}", m.path, what, timeout,
                                   m.dataset ? "；配置中的数据集挂载点" : ""),
                       d.probe_timeout_s, "seconds"));
  }
  const std::string list = fmt::format("{}", fmt::join(paths, ", "));
  f.title = Text{fmt::format("{} does not answer: what reads or writes there hangs", list),
                 fmt::format("{} 无响应：在其上读写的程序会被挂起", list)};
  f.explanation = Text{
      "Asking the file system for its size did not return within " + timeout +
          " seconds: its file server (or disk) stopped answering. Every process that touches it "
          "waits in D state until it does, so data loading and checkpoints stop. The mount comes "
          "back when the server does; rebooting this node does not fix the server.",
      "查询该文件系统的容量在 " + timeout +
          " 秒内没有返回：其文件服务器（或磁盘）已停止响应。访问它的每个进程都会处于 D "
          "状态等待，数据加载和检查点写入随之停止。服务器恢复后挂载点即恢复；重启本节点修复不了服务器。"};
  f.actions.push_back(
      Action{Text{"See which server it is and whether the kernel says so too.",
                  "查看对应的服务器，以及内核日志是否也有报告。"},
             fmt::format("grep -F ' {} ' /proc/mounts; sudo dmesg | grep -iE 'not responding|timed "
                         "out|evict' | tail",
                         d.unresponsive.front().path)});
  if (network) {
    f.actions.push_back(Action{
        Text{"Check the server and the network path to it; stage the data on local disk until "
             "it is reliable again.",
             "检查服务器及到它的网络链路；在其恢复稳定之前，把数据暂存到本地磁盘。"},
        "rpcinfo -p <server>; showmount -e <server>"});
  }
}

}  // namespace host_mount_unresponsive_rule
}  // namespace

const Rule kHostMountUnresponsiveRule{
    "host.mount_unresponsive", "host",
    "A mount (network file systems, dataset mounts, /, /tmp) that does not answer statvfs "
    "within 5 s",
    kNeedsHost, host_mount_unresponsive_rule::Evaluate};

}  // namespace gpudoctor
