// gpudirect.peermem: errors of nvidia-peermem, the module that lets an RDMA
// NIC (InfiniBand, RoCE) read and write GPU memory directly (GPUDirect RDMA).
// "nv_get_p2p_free_callback ... ERROR detected invalid context, skipping
// further processing" is printed when the NIC side releases a GPU memory
// registration whose CUDA context is already gone (the process exited or
// crashed with memory still registered): cleanup, worth knowing, not a
// fault of the GPU. Info, host-wide (the line names no GPU).
#include <fmt/format.h>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace gpudirect_peermem_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  events::EventList errors = events::EventsOfKind(input, {KernelEventKind::kPeermemError});
  if (errors.empty()) return;
  Finding& f = out.Add(Severity::kInfo);
  std::size_t times = events::TotalCount(errors);
  f.title = Text{fmt::format("GPUDirect RDMA (nvidia-peermem) reported errors ({} times)", times),
                 fmt::format("GPUDirect RDMA（nvidia-peermem）报告了错误（{} 次）", times)};
  f.explanation = Text{
      "nvidia-peermem lets an RDMA network card read and write GPU memory directly. \"Detected "
      "invalid context\" means the card released GPU memory whose CUDA context was already gone: "
      "a process ended or crashed with memory still registered. It is cleanup, not a GPU fault; "
      "if NCCL jobs over InfiniBand or RoCE hang or fail at the same time, look at the job that "
      "ended and at the network side.",
      "nvidia-peermem 让 RDMA 网卡直接读写 GPU 显存。`detected invalid context` 表示网卡释放的显存"
      "所属的 CUDA 上下文已不存在：某个进程在显存仍被注册时退出或崩溃。这是清理过程，不是 GPU "
      "故障；若同时有经由 InfiniBand 或 RoCE 的 NCCL 任务卡住或失败，请检查结束的任务和网络侧。"};
  events::AddEventEvidence(f, errors);
  f.actions.push_back(
      Action{Text{"See which jobs ended or crashed at that time.", "查看当时结束或崩溃的任务。"},
             "sudo dmesg -T | grep -i -E 'peermem|Xid|segfault'"});
  f.actions.push_back(Action{Text{"Check that the module matches the driver and the RDMA ports "
                                  "are up.",
                                  "确认该模块与驱动版本一致，且 RDMA 端口处于活动状态。"},
                             "modinfo nvidia-peermem | grep -i version; ibstat"});
}

}  // namespace gpudirect_peermem_rule
}  // namespace

const Rule kGpudirectPeermemRule{"gpudirect.peermem", "network",
                                 "nvidia-peermem (GPUDirect RDMA) errors in the kernel log",
                                 kNeedsKernelLog, gpudirect_peermem_rule::Evaluate};

}  // namespace gpudoctor
