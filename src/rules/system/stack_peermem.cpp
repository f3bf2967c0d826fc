// stack.peermem: InfiniBand or RoCE devices beside NVIDIA GPUs, the NVIDIA
// driver loaded, and nvidia_peermem not loaded. Without it (or DMA-BUF, the
// newer path: open kernel modules, Linux 5.12+, NCCL 2.19+), the NIC cannot
// read GPU memory directly: NCCL stages every message through host memory
// and logs "GPU Direct RDMA Disabled", and inter-node bandwidth drops by half
// or more. Warning with the proprietary modules (peermem is the only path);
// info with the open ones, where DMA-BUF may stand in. gpud checks the same
// (components/accelerator/nvidia/peermem).
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace stack_peermem_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const GpuStackFacts& s = input.versions->stack;
  if (!s.read) return;
  if (!s.modules) {
    out.NotCheckedBecause(Text{"/proc/modules could not be read", "无法读取 /proc/modules"});
    return;
  }
  if (s.infiniband_devices.empty() || !HasModule(s, "nvidia") || HasModule(s, "nvidia_peermem")) {
    return;
  }
  const auto& km = input.versions->driver.kernel_module;
  const bool open = km && km->open_module;
  Finding& f = out.Add(open ? Severity::kInfo : Severity::kWarning);
  const std::string devices = fmt::format("{}", fmt::join(s.infiniband_devices, ", "));
  f.title = Text{
      fmt::format("nvidia_peermem is not loaded beside RDMA devices ({}): GPUDirect "
                  "RDMA is off",
                  devices),
      fmt::format("存在 RDMA 设备（{}）但未加载 nvidia_peermem：GPUDirect RDMA 未启用", devices)};
  f.evidence.push_back(TextEvidence(
      fmt::format("/sys/class/infiniband lists {}; /proc/modules has nvidia but not "
                  "nvidia_peermem{}",
                  devices, open ? "; the driver's kernel modules are the open ones" : ""),
      fmt::format("/sys/class/infiniband 中有 {}；/proc/modules 中有 nvidia 但没有 "
                  "nvidia_peermem{}",
                  devices, open ? "；驱动使用开源内核模块" : "")));
  f.explanation = Text{
      "Without nvidia_peermem the network card cannot read and write GPU memory directly: NCCL "
      "copies every message through host memory (its log says \"GPU Direct RDMA Disabled\") and "
      "multi-node training loses half of its network bandwidth or more. " +
          std::string(open ? "With the open kernel modules, Linux 5.12 or later and NCCL 2.19 or "
                             "later, DMA-BUF can take its place; check NCCL's log."
                           : "With these kernel modules it is the only way."),
      "没有 nvidia_peermem，网卡无法直接读写 GPU 显存：NCCL 的每条消息都要经主机内存中转（日志显示 "
      "\"GPU Direct RDMA Disabled\"），多机训练的网络带宽损失一半甚至更多。" +
          std::string(open ? "使用开源内核模块、Linux 5.12 及以上和 NCCL 2.19 及以上时，DMA-BUF "
                             "可以替代它；请查看 NCCL 日志确认。"
                           : "使用当前内核模块时，这是唯一的途径。")};
  f.actions.push_back(Action{
      Text{"Load the module now and at every boot.", "立即加载该模块，并设置为开机自动加载。"},
      "sudo modprobe nvidia_peermem && echo nvidia_peermem | sudo tee "
      "/etc/modules-load.d/nvidia-peermem.conf"});
  f.actions.push_back(Action{
      Text{"Confirm that NCCL uses GPUDirect RDMA: its log names \"GDRDMA\" on each IB channel.",
           "确认 NCCL 使用了 GPUDirect RDMA：其日志中每个 IB 通道应带有 \"GDRDMA\"。"},
      "NCCL_DEBUG=INFO <your job> 2>&1 | grep -E 'GDRDMA|GPU Direct RDMA'"});
}

}  // namespace stack_peermem_rule
}  // namespace

const Rule kStackPeermemRule{"stack.peermem", "driver",
                             "InfiniBand/RoCE devices present but nvidia_peermem not loaded "
                             "(GPUDirect RDMA off)",
                             kNeedsVersions, stack_peermem_rule::Evaluate};

}  // namespace gpudoctor
