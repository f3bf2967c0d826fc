// host.stuck_processes: processes in uninterruptible sleep (D state) that
// stay there through 5 consecutive checks with no context switch and no CPU
// time (collect/process_states.h): they wait for something that does not
// answer. A task of the NVIDIA driver, or one whose wait channel is in it,
// is critical and needs a reboot: it cannot be killed and the GPU stays held.
// A training process is critical without a reboot (its job has stopped;
// what it waits for decides). Others are warnings. The wait channel tells
// a file server or a disk apart, and then a reboot is not the answer.
// Kernel threads count only when they are the NVIDIA driver's. gpud tracks
// D-state processes across its checks the same way (components/os).
#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/window_stats.h"
#include "rules/engine/task_names.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_stuck_processes_rule {

enum class Waits { kUnknown, kNvidia, kNetworkFs, kDisk };

bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "`a`, `b`, `c` (+2)": the first three names.
std::string ShortList(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 3; ++i) {
    out += (i ? ", `" : "`") + names[i] + "`";
  }
  if (names.size() > 3) out += fmt::format(" (+{})", names.size() - 3);
  return out;
}

Waits WaitOf(const StuckProcess& p) {
  const std::string& w = p.wchan;
  // nvidia_*, nv_*, _nv* and uvm_* are the driver's symbols; nvme_* and
  // nvmf_* are not.
  if (IsNvidiaTask(p.comm) || Starts(w, "nvidia") || Starts(w, "nv_") || Starts(w, "_nv") ||
      Starts(w, "uvm") || Starts(w, "os_acquire_")) {
    return Waits::kNvidia;
  }
  if (Starts(w, "rpc_") || Starts(w, "nfs") || Starts(w, "ll_") || Starts(w, "ptlrpc") ||
      Starts(w, "beegfs") || Starts(w, "fuse")) {
    return Waits::kNetworkFs;
  }
  if (Starts(w, "io_schedule") || Starts(w, "blk_") || Starts(w, "jbd2") ||
      Starts(w, "wait_on_page") || Starts(w, "folio_wait") || Starts(w, "xfs") ||
      Starts(w, "ext4")) {
    return Waits::kDisk;
  }
  return Waits::kUnknown;
}

