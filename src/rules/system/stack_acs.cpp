// stack.acs: on bare metal, a PCIe bridge above a GPU has Access Control
// Services redirecting peer-to-peer requests or completions (ACS Control
// P2P Request/Completion Redirect, bits 2 and 3) to the root complex.
// GPU-to-GPU and GPU-to-NIC traffic under one PCIe switch then climbs to the
// CPU and back: NCCL and NVIDIA's guides tell to disable ACS on bare metal
// (it hangs or slows P2P). Virtual machines are left alone (the hypervisor
// needs ACS for isolation). Reading ACS needs the extended configuration
// space, which only root can read: otherwise the rule says not checked.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace stack_acs_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const GpuStackFacts& s = input.versions->stack;
  if (!s.read || (s.virtual_machine && *s.virtual_machine)) return;
  if (!s.virtual_machine) {
    out.NotCheckedBecause(Text{"/proc/cpuinfo could not be read (bare metal or VM unknown)",
                               "无法读取 /proc/cpuinfo（无法判断是否为虚拟机）"});
    return;
  }
  if (s.acs_redirects.empty()) {
    if (s.acs_ports_read == 0 && s.acs_unreadable > 0) {
      out.NotCheckedBecause(
          Text{"the PCIe bridges' extended configuration space needs root to read",
               "读取 PCIe 桥的扩展配置空间需要 root 权限"});
    }
    return;
  }
  Finding& f = out.Add(Severity::kWarning);
  std::vector<std::string> ports;
  for (const AcsRedirect& a : s.acs_redirects) {
    ports.push_back(a.port);
    if (std::find(f.gpus.begin(), f.gpus.end(), a.gpu) == f.gpus.end()) f.gpus.push_back(a.gpu);
    f.evidence.push_back(TextEvidence(
        fmt::format("bridge {} above GPU {}: ACS Control {:#06x} (P2P request redirect {}, "
                    "completion redirect {})",
                    a.port, a.gpu, a.control, (a.control & 0x4) ? "on" : "off",
                    (a.control & 0x8) ? "on" : "off"),
        fmt::format("GPU {} 上游的桥 {}：ACS Control {:#06x}（P2P 请求重定向{}，完成重定向{}）",
                    a.gpu, a.port, a.control, (a.control & 0x4) ? "开启" : "关闭",
                    (a.control & 0x8) ? "开启" : "关闭")));
  }
  const std::string list = fmt::format("{}", fmt::join(ports, ", "));
  f.title =
      Text{fmt::format("PCIe ACS redirects peer-to-peer traffic on {} bridge(s) above the "
                       "GPUs on bare metal",
                       ports.size()),
           fmt::format("物理机上 GPU 上游有 {} 个 PCIe 桥启用了 ACS 点对点重定向", ports.size())};
  f.explanation = Text{
      "With ACS redirect on, traffic between GPUs (and between a GPU and the network card) under "
      "the same PCIe switch is sent up to the CPU's root complex and back: peer-to-peer bandwidth "
      "drops and NCCL may hang. NVIDIA and NCCL advise turning ACS off on bare-metal GPU servers "
      "(virtual machines need it for isolation).",
      "启用 ACS 重定向后，同一 PCIe 交换芯片下 GPU 之间（以及 GPU 与网卡之间）的流量要先上送到 CPU "
      "的根复合体再返回：点对点带宽下降，NCCL 可能挂起。NVIDIA 和 NCCL 建议在物理机 GPU 服务器上关闭 "
      "ACS（虚拟机需要它来隔离设备）。"};
  f.actions.push_back(
      Action{Text{"See the ACS control of the bridges.", "查看这些桥的 ACS 控制位。"},
             fmt::format("sudo lspci -vvv -s {} | grep -i ACSCtl", ports.front())});
  f.actions.push_back(Action{
      Text{"Turn ACS off in the BIOS (PCIe ACS / 'ACS Control: Disabled'), or clear it at every "
           "boot with setpci as NCCL's troubleshooting guide shows.",
           "在 BIOS 中关闭 ACS，或按 NCCL 故障排查指南在每次开机时用 setpci 清除。"},
      fmt::format("for p in {}; do sudo setpci -s $p ECAP_ACS+0x6.w=0000; done", list)});
}

}  // namespace stack_acs_rule
}  // namespace

const Rule kStackAcsRule{"stack.acs", "pcie",
                         "PCIe ACS redirecting peer-to-peer traffic above the GPUs on bare metal",
                         kNeedsVersions, stack_acs_rule::Evaluate};

}  // namespace gpudoctor
