// host.limits: a kernel table close to full on the live host. Open file
// handles against fs.file-max, and threads against the PID space
// (kernel.pid_max and kernel.threads-max, the lower of the two). At 80 % a
// warning, at 95 % critical: when a table is full, opening a file or
// starting a thread fails, and data loaders, NCCL's proxy threads and the
// CUDA runtime die with errors that seldom name the cause. The thresholds
// are gpud's (components/fd, 80 % warn / 95 % critical).
#include <fmt/format.h>

#include <algorithm>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_limits_rule {

constexpr double kWarnPercent = 80;
constexpr double kCriticalPercent = 95;

struct Table {
  std::string en, zh;  // "open files", "打开的文件"
  std::uint64_t used = 0, max = 0;
  std::string en_limit, command;
  double Percent() const { return 100.0 * static_cast<double>(used) / static_cast<double>(max); }
};

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const KernelLimits& l = input.host->limits;
  if (!l.open_files && !l.threads) {
    out.NotCheckedBecause(
        Text{"the kernel's tables (/proc/sys/fs/file-nr, /proc/loadavg) could "
             "not be read",
             "无法读取内核表（/proc/sys/fs/file-nr、/proc/loadavg）"});
    return;
  }
  std::vector<Table> full;
  if (l.open_files && l.open_files_max && *l.open_files_max > 0) {
    Table t{"open file handles", "已打开的文件句柄",
            *l.open_files,       *l.open_files_max,
            "fs.file-max",       "cat /proc/sys/fs/file-nr; sudo ls /proc/*/fd | wc -l"};
    if (t.Percent() >= kWarnPercent) full.push_back(t);
  }
  if (l.threads && (l.pid_max || l.threads_max)) {
    std::uint64_t max =
        std::min(l.pid_max.value_or(UINT64_MAX), l.threads_max.value_or(UINT64_MAX));
    std::string which = l.pid_max && (!l.threads_max || *l.pid_max <= *l.threads_max)
                            ? "kernel.pid_max"
                            : "kernel.threads-max";
    Table t{"threads", "线程", *l.threads,
            max,       which,  "ps -eLf | awk '{print $2}' | sort | uniq -c | sort -rn | head"};
    if (max > 0 && t.Percent() >= kWarnPercent) full.push_back(t);
  }
  if (full.empty()) return;
  bool critical = std::any_of(full.begin(), full.end(),
                              [](const Table& t) { return t.Percent() >= kCriticalPercent; });
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::string en, zh;
  for (const Table& t : full) {
    std::string pct = FormatNumber(t.Percent(), 0);
    en += (en.empty() ? "" : ", ") + fmt::format("{} at {} % of {}", t.en, pct, t.en_limit);
    zh += (zh.empty() ? "" : "，") + fmt::format("{}已达 {} 上限的 {} %", t.zh, t.en_limit, pct);
    f.evidence.push_back(
        NumberEvidence(fmt::format("{} {} of {} ({}: warning at {} %, critical at {} %)", t.en,
                                   t.used, t.max, t.en_limit, kWarnPercent, kCriticalPercent),
                       fmt::format("{} {} / {}（{}：{} % 警告，{} % 严重）", t.zh, t.used, t.max,
                                   t.en_limit, kWarnPercent, kCriticalPercent),
                       t.Percent(), "percent"));
  }
  f.title = Text{"A kernel table is nearly full: " + en, "内核表即将用尽：" + zh};
  f.explanation = Text{
      "When the table is full, opening a file or starting a thread fails: data loaders, NCCL's "
      "threads and the CUDA runtime then die with errors that seldom name the cause.",
      "表满之后，打开文件或创建线程会失败：数据加载进程、NCCL 的线程和 CUDA "
      "运行时随之报错退出，错误信息很少指明原因。"};
  for (const Table& t : full) {
    f.actions.push_back(Action{
        Text{fmt::format("Find what holds the {}.", t.en), fmt::format("找出占用{}的进程。", t.zh)},
        t.command});
    f.actions.push_back(Action{
        Text{fmt::format("Raise {} if the use is legitimate (and persist it in /etc/sysctl.d).",
                         t.en_limit),
             fmt::format("若占用合理，提高 {}（并写入 /etc/sysctl.d 持久化）。", t.en_limit)},
        fmt::format("sudo sysctl -w {}=<larger>", t.en_limit)});
  }
}

}  // namespace host_limits_rule
}  // namespace

const Rule kHostLimitsRule{"host.limits", "host",
                           "Open file handles and threads near the kernel's limits (file-max, "
                           "pid_max, threads-max)",
                           kNeedsHost, host_limits_rule::Evaluate};

}  // namespace gpudoctor
