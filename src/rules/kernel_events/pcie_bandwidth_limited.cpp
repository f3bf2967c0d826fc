// pcie.bandwidth_limited: the kernel's boot-time note that a device gets less
// PCIe bandwidth than it can use ("252.048 Gb/s available PCIe bandwidth,
// limited by 16.0 GT/s PCIe x16 link at 0000:01:00.0 (capable of ...)"): the
// GPU sits behind a slower slot, riser or switch port. A warning: host-device
// copies run slower. Only for GPUs when the input says which devices are GPUs.
#include <fmt/format.h>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace pcie_bandwidth_limited_rule {

using events::EventList;

// nullopt when nothing in the input says which devices are GPUs.
std::optional<bool> IsGpu(const DiagnosisInput& input, const std::string& bus) {
  auto uuids = events::UuidByBus(input);
  bool known = !input.gpus.empty() || !uuids.empty() || (input.pci && !input.pci->gpus.empty());
  if (!known) return std::nullopt;
  if (FindGpu(input, bus) || uuids.count(bus)) return true;
  if (input.pci) {
    for (const PciDevice& d : input.pci->gpus) {
      if (d.bus_id == bus) return true;
    }
  }
  return false;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList limited = events::EventsOfKind(input, {KernelEventKind::kPcieBandwidthLimited});
  for (const auto& [bus, group] : events::ByGpu(limited)) {
    std::optional<bool> gpu = IsGpu(input, bus);
    if (gpu == false) continue;  // a NIC or disk: not ours to judge
    Finding& f = out.Add(Severity::kWarning);
    if (!bus.empty()) f.gpus.push_back(bus);
    Text label = events::GpuText(input, bus);
    std::string limit = "`" + group.front()->detail + "`";
    f.title = Text{fmt::format("{} gets less PCIe bandwidth than it can use", label.en),
                   fmt::format("{} 可用的 PCIe 带宽低于其能力", label.zh)};
    f.explanation = Text{
        fmt::format("The kernel found the device limited by {}: it sits behind a slower slot, "
                    "riser or switch port than it supports, so copies between host and GPU run "
                    "slower.",
                    limit),
        fmt::format(
            "内核发现该设备受限于 {}：它所在的插槽、转接卡或交换端口比它支持的慢，主机与 GPU "
            "之间的数据拷贝因此变慢。",
            limit)};
    if (!gpu) {
      f.explanation.en += " The log alone does not say whether this device is a GPU.";
      f.explanation.zh += "仅凭日志无法确定该设备是否为 GPU。";
    }
    events::AddEventEvidence(f, group);
    f.actions.push_back(
        Action{Text{"Compare the link's current and maximum speed and width.",
                    "比较链路当前与最大的速率和宽度。"},
               "sudo lspci -vv -s " + events::SmiTarget(bus) + " | grep -E 'LnkCap|LnkSta'"});
    f.actions.push_back(Action{
        Text{"Move the GPU to a slot (or switch port) of its own generation and width, check the "
             "BIOS PCIe settings, or on a cloud instance ask the provider.",
             "将 GPU 移到与其代际和宽度相符的插槽（或交换端口），检查 BIOS 的 PCIe "
             "设置；云服务器请咨询云厂商。"},
        ""});
  }
}

}  // namespace pcie_bandwidth_limited_rule
}  // namespace

const Rule kPcieBandwidthLimitedRule{
    "pcie.bandwidth_limited", "pcie",
    "A GPU limited by a slower PCIe link upstream (the kernel's 'limited by' message)",
    kNeedsKernelLog, pcie_bandwidth_limited_rule::Evaluate};

}  // namespace gpudoctor
