// host.disk_space: a file system a job writes to is nearly full: the root,
// /tmp, /dev/shm, gpudoctor's data directory. Checkpoints and logs fail to
// write, pip and compilers fail, and the kernel may remount on errors.
// Free space below 10 % or 500 MiB is a warning, below 2 % or 100 MiB
// critical; inodes the same by share. /dev/shm is judged by share only, and
// separately by its size: below 1 GiB (Docker's default is 64 MiB), PyTorch's
// DataLoader workers die with "bus error" or "No space left on device" when
// they pass batches through it.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace host_disk_space_rule {

constexpr double kWarnPercent = 10;
constexpr double kCriticalPercent = 2;
constexpr double kWarnBytes = 500.0 * 1024 * 1024;
constexpr double kCriticalBytes = 100.0 * 1024 * 1024;
constexpr double kShmSmallBytes = 1024.0 * 1024 * 1024;

std::string Mib(double bytes) { return FormatNumber(bytes / (1024.0 * 1024), 0); }

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const DiskSpaceFacts& facts = input.host->disk_space;
  if (facts.disks.empty()) {
    std::string why =
        facts.sources.empty() ? "no file system could be read" : facts.sources.front().why;
    out.NotCheckedBecause(Text{
        "free space: " + why, "未读取磁盘可用空间（仅在本机的根文件系统上读取，--root 下不读取）"});
    return;
  }
  for (const DiskSpace& d : facts.disks) {
    if (d.total_bytes == 0) continue;
    const bool shm = d.path == "/dev/shm";
    const auto total = static_cast<double>(d.total_bytes);
    const auto free = static_cast<double>(d.free_bytes);
    const double pct = 100.0 * free / total;
    bool crit = pct < kCriticalPercent || (!shm && free < kCriticalBytes);
    bool warn = crit || pct < kWarnPercent || (!shm && free < kWarnBytes);
    std::optional<double> inode_pct;
    if (d.inodes_total && d.inodes_free && *d.inodes_total > 0) {
      inode_pct =
          100.0 * static_cast<double>(*d.inodes_free) / static_cast<double>(*d.inodes_total);
      crit = crit || *inode_pct < kCriticalPercent;
      warn = warn || *inode_pct < kWarnPercent;
    }
    if (warn) {
      Finding& f = out.Add(crit ? Severity::kCritical : Severity::kWarning);
      f.title =
          Text{fmt::format("`{}` is nearly full: {} MiB free of {} MiB ({} %){}", d.path, Mib(free),
                           Mib(total), FormatNumber(pct, 1),
                           inode_pct && *inode_pct < kWarnPercent
                               ? fmt::format(", {} % of inodes free", FormatNumber(*inode_pct, 1))
                               : ""),
               fmt::format("`{}` 即将写满：可用 {} MiB，共 {} MiB（{} %）{}", d.path, Mib(free),
                           Mib(total), FormatNumber(pct, 1),
                           inode_pct && *inode_pct < kWarnPercent
                               ? fmt::format("，inode 仅剩 {} %", FormatNumber(*inode_pct, 1))
                               : "")};
      f.explanation = Text{
          "Writes to it fail once it is full: checkpoints and logs are lost, package installs "
          "and kernel compilations fail, and a job that writes there stops.",
          "写满后写入会失败：检查点和日志丢失，软件包安装和内核编译失败，向其写入的任务会停止。"};
      f.evidence.push_back(NumberEvidence(
          fmt::format("{}: {} of {} bytes free (warning below {} % or {} MiB, critical below {} % "
                      "or {} MiB)",
                      d.path, d.free_bytes, d.total_bytes, kWarnPercent, Mib(kWarnBytes),
                      kCriticalPercent, Mib(kCriticalBytes)),
          fmt::format(
              "{}：可用 {} 字节，共 {} 字节（低于 {} % 或 {} MiB 为警告，低于 {} % 或 {} MiB "
              "为严重）",
              d.path, d.free_bytes, d.total_bytes, kWarnPercent, Mib(kWarnBytes), kCriticalPercent,
              Mib(kCriticalBytes)),
          pct, "percent"));
      f.actions.push_back(Action{Text{"Find what fills it.", "找出占用空间的内容。"},
                                 fmt::format("sudo du -xh --max-depth=2 {} | sort -h | tail -20; "
                                             "df -ih {}",
                                             d.path, d.path)});
      f.actions.push_back(Action{
          Text{"Move checkpoints and datasets to a larger volume, and rotate or delete old logs "
               "and caches.",
               "将检查点和数据集移到更大的卷上，并轮转或删除旧的日志和缓存。"},
          ""});
    }
    if (shm && total < kShmSmallBytes) {
      Finding& f = out.Add(Severity::kWarning);
      f.title = Text{fmt::format("/dev/shm is only {} MiB", Mib(total)),
                     fmt::format("/dev/shm 仅有 {} MiB", Mib(total))};
      f.explanation = Text{
          "PyTorch's DataLoader workers pass batches through shared memory; with a small "
          "/dev/shm (Docker's default is 64 MiB) they die with \"bus error\" or \"No space left "
          "on device\".",
          "PyTorch 的 DataLoader 工作进程通过共享内存传递批数据；/dev/shm 过小（Docker 默认 64 "
          "MiB）时它们会因总线错误或空间不足而退出。"};
      f.evidence.push_back(NumberEvidence(
          fmt::format("/dev/shm: {} bytes (at least 1 GiB recommended)", d.total_bytes),
          fmt::format("/dev/shm：{} 字节（建议至少 1 GiB）", d.total_bytes), total, "bytes"));
      f.actions.push_back(Action{
          Text{"Give the container more shared memory: `--shm-size=16g` (or `--ipc=host`) for "
               "Docker; in Kubernetes, mount an emptyDir with medium: Memory at /dev/shm.",
               "为容器提供更多共享内存：Docker 使用 `--shm-size=16g`（或 `--ipc=host`）；在 "
               "Kubernetes 中，在 /dev/shm 挂载内存型 emptyDir。"},
          "df -h /dev/shm"});
    }
  }
}

}  // namespace host_disk_space_rule
}  // namespace

const Rule kHostDiskSpaceRule{"host.disk_space", "host",
                              "File systems nearly full (/, /tmp, /dev/shm, the data directory: "
                              "below 10 % or 500 MiB free, or 10 % of inodes), and a /dev/shm "
                              "below 1 GiB",
                              kNeedsHost, host_disk_space_rule::Evaluate};

}  // namespace gpudoctor
