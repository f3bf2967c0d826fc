// nvlink.rx_detect: the driver could not update the NVLink post-Rx-detect
// link mask ("knvlinkUpdatePostRxDetectLinkMask_IMPL: Failed to update Rx
// Detect Link mask!", "knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's
// postRxDetLinkMask failed!"): link training with the NVLink peers did not
// finish, so the GPUs have no NVLink path to each other. Nothing errors in
// the job; collectives fall back to PCIe at a fraction of the speed, or
// nvidia-smi and NCCL hang. Critical: only a reboot of the node (which resets
// every GPU and NVSwitch together) sets the links up again.
#include <fmt/format.h>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace nvlink_rx_detect_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  events::EventList rx = events::EventsOfKind(input, {KernelEventKind::kNvlinkRxDetect});
  if (rx.empty()) return;
  Finding& f = out.Add(Severity::kCritical);
  std::size_t times = events::TotalCount(rx);
  f.title = Text{
      fmt::format("NVLink peers were not set up: Rx detect link mask failures ({} times)", times),
      fmt::format("NVLink 对端未能建立：Rx detect 链路掩码更新失败（{} 次）", times)};
  f.explanation = Text{
      "The driver could not finish NVLink link training with the GPU's peers (it failed to update "
      "the post-Rx-detect link mask). The GPUs then have no NVLink path to each other: "
      "collectives fall back to PCIe at a fraction of the speed, or nvidia-smi and NCCL hang. "
      "Only a reboot of the node, which resets every GPU and NVSwitch together, brings the links "
      "up again.",
      "驱动未能与对端 GPU 完成 NVLink 链路训练（无法更新 post-Rx-detect 链路掩码）。此时 GPU "
      "之间没有 "
      "NVLink 通路：集合通信退回到 PCIe，速度只有几分之一，或者 nvidia-smi 和 NCCL 卡住。"
      "只有重启节点（同时复位所有 GPU 和 NVSwitch）才能让链路重新建立。"};
  events::AddEventEvidence(f, rx, 3);
  f.actions.push_back(Action{Text{"Confirm which links are down.", "确认哪些链路处于断开状态。"},
                             "nvidia-smi nvlink -s"});
  f.actions.push_back(Action{
      Text{"Drain the node and reboot it; if the failures come back after the reboot, report the "
           "node (baseboard, NVSwitch) to the provider.",
           "排空节点后重启；若重启后仍出现这些错误，请向云厂商报告该节点（基板、NVSwitch）。"},
      "sudo reboot"});
}

}  // namespace nvlink_rx_detect_rule
}  // namespace

const Rule kNvlinkRxDetectRule{"nvlink.rx_detect", "nvlink",
                               "NVLink post-Rx-detect link mask failures: links to the peers not "
                               "set up (reboot)",
                               kNeedsKernelLog, nvlink_rx_detect_rule::Evaluate};

}  // namespace gpudoctor
