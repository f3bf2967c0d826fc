// network.nic_driver: the ConnectX NIC driver (mlx5_core) reported trouble
// in the kernel log: a firmware command that timed out, a failed health poll,
// an unrecoverable state (critical: the NIC stops carrying RDMA traffic until
// the driver is reloaded or the node rebooted), a transceiver module over its
// temperature (critical: the module shuts its link down), or a PCIe slot
// that cannot power the adapter (a warning: the firmware throttles the NIC).
// Each event names its PCI device; the RDMA device at that address, and the
// GPUs next to it, are named when the network facts are at hand.
#include <fmt/format.h>

#include <algorithm>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace network_mlx5_events_rule {

using events::EventList;

bool IsCritical(const KernelEvent& e) { return e.detail != kMlx5InsufficientPower; }

// "mlx5_4 (next to GPU 0000:18:00.0)" for the device at `bus`, "" when unknown.
std::string RdmaDeviceAt(const DiagnosisInput& input, const std::string& bus) {
  if (!input.network || bus.empty()) return "";
  for (const RdmaDevice& d : input.network->rdma.devices) {
    if (d.pci_bus_id != bus) continue;
    return d.nearest_gpus.empty() ? d.name
                                  : d.name + " (next to GPU " + d.nearest_gpus.front() + ")";
  }
  return "";
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList mlx5 = events::EventsOfKind(input, {KernelEventKind::kMlx5});
  if (mlx5.empty()) return;
  bool critical =
      std::any_of(mlx5.begin(), mlx5.end(), [](const KernelEvent* e) { return IsCritical(*e); });
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::vector<std::string> kinds;
  std::vector<std::string> devices;
  for (const KernelEvent* e : mlx5) {
    if (std::find(kinds.begin(), kinds.end(), e->detail) == kinds.end()) kinds.push_back(e->detail);
    std::string dev = RdmaDeviceAt(input, e->pci_bus_id);
    if (dev.empty()) dev = e->pci_bus_id.empty() ? "" : "PCI " + e->pci_bus_id;
    if (!dev.empty() && std::find(devices.begin(), devices.end(), dev) == devices.end())
      devices.push_back(dev);
  }
  std::string what = fmt::format("{}", fmt::join(kinds, ", "));
  f.title = Text{fmt::format("ConnectX NIC driver reported trouble: {}", what),
                 fmt::format("ConnectX 网卡驱动报告了故障：`{}`", what)};
  f.explanation = Text{
      "The mlx5_core driver of the ConnectX network adapter logged a fault. A command timeout, a "
      "failed health poll or an unrecoverable state means the adapter's firmware stopped "
      "answering: RDMA traffic over it stops and NCCL times out until the driver is reloaded or "
      "the node rebooted. A transceiver over its temperature shuts its link down. Insufficient "
      "slot power makes the firmware throttle the adapter far below its rate.",
      "ConnectX 网卡的 mlx5_core "
      "驱动记录了故障。命令超时、健康轮询失败或不可恢复状态说明网卡固件已停止响应："
      "经由它的 RDMA 通信中断，NCCL "
      "会超时，直到重新加载驱动或重启节点。光模块温度过高会关闭其链路。"
      "插槽供电不足会使固件将网卡限速到远低于其额定速率。"};
  if (!devices.empty()) {
    std::string line = fmt::format("adapter(s): {}", fmt::join(devices, "; "));
    f.evidence.push_back(events::NumberEvidence(Text{line, "`" + line + "`"},
                                                static_cast<double>(devices.size()), "count"));
  }
  events::AddEventEvidence(f, mlx5);
  f.actions.push_back(Action{
      Text{"Show the adapter's health and firmware state.", "查看网卡的健康状态和固件状态。"},
      "sudo dmesg -T | grep mlx5_core; sudo mlxfwmanager --query"});
  if (critical) {
    f.actions.push_back(Action{
        Text{
            "Drain the node, then reload the driver or reboot; if it comes back, reseat or replace "
            "the adapter or transceiver (on a cloud instance, report the host to the provider).",
            "排空节点后重新加载驱动或重启；若问题再次出现，请重新插拔或更换网卡或光模块（云服务器请"
            "向云厂商报告该宿主机）。"},
        "sudo systemctl reboot"});
  } else {
    f.actions.push_back(Action{
        Text{"Check the slot's power limit; move the adapter to a slot that powers it fully.",
             "检查插槽的供电上限；将网卡移到能为其完整供电的插槽。"},
        "sudo lspci -vvv -d 15b3: | grep -i -E 'SltCap|PowerLimit'"});
  }
}

}  // namespace network_mlx5_events_rule
}  // namespace

const Rule kNetworkMlx5EventsRule{"network.nic_driver", "network",
                                  "ConnectX NIC driver faults in the kernel log (command timeout, "
                                  "health, unrecoverable, slot power, module temperature)",
                                  kNeedsKernelLog, network_mlx5_events_rule::Evaluate};

}  // namespace gpudoctor
