// xid.nvlink: NVLink errors the driver logged (Xid 74 and the catalog's NVLink
// category: 136, 144-150, 155, ...). Severity from the catalog, except that
// the NVLink5 Xids 144-150 state themselves whether they were fatal. Adds the
// GPU's NVLink error counters and the Fabric Manager's state when known.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "knowledge/xid_catalog.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_nvlink_rule {

using events::EventList;

Severity EventSeverity(const KernelEvent& e) {
  if (*e.code >= 144 && *e.code <= 150) {
    // "145, RLW_RXPIPE Nonfatal XC0 ..." / "149, NETIR Fatal XC0 ..."
    if (e.message.find("Nonfatal") != std::string::npos) return Severity::kWarning;
    if (e.message.find("Fatal") != std::string::npos) return Severity::kCritical;
  }
  return events::FromXidSeverity(LookupXid(*e.code).severity);
}

// The GPU's NVLink counters in the latest reading, as evidence.
void AddCounters(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  const GpuSeries* gpu = FindGpu(input, bus);
  if (!gpu) return;
  std::int64_t errors = 0;
  int inactive = 0;
  for (const NvLinkStatus& l : gpu->latest().nvlinks) {
    errors += l.crc_flit_errors.value_or(0) + l.crc_data_errors.value_or(0) +
              l.replay_errors.value_or(0) + l.recovery_errors.value_or(0);
    if (l.active == false) ++inactive;
  }
  if (errors > 0) {
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("{} NVLink CRC, replay and recovery errors counted on this GPU", errors),
             fmt::format("该 GPU 的 NVLink CRC、重传和恢复错误计数共 {} 个", errors)},
        static_cast<double>(errors), "count"));
  }
  if (inactive > 0) {
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("{} NVLink links of this GPU are down", inactive),
             fmt::format("该 GPU 有 {} 条 NVLink 链路处于断开状态", inactive)},
        inactive, "links"));
  }
}

void AddActions(const DiagnosisInput& input, const std::string& bus, Severity severity,
                Finding& f) {
  std::string target = events::SmiTarget(bus);
  f.actions.push_back(Action{Text{"Check the state of each NVLink link of the GPU.",
                                  "检查该 GPU 每条 NVLink 链路的状态。"},
                             "nvidia-smi nvlink -s -i " + target});
  f.actions.push_back(Action{Text{"Read the NVLink error counters; counters that keep rising point "
                                  "to a link, cable or the peer device.",
                                  "读取 NVLink 错误计数；持续增长的计数指向链路、线缆或对端设备。"},
                             "nvidia-smi nvlink -e -i " + target});
  bool nvswitch = !input.versions || input.versions->fabric_manager.nvswitch_present;
  if (nvswitch) {
    f.actions.push_back(
        Action{Text{"On NVSwitch systems, check that the Fabric Manager runs and "
                    "read its log for NVSwitch errors.",
                    "在 NVSwitch 系统上，确认 Fabric Manager 正在运行，并查看其日志中的 "
                    "NVSwitch 错误。"},
               "systemctl status nvidia-fabricmanager"});
  }
  if (severity == Severity::kCritical) f.actions.push_back(events::ResetGpuAction(bus));
  f.actions.push_back(
      Action{Text{"If the errors recur on the same link after a reset, collect a bug "
                  "report and contact support: the link or the board needs service.",
                  "若重置后同一链路仍反复报错，请收集 bug 报告并联系技术支持："
                  "该链路或板卡需要维修。"},
             "sudo nvidia-bug-report.sh"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList nvlink = events::XidEventsOwnedBy(input, events::XidOwner::kNvlink);
  for (const auto& [bus, group] : events::ByGpu(nvlink)) {
    Severity severity = Severity::kInfo;
    for (const KernelEvent* e : group) severity = std::max(severity, EventSeverity(*e));
    severity = std::max(severity, events::XidPolicyFloor(group));
    Finding& f = out.Add(severity);
    if (!bus.empty()) f.gpus.push_back(bus);
    f.xids = events::CodesOf(group);
    Text label = events::GpuText(input, bus);
    std::string codes = fmt::format("{}", fmt::join(f.xids, ", "));
    f.title = Text{fmt::format("NVLink errors on {} (Xid {})", label.en, codes),
                   fmt::format("{} 出现 NVLink 错误（Xid {}）", label.zh, codes)};
    f.explanation = Text{
        "The driver reported errors on the GPU's NVLink links. Traffic between GPUs (NCCL "
        "collectives, peer-to-peer copies) slows down or fails while they last; fatal ones take "
        "the links down until the GPU is reset.",
        "驱动报告该 GPU 的 NVLink 链路出错。出错期间 GPU 之间的通信（NCCL "
        "集合通信、点对点拷贝）会变慢"
        "或失败；致命错误会使链路断开，直到重置 GPU。"};
    for (int code : f.xids) {
      const XidInfo& info = LookupXid(code);
      f.explanation.en +=
          fmt::format(" Xid {}: {}; NVIDIA: {}", code, info.meaning, info.action_en);
      f.explanation.zh += fmt::format("Xid {}（`{}`）：{}", code, info.meaning, info.action_zh);
    }
    events::AddEventEvidence(f, group);
    AddCounters(input, bus, f);
    AddActions(input, bus, severity, f);
  }
}

}  // namespace xid_nvlink_rule
}  // namespace

const Rule kXidNvlinkRule{"xid.nvlink", "xid",
                          "NVLink Xids (74, 136, 144-150, 155, ...) with link counters and "
                          "Fabric Manager hints",
                          kNeedsXidEvents, xid_nvlink_rule::Evaluate};

}  // namespace gpudoctor
