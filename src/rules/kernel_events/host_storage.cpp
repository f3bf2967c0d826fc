// host.storage: the kernel reported storage errors: I/O errors from the
// block layer or the buffer cache, an EXT4/XFS filesystem error, a
// filesystem remounted read-only or shut down, an md RAID member failed, an
// NVMe controller that timed out, went down, failed its reset or was
// removed, an access beyond the end of a device. Data was or may be lost,
// checkpoints fail, data loaders stall (the GPU then idles): critical.
// NVMe timeouts and a controller that went down and came back alone are a
// warning: I/O stalled, nothing was lost yet. One line per device.
#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/host_util.h"

namespace gpudoctor {
namespace {
namespace host_storage_rule {

using events::EventList;

bool OnlyStalls(const std::string& what) {
  return what == "I/O timeout" || what == "controller down";
}

// "nvme0n1p2" / "nvme0" -> "nvme0": the controller, for nvme smart-log.
std::string NvmeController(const std::string& device) {
  std::size_t end = 4;
  while (end < device.size() && device[end] >= '0' && device[end] <= '9') ++end;
  return device.substr(0, end);
}

// The first device the log names ("" when none does).
std::string FirstNamed(const std::vector<std::string>& order, bool nvme_only) {
  for (const std::string& d : order) {
    if (d.empty() || (nvme_only && d.rfind("nvme", 0) != 0)) continue;
    return d;
  }
  return {};
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList errors = events::EventsOfKind(input, {KernelEventKind::kStorageError});
  if (errors.empty()) return;
  std::map<std::string, std::set<std::string>> by_device;
  std::vector<std::string> order;
  bool lost = false, read_only = false, nvme = false;
  for (const KernelEvent* e : errors) {
    auto [device, what] = host_events::SplitDetail(e->detail);
    if (!by_device.contains(device)) order.push_back(device);
    by_device[device].insert(what);
    lost = lost || !OnlyStalls(what);
    read_only = read_only || what == "remounted read-only" || what == "filesystem shut down";
    nvme = nvme || device.rfind("nvme", 0) == 0;
  }
  std::string list_en, list_zh;
  for (const std::string& d : order) {
    std::string whats;
    for (const std::string& w : by_device[d]) whats += (whats.empty() ? "" : ", ") + w;
    list_en +=
        (list_en.empty() ? "" : "; ") + (d.empty() ? whats : fmt::format("`{}` ({})", d, whats));
  }
  list_zh = list_en;
  Finding& f = out.Add(lost ? Severity::kCritical : Severity::kWarning);
  const std::size_t times = events::TotalCount(errors);
  f.title =
      Text{fmt::format("Storage errors ({}): {}", host_events::Reports(times, Lang::kEn), list_en),
           fmt::format("存储错误（{}）：{}", host_events::Reports(times, Lang::kZh), list_zh)};
  f.explanation =
      lost ? Text{"The kernel could not read or write a disk, or a filesystem failed. Writes "
                  "such as checkpoints may be lost, and jobs reading data from it stall or fail "
                  "(a GPU that idles while its job waits for data).",
                  "内核无法读写磁盘，或文件系统出错。检查点等写入可能丢失，从中读取数据的任务会"
                  "停滞或失败（GPU 在等待数据时空闲）。"}
           : Text{"An NVMe drive stopped answering for a while (command timeouts, a controller "
                  "reset). I/O stalled meanwhile; a drive that does this again is failing.",
                  "NVMe 盘曾一度停止响应（命令超时、控制器复位）。期间 I/O "
                  "停滞；反复出现说明该盘正在损坏。"};
  if (read_only) {
    f.explanation.en += " A filesystem is now read-only or shut down: every write to it fails.";
    f.explanation.zh += "有文件系统已变为只读或已关闭：对它的每次写入都会失败。";
  }
  events::AddEventEvidence(f, errors);
  if (nvme) {
    f.actions.push_back(
        Action{Text{"Read the NVMe drive's health: media errors, spare, wear.",
                    "查看 NVMe 盘的健康信息：介质错误、备用块、磨损。"},
               "sudo nvme smart-log /dev/" + NvmeController(FirstNamed(order, true))});
  }
  f.actions.push_back(Action{
      Text{"Read the disks' SMART health and error logs.", "查看磁盘的 SMART 健康状态和错误日志。"},
      FirstNamed(order, false).empty() ? "sudo smartctl --scan"
                                       : "sudo smartctl -a /dev/" + FirstNamed(order, false)});
  if (read_only) {
    f.actions.push_back(Action{
        Text{"Find the read-only mounts; move the job's checkpoints elsewhere, then unmount and "
             "check the filesystem.",
             "找出只读挂载；将任务的检查点移到别处，然后卸载并检查文件系统。"},
        "findmnt -o TARGET,SOURCE,FSTYPE,OPTIONS | grep -w ro"});
  }
  f.actions.push_back(Action{
      Text{"Replace a disk that keeps failing; on a cloud instance, move to a new instance (local "
           "NVMe data does not survive the move).",
           "更换持续出错的磁盘；在云实例上请迁移到新实例（本地 NVMe 数据不会随迁移保留）。"},
      ""});
}

}  // namespace host_storage_rule
}  // namespace

const Rule kHostStorageRule{"host.storage", "host",
                            "Disk and filesystem errors: I/O errors, read-only remounts, NVMe "
                            "timeouts and resets, failed RAID members",
                            kNeedsKernelLog, host_storage_rule::Evaluate};

}  // namespace gpudoctor
