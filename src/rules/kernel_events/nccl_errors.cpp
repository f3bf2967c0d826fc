// nccl.errors: NCCL collective timeouts (PyTorch's watchdog) and crashes in
// libnccl. A warning; the correlation says where to look: NVLink errors (in
// the readings' counters, NVLink Xids or NVSwitch SXids) or a Fabric Manager
// that is not running on an NVSwitch system point to the fabric; otherwise to
// the job and the network (a timeout usually means one rank died or hung).
#include <fmt/format.h>

#include <fmt/ranges.h>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/nccl_rdma_signs.h"

namespace gpudoctor {
namespace {
namespace nccl_errors_rule {

using events::EventList;

// Signs that the GPU fabric is at fault, each as evidence; true when any.
bool AddFabricSigns(const DiagnosisInput& input, Finding& f) {
  bool any = false;
  EventList nvlink = events::XidEventsOwnedBy(input, events::XidOwner::kNvlink);
  EventList sxid = events::EventsOfKind(input, {KernelEventKind::kSxid});
  for (const EventList* list : {&nvlink, &sxid}) {
    if (list->empty()) continue;
    any = true;
    events::AddEventEvidence(f, *list, 3);
  }
  std::int64_t link_errors = 0;
  for (const GpuSeries& gpu : input.gpus) {
    for (const NvLinkStatus& l : gpu.latest().nvlinks) {
      link_errors += l.crc_flit_errors.value_or(0) + l.crc_data_errors.value_or(0) +
                     l.replay_errors.value_or(0) + l.recovery_errors.value_or(0);
    }
  }
  if (link_errors > 0) {
    any = true;
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("{} NVLink CRC, replay and recovery errors counted on this node's GPUs",
                         link_errors),
             fmt::format("本节点 GPU 的 NVLink CRC、重传和恢复错误计数共 {} 个", link_errors)},
        static_cast<double>(link_errors), "count"));
  }
  if (input.versions && input.versions->fabric_manager.nvswitch_present &&
      input.versions->fabric_manager.service &&
      !input.versions->fabric_manager.service->Running()) {
    any = true;
    const ServiceState& s = *input.versions->fabric_manager.service;
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("nvidia-fabricmanager is {} ({}) on this NVSwitch system", s.active_state,
                         s.sub_state),
             fmt::format("此 NVSwitch 系统上 `nvidia-fabricmanager` 的状态为 `{} ({})`",
                         s.active_state, s.sub_state)},
        0, "flag"));
  }
  return any;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList nccl =
      events::EventsOfKind(input, {KernelEventKind::kNcclTimeout, KernelEventKind::kNcclSegfault});
  if (nccl.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  std::size_t times = events::TotalCount(nccl);
  f.title = Text{fmt::format("NCCL collectives timed out or crashed ({} times)", times),
                 fmt::format("NCCL 集合通信超时或崩溃（{} 次）", times)};
  f.explanation = Text{
      "NCCL timeouts stop a distributed job: one rank waited for the others longer than the "
      "timeout. Crashes in libnccl end the process.",
      "NCCL 超时会使分布式任务停止：某个进程等待其他进程的时间超过了超时上限。libnccl "
      "中的崩溃会直接终止进程。"};
  events::AddEventEvidence(f, nccl);
  if (events::AddRdmaSignsNear(input, nccl, "the NCCL timeout", f)) {
    f.explanation.en +=
        " An RDMA port of this node went down or counted errors in the same window: the "
        "inter-node fabric is the likely cause, and the GPUs next to that port are the ranks that "
        "stalled.";
    f.explanation.zh +=
        "本节点有 RDMA 端口在同一时间段内断开或计入错误：节点间网络很可能是原因，"
        "该端口旁边的 GPU 就是卡住的进程所在。";
    f.actions.push_back(Action{Text{"Check the named RDMA port: its state, rate and counters.",
                                    "检查上面列出的 RDMA 端口的状态、速率和计数器。"},
                               "ibstat; perfquery -x"});
  } else if (AddFabricSigns(input, f)) {
    f.explanation.en +=
        " This node also shows NVLink/NVSwitch errors or a stopped Fabric Manager: "
        "the GPU fabric is the likely cause.";
    f.explanation.zh +=
        "本节点同时存在 NVLink/NVSwitch 错误或 Fabric Manager 未运行：GPU 互连很可能是原因。";
    f.actions.push_back(Action{
        Text{"Check the NVLink links and their error counters.", "检查 NVLink 链路及其错误计数。"},
        "nvidia-smi nvlink -s; nvidia-smi nvlink -e"});
    f.actions.push_back(Action{Text{"Check the Fabric Manager and restart it if it is not running.",
                                    "检查 Fabric Manager，若未运行则重启它。"},
                               "systemctl status nvidia-fabricmanager"});
  } else {
    f.explanation.en +=
        " Nothing here points to this node's GPU fabric, so look at the job and the "
        "network: a timeout usually means one rank died or hung.";
    f.explanation.zh +=
        "本节点没有迹象指向 GPU "
        "互连，因此应检查任务本身和网络：超时通常意味着某个进程已退出或卡住。";
    f.actions.push_back(Action{
        Text{"Find the rank that stopped first: look for Xids, OOM kills or crashes on the other "
             "nodes of the job at the time of the timeout.",
             "找出最先停止的进程：在超时时刻查看该任务其他节点上的 Xid、OOM 终止或崩溃记录。"},
        "sudo dmesg -T | grep -i -E 'Xid|oom|segfault'"});
    f.actions.push_back(Action{Text{"Rerun with NCCL's debug log to see which link or peer stalls.",
                                    "开启 NCCL 调试日志重新运行，查看是哪条链路或哪个对端卡住。"},
                               "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET <command>"});
  }
}

}  // namespace nccl_errors_rule
}  // namespace

const Rule kNcclErrorsRule{"nccl.errors", "nvlink",
                           "NCCL timeouts and crashes, pointed at the GPU fabric or the job and "
                           "network",
                           kNeedsKernelLog, nccl_errors_rule::Evaluate};

}  // namespace gpudoctor
