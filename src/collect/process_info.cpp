#include "collect/process_info.h"

#include "parse/cgroup.h"
#include "parse/proc_pid.h"
#include "parse/proc_text.h"

namespace gpudoctor {

ProcessInfo DescribeProcess(const CollectContext& ctx, std::uint32_t pid,
                            const std::map<std::uint32_t, std::string>& users) {
  ProcessInfo info;
  info.pid = pid;
  const std::string dir = "/proc/" + std::to_string(pid);
  auto status = ReadRootFile(ctx, dir + "/status", 64 * 1024);
  if (!status.ok()) {
    info.why_not_visible =
        status.error().code == ErrorCode::kNotFound
            ? "pid " + std::to_string(pid) + " not in this /proc (other pid namespace or exited)"
            : status.error().message;
    return info;
  }
  info.visible = true;
  info.uid = ParseStatusUid(*status);
  if (info.uid) {
    auto it = users.find(*info.uid);
    if (it != users.end()) info.user = it->second;
  }
  if (auto comm = ReadRootFile(ctx, dir + "/comm", 4096); comm.ok()) {
    info.comm = std::string(Trim(*comm));
  }
  if (auto cmdline = ReadRootFile(ctx, dir + "/cmdline", 64 * 1024); cmdline.ok()) {
    info.cmdline = CmdlineToString(*cmdline);
  }
  if (auto cgroup = ReadRootFile(ctx, dir + "/cgroup", 64 * 1024); cgroup.ok()) {
    if (auto lines = ParseProcCgroup(*cgroup); lines.ok() && !lines->empty()) {
      info.cgroup_path = CgroupPathFor(*lines, "").value_or(lines->front().path);
      // On v1 the container shows in any controller's path; take the first
      // that names one.
      info.container = ContainerFromCgroupPath(info.cgroup_path);
      for (const auto& line : *lines) {
        if (info.container) break;
        info.container = ContainerFromCgroupPath(line.path);
      }
    }
  }
  return info;
}

std::vector<ProcessInfo> DescribeProcesses(const CollectContext& ctx,
                                           const std::vector<std::uint32_t>& pids) {
  std::map<std::uint32_t, std::string> users;
  if (auto passwd = ReadRootFile(ctx, "/etc/passwd", 4 << 20); passwd.ok()) {
    users = ParsePasswd(*passwd);
  }
  std::vector<ProcessInfo> out;
  out.reserve(pids.size());
  for (auto pid : pids) out.push_back(DescribeProcess(ctx, pid, users));
  return out;
}

}  // namespace gpudoctor
