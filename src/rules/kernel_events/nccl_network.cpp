// nccl.network: NCCL's transport lost its network (transport/net_ib,
// misc/ibvwrap, misc/socket): an InfiniBand/RoCE work completion in error
// (status 12, "transport retry counter exceeded", is the classic: packets to
// the peer were lost until the HCA gave up), a queue pair that could not be
// brought up (ibv_modify_qp), a socket the peer closed or a connection it
// refused. Each of these ends the job: critical, except a refused connection
// NCCL is still retrying (a warning). The explanation and actions follow
// what failed; the RDMA ports of this node that went down or counted errors
// around it are named when the readings have them.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"
#include "rules/kernel_events/nccl_rdma_signs.h"

namespace gpudoctor {
namespace {
namespace nccl_network_rule {

using events::EventList;

bool StartsWith(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }

struct Failures {
  bool retries_exceeded = false;  // completion status 12 or 13
  bool protection = false;        // completion status 4: the HCA could not reach the buffer
  bool other_completion = false;
  bool queue_pair = false;  // an ibv_* call failed
  bool peer_closed = false;
  bool refused = false;
  bool refused_retrying = false;
};

Failures Classify(const EventList& events) {
  Failures f;
  for (const KernelEvent* e : events) {
    const std::string& d = e->detail;
    if (StartsWith(d, "completion error 12") || StartsWith(d, "completion error 13")) {
      f.retries_exceeded = true;
    } else if (StartsWith(d, "completion error 4 ") || d == "completion error 4") {
      f.protection = true;
    } else if (StartsWith(d, "completion error")) {
      f.other_completion = true;
    } else if (StartsWith(d, "ibv_")) {
      f.queue_pair = true;
    } else if (StartsWith(d, "connection closed")) {
      f.peer_closed = true;
    } else if (d == "connection refused, retrying") {
      f.refused_retrying = true;
    } else {
      f.refused = true;
    }
  }
  return f;
}

// The distinct details, at most `max`, for the title.
std::string Summary(const EventList& events, std::size_t max) {
  std::vector<std::string> kinds;
  for (const KernelEvent* e : events) {
    std::string head = e->detail.substr(0, e->detail.find(", vendor"));
    head = head.substr(0, head.find(", peer"));
    head = head.substr(0, head.find(", device"));
    if (std::find(kinds.begin(), kinds.end(), head) == kinds.end()) kinds.push_back(head);
  }
  std::string out;
  for (std::size_t i = 0; i < kinds.size() && i < max; ++i) out += (i ? "; " : "") + kinds[i];
  if (kinds.size() > max) out += fmt::format("; {} more", kinds.size() - max);
  return out;
}

void AddExplanationAndActions(const Failures& fails, Finding& f) {
  if (fails.retries_exceeded || fails.other_completion) {
    f.explanation.en +=
        " A work completion in error means the HCA gave up on a transfer: with status 12 "
        "(transport retry counter exceeded) or 13 (RNR retries) the peer did not acknowledge "
        "in time, so packets were lost on the way (a port or cable going down or flapping, a "
        "switch dropping, congestion beyond NCCL_IB_TIMEOUT) or the peer's node stopped.";
    f.explanation.zh +=
        "工作完成（work completion）出错表示 HCA 放弃了一次传输：状态 12（传输重试次数超限）或 "
        "13（RNR 重试超限）说明对端没有及时确认，数据包在途中丢失（端口或线缆断开或抖动、交换机丢包、"
        "拥塞超过 NCCL_IB_TIMEOUT），或对端节点已停止。";
    f.actions.push_back(Action{
        Text{
            "Check the state, rate and error counters (symbol errors, link downed, port receive "
            "errors) of this node's ports and the peer's; a port that went down or counts errors "
            "is the cause.",
            "检查本节点和对端节点端口的状态、速率和错误计数（符号错误、链路断开次数、端口接收错误）；"
            "断开过或计入错误的端口就是原因。"},
        "ibstat; perfquery -x; gpudoctor diagnose"});
    f.actions.push_back(Action{
        Text{"If the ports are clean and the fabric is large or busy, raise the IB timeout for "
             "the job.",
             "若端口正常而网络规模大或负载重，可为任务调高 IB 超时。"},
        "NCCL_IB_TIMEOUT=22 <command>"});
  }
  if (fails.protection) {
    f.explanation.en +=
        " Status 4 (local protection error) means the HCA could not access the buffer: with "
        "GPUDirect RDMA this is the nvidia-peermem module missing, or PCIe ACS or the IOMMU "
        "blocking peer-to-peer traffic between the NIC and the GPU.";
    f.explanation.zh +=
        "状态 4（本地保护错误）表示 HCA 无法访问缓冲区：使用 GPUDirect RDMA 时，通常是缺少 "
        "nvidia-peermem 模块，或 PCIe ACS、IOMMU 阻止了网卡与 GPU 之间的点对点传输。";
    f.actions.push_back(
        Action{Text{"Load nvidia-peermem and check that PCIe ACS is off between the NIC and the "
                    "GPUs (bare metal).",
                    "加载 nvidia-peermem，并确认网卡与 GPU 之间的 PCIe ACS 已关闭（物理机）。"},
               "lsmod | grep nvidia_peermem || sudo modprobe nvidia-peermem; sudo lspci -vvv | "
               "grep -i 'ACSCtl'"});
  }
  if (fails.queue_pair) {
    f.explanation.en +=
        " A failed ibv_modify_qp means the connection to the peer could not be brought up: the "
        "peer is not reachable over this port and GID (a port down, a wrong GID index, no route "
        "between the subnets).";
    f.explanation.zh +=
        "ibv_modify_qp 失败表示无法建立到对端的连接：通过该端口和 GID "
        "无法到达对端（端口断开、GID 索引错误、子网之间没有路由）。";
    f.actions.push_back(Action{
        Text{"Check the port state and the GID table; set NCCL_IB_GID_INDEX to the RoCE v2 GID "
             "where RoCE is used.",
             "检查端口状态和 GID 表；使用 RoCE 时将 NCCL_IB_GID_INDEX 设为 RoCE v2 的 GID。"},
        "ibstat; show_gids"});
  }
  if (fails.peer_closed || fails.refused || fails.refused_retrying) {
    f.explanation.en +=
        " A connection closed by the peer, or refused by it, usually means the process on the "
        "other node had already died (look there first: an Xid, an OOM kill, a crash), or a "
        "firewall stands between the nodes.";
    f.explanation.zh +=
        "连接被对端关闭或拒绝，通常说明另一节点上的进程已先退出（先查看那里：Xid、OOM "
        "终止或崩溃），或节点之间有防火墙。";
    f.actions.push_back(
        Action{Text{"Look at the peer node's log at this time for the rank that failed first.",
                    "查看对端节点在此时刻的日志，找出最先失败的进程。"},
               "sudo dmesg -T | grep -i -E 'Xid|oom|segfault'"});
  }
  f.actions.push_back(Action{Text{"Rerun with NCCL's network debug log to see the device and "
                                  "peer of each connection.",
                                  "开启 NCCL 网络调试日志重新运行，查看每个连接的设备和对端。"},
                             "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET <command>"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList net = events::EventsOfKind(input, {KernelEventKind::kNcclNetwork});
  if (net.empty()) return;
  Failures fails = Classify(net);
  bool critical = fails.retries_exceeded || fails.protection || fails.other_completion ||
                  fails.queue_pair || fails.peer_closed || fails.refused;
  Finding& f = out.Add(critical ? Severity::kCritical : Severity::kWarning);
  std::size_t times = events::TotalCount(net);
  std::string what = Summary(net, 3);
  f.title = Text{fmt::format("NCCL lost its network connection ({} times): {}", times, what),
                 fmt::format("NCCL 网络连接中断（{} 次）：`{}`", times, what)};
  f.explanation =
      critical ? Text{"NCCL's transport between the nodes failed; the job using it stops.",
                      "节点之间的 NCCL 传输失败；使用它的任务会停止。"}
               : Text{
                     "NCCL could not connect to a peer and is retrying; the job stalls until "
                     "the peer answers.",
                     "NCCL 无法连接到对端，正在重试；在对端响应之前任务会停滞。"};
  events::AddEventEvidence(f, net);
  if (events::AddRdmaSignsNear(input, net, "the NCCL network error", f)) {
    f.explanation.en += " An RDMA port of this node went down or counted errors around it.";
    f.explanation.zh += "本节点有 RDMA 端口在此前后断开或计入错误。";
  }
  AddExplanationAndActions(fails, f);
}

}  // namespace nccl_network_rule
}  // namespace

const Rule kNcclNetworkRule{"nccl.network", "network",
                            "NCCL network failures: IB completion errors, queue pairs that fail, "
                            "connections closed or refused",
                            kNeedsKernelLog, nccl_network_rule::Evaluate};

}  // namespace gpudoctor