Text WaitText(Waits w) {
  switch (w) {
    case Waits::kNvidia:
      return {"in the NVIDIA driver", "在 NVIDIA 驱动中"};
    case Waits::kNetworkFs:
      return {"for a network file system", "在等待网络文件系统"};
    case Waits::kDisk:
      return {"for a disk", "在等待磁盘"};
    case Waits::kUnknown:
      break;
  }
  return {"", ""};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const ProcessStateFacts& facts = input.host->processes;
  if (facts.checks < kStuckChecks) {
    if (!facts.sources.empty() && !facts.sources.front().available) {
      out.NotCheckedBecause(Text{"the process table: " + facts.sources.front().why,
                                 "无法读取进程表：" + Backquoted(facts.sources.front().why)});
    } else {
      out.NotCheckedBecause(Text{
          fmt::format("the process table: {} of {} checks taken so far", facts.checks,
                      kStuckChecks),
          fmt::format("进程表检查次数不足：已检查 {} 次，需要 {} 次", facts.checks, kStuckChecks)});
    }
    return;
  }
  std::vector<const StuckProcess*> stuck;
  for (const StuckProcess& p : facts.stuck) {
    if (p.kernel_thread && WaitOf(p) != Waits::kNvidia) continue;
    stuck.push_back(&p);
  }
  if (stuck.empty()) return;
  const bool nvidia = std::any_of(stuck.begin(), stuck.end(), [](const StuckProcess* p) {
    return WaitOf(*p) == Waits::kNvidia;
  });
  const bool training = std::any_of(stuck.begin(), stuck.end(),
                                    [](const StuckProcess* p) { return IsTrainingTask(p->comm); });
  const bool waits_for_files = std::any_of(stuck.begin(), stuck.end(), [](const StuckProcess* p) {
    return WaitOf(*p) == Waits::kNetworkFs || WaitOf(*p) == Waits::kDisk;
  });
  Finding& f = out.Add(nvidia || training ? Severity::kCritical : Severity::kWarning);
  std::vector<std::string> names;
  names.reserve(stuck.size());
  for (const StuckProcess* p : stuck) names.push_back(fmt::format("{} ({})", p->comm, p->pid));
  f.title =
      Text{fmt::format(
               "{} stuck in uninterruptible sleep (D state): {}",
               stuck.size() == 1 ? "A process is" : fmt::format("{} processes are", stuck.size()),
               ShortList(names)),
           fmt::format("{} 个进程卡在不可中断睡眠（D 状态）：{}", stuck.size(), ShortList(names))};
  for (const StuckProcess* p : stuck) {
    const Text where = WaitText(WaitOf(*p));
    std::string en = fmt::format(
        "pid {} `{}`: in D state at {} consecutive checks over {} s "
        "with no context switch and no CPU time",
        p->pid, p->comm, p->checks, FormatNumber(p->stuck_for_s, 0));
    std::string zh = fmt::format(
        "进程 {} `{}`：连续 {} 次检查（{} 秒）处于 D 状态，"
        "没有上下文切换，也没有使用 CPU",
        p->pid, p->comm, p->checks, FormatNumber(p->stuck_for_s, 0));
    if (!p->wchan.empty()) {
      en += fmt::format("; waits in `{}`", p->wchan);
      zh += fmt::format("；等待于 `{}`", p->wchan);
    }
    if (!where.en.empty()) {
      en += " (" + where.en + ")";
      zh += "（" + where.zh + "）";
    }
    if (!p->cmdline.empty()) {
      en += "; command `" + p->cmdline.substr(0, 160) + "`";
      zh += "；命令 `" + p->cmdline.substr(0, 160) + "`";
    }
    f.evidence.push_back(NumberEvidence(en, zh, p->stuck_for_s, "seconds"));
  }
  f.explanation = Text{
      "A process in D state cannot be interrupted or killed until the kernel call it waits in "
      "returns. One that stays there without running at all waits for something that no longer "
      "answers: a file server, a disk, or a driver. Its job makes no progress, and `kill -9` "
      "does nothing.",
      "处于 D 状态的进程在其等待的内核调用返回之前无法被中断或杀死。长时间停在此状态且完全不运行，"
      "说明它在等待一个不再响应的对象：文件服务器、磁盘或驱动。所属任务不再推进，`kill -9` 也无效。"};
  const int first = stuck.front()->pid;
  f.actions.push_back(Action{
      Text{"See where it waits in the kernel (as root).", "查看它在内核中等待的位置（需 root）。"},
      fmt::format("sudo cat /proc/{}/stack; cat /proc/{}/wchan; echo", first, first)});
  if (nvidia) {
    f.actions.push_back(Action{
        Text{
            "A task stuck in the NVIDIA driver does not come back and holds the GPU: drain the "
            "node, collect the driver's bug report, then reboot.",
            "卡在 NVIDIA 驱动中的任务不会恢复，并一直占用 GPU：先排空节点，收集驱动的问题报告，然后重启。"},
        "sudo nvidia-bug-report.sh; sudo systemctl reboot"});
  }
  if (waits_for_files) {
    f.actions.push_back(Action{
        Text{"It waits for storage: check the file server or disk it reads (see host.network_fs "
             "and host.storage). It resumes when that answers; rebooting does not fix the server.",
             "它在等待存储：检查其读取的文件服务器或磁盘（见 host.network_fs 和 "
             "host.storage）。存储恢复响应后进程会继续；重启本机修复不了服务器。"},
        "grep -E ' (nfs|nfs4|lustre|beegfs|fuse[^ ]*) ' /proc/mounts; sudo dmesg | grep -iE "
        "'not responding|I/O error|nvme' | tail"});
  }
}

}  // namespace host_stuck_processes_rule
}  // namespace

const Rule kHostStuckProcessesRule{
    "host.stuck_processes", "host",
    "Processes stuck in D state (uninterruptible sleep) through 5 checks without progress",
    kNeedsHost, host_stuck_processes_rule::Evaluate};

}  // namespace gpudoctor
