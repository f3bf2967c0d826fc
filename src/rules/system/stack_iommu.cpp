// stack.iommu: on bare metal, the GPUs' IOMMU groups translate DMA
// (/sys/kernel/iommu_groups/N/type "DMA" or "DMA-FQ") instead of passing it
// through ("identity"). Every peer-to-peer and GPUDirect RDMA transfer then
// goes through the IOMMU: NVIDIA and NCCL advise iommu=pt (or the IOMMU off)
// on GPU servers, since translation slows P2P and can break it. Virtual
// machines are left alone: there the hypervisor decides. Warning.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace stack_iommu_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const GpuStackFacts& s = input.versions->stack;
  if (!s.read) return;
  if (!s.virtual_machine) {
    out.NotCheckedBecause(Text{"/proc/cpuinfo could not be read (bare metal or VM unknown)",
                               "无法读取 /proc/cpuinfo（无法判断是否为虚拟机）"});
    return;
  }
  if (*s.virtual_machine) return;
  std::vector<std::string> translated;
  std::string type;
  for (const auto& [gpu, t] : s.iommu_types) {
    if (t == "DMA" || t == "DMA-FQ") {
      translated.push_back(gpu);
      type = t;
    }
  }
  if (translated.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  f.gpus = translated;
  const std::string list = fmt::format("{}", fmt::join(translated, ", "));
  f.title = Text{fmt::format("The IOMMU translates the DMA of {} GPU(s) on bare metal (group type "
                             "{}): peer-to-peer and GPUDirect RDMA are slowed",
                             translated.size(), type),
                 fmt::format("物理机上 IOMMU 对 {} 个 GPU 的 DMA 做地址转换（组类型 {}）："
                             "点对点和 GPUDirect RDMA 传输变慢",
                             translated.size(), type)};
  f.evidence.push_back(TextEvidence(
      fmt::format("/sys/bus/pci/devices/<gpu>/iommu_group/type is {} for {}", type, list),
      fmt::format("{} 的 /sys/bus/pci/devices/<gpu>/iommu_group/type 为 {}", list, type)));
  f.explanation = Text{
      "With the IOMMU translating, every transfer between GPUs and between a GPU and the network "
      "card goes through address translation: NCCL's bandwidth drops and peer-to-peer can fail. "
      "On GPU servers NVIDIA advises passthrough mode (iommu=pt) or the IOMMU off, unless "
      "devices are given to virtual machines.",
      "IOMMU 做地址转换时，GPU 之间以及 GPU 与网卡之间的每次传输都要经过转换：NCCL 带宽下降，"
      "点对点传输可能失败。除非要把设备分配给虚拟机，NVIDIA 建议在 GPU 服务器上使用直通模式（iommu=pt）或关闭 IOMMU。"};
  f.actions.push_back(
      Action{Text{"See the kernel's IOMMU settings.", "查看内核的 IOMMU 设置。"},
             "cat /proc/cmdline; cat /sys/kernel/iommu_groups/*/type | sort | uniq -c"});
  f.actions.push_back(Action{
      Text{"Add iommu=pt to the kernel command line (GRUB_CMDLINE_LINUX), update GRUB, reboot.",
           "在内核命令行（GRUB_CMDLINE_LINUX）中加入 iommu=pt，更新 GRUB 后重启。"},
      "sudo sed -i 's/^GRUB_CMDLINE_LINUX=\"/&iommu=pt /' /etc/default/grub && sudo update-grub"});
}

}  // namespace stack_iommu_rule
}  // namespace

const Rule kStackIommuRule{"stack.iommu", "pcie",
                           "IOMMU translating the GPUs' DMA on bare metal (iommu=pt advised)",
                           kNeedsVersions, stack_iommu_rule::Evaluate};

}  // namespace gpudoctor
