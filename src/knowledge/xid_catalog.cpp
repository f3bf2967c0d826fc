#include "knowledge/xid_catalog.h"

#include <map>
#include <mutex>

#include "knowledge/xid_catalog_rows.h"

namespace gpudoctor {
namespace {

struct BucketText {
  XidResolution bucket;
  std::string_view name;
  std::string_view en;
  std::string_view zh;
};

// NVIDIA's immediate buckets ("Guidance classes"), as advice.
constexpr BucketText kBuckets[] = {
    {XidResolution::kRestartApp, "RESTART_APP",
     "Restart the application; no GPU reset or reboot is needed.",
     "重启应用程序即可，无需重置 GPU 或重启节点。"},
    {XidResolution::kResetGpu, "RESET_GPU",
     "Drain the GPU's jobs and reset it (nvidia-smi -r, or restart the instance).",
     "排空该 GPU 上的任务后重置 GPU（nvidia-smi -r，或重启实例）。"},
    {XidResolution::kRestartBm, "RESTART_BM", "Reboot the node; a GPU reset is usually not enough.",
     "重启节点（物理机）；通常仅重置 GPU 不够。"},
    {XidResolution::kRestartVm, "RESTART_VM", "Restart the virtual machine that owns the GPU.",
     "重启使用该 GPU 的虚拟机。"},
    {XidResolution::kContactSupport, "CONTACT_SUPPORT",
     "Collect nvidia-bug-report.sh output and contact your support organisation.",
     "收集 nvidia-bug-report.sh 输出并联系技术支持。"},
    {XidResolution::kIgnore, "IGNORE", "No action is needed.", "无需处理。"},
    {XidResolution::kCheckMechanicals, "CHECK_MECHANICALS",
     "Check the GPU's seating and all power and data connections.",
     "检查 GPU 安装是否牢固以及所有供电和数据连接。"},
    {XidResolution::kCheckUvm, "CHECK_UVM",
     "If UVM or vGPU is in use, reset the GPU; otherwise no action is needed.",
     "如使用了 UVM 或 vGPU，请重置 GPU；否则无需处理。"},
    {XidResolution::kUpdateSwFw, "UPDATE_SWFW",
     "Update the driver and firmware; guest and host drivers must be compatible.",
     "更新驱动和固件；虚拟机与宿主机驱动必须兼容。"},
    {XidResolution::kXid154, "XID_154", "Follow the recovery action that Xid 154 states.",
     "按照 Xid 154 消息给出的恢复操作处理。"},
    {XidResolution::kWorkflowXid45, "WORKFLOW_XID_45",
     "Handle the Xid that caused it; alone, restart the Fabric Manager.",
     "处理引发它的 Xid；若单独出现，重启 Fabric Manager。"},
    {XidResolution::kWorkflowXid48, "WORKFLOW_XID_48",
     "Reset the GPU; with Xid 63/64, drain it first and then reset.",
     "重置 GPU；若伴随 Xid 63/64，先排空任务再重置。"},
    {XidResolution::kWorkflowNvlinkErr, "WORKFLOW_NVLINK_ERR",
     "Decode the NVLink error registers; reset the GPU to clear; check the peer device.",
     "解析 NVLink 错误寄存器；重置 GPU 以清除；检查对端设备。"},
    {XidResolution::kWorkflowNvlink5Err, "WORKFLOW_NVLINK5_ERR",
     "Decode IntrInfo/ErrorStatus with NVIDIA's Xid 144-150 sheet; fatal errors need a GPU "
     "reset.",
     "按 NVIDIA 的 Xid 144-150 解码表解析 IntrInfo/ErrorStatus；致命错误需要重置 GPU。"},
    {XidResolution::kNoneListed, "NONE_LISTED",
     "NVIDIA lists no resolution; record it and contact support if it recurs.",
     "NVIDIA 未给出处理方式；请记录，如反复出现请联系技术支持。"},
};

const BucketText& Bucket(XidResolution r) {
  for (const auto& b : kBuckets) {
    if (b.bucket == r) return b;
  }
  return kBuckets[4];  // CONTACT_SUPPORT
}

XidSeverity SeverityOf(XidResolution r) {
  switch (r) {
    case XidResolution::kRestartBm:
    case XidResolution::kResetGpu:
    case XidResolution::kRestartVm:
    case XidResolution::kCheckMechanicals:
    case XidResolution::kWorkflowXid48:
    case XidResolution::kWorkflowNvlinkErr:
    case XidResolution::kWorkflowNvlink5Err:
      return XidSeverity::kCritical;
    case XidResolution::kIgnore:
      return XidSeverity::kInfo;
    default:
      return XidSeverity::kWarning;
  }
}

XidInfo FromRow(const xid_rows::Row& row) {
  XidInfo info;
  info.code = row.code;
  info.mnemonic = row.mnemonic;
  info.meaning = row.meaning;
  info.category = row.category;
  info.immediate = row.immediate;
  info.severity = SeverityOf(row.immediate);
  info.investigatory = row.investigatory;
  info.in_catalog = row.flag != xid_rows::kSourceOnly;
  info.unused = row.flag == xid_rows::kUnused;
  info.action_en = Bucket(row.immediate).en;
  info.action_zh = Bucket(row.immediate).zh;
  for (std::size_t i = 0; i < xid_rows::kActionCount; ++i) {
    if (xid_rows::kActions[i].code == row.code) {
      info.action_en = xid_rows::kActions[i].en;
      info.action_zh = xid_rows::kActions[i].zh;
    }
  }
  return info;
}

XidInfo UnknownXid(int code) {
  XidInfo info;
  info.code = code;
  info.mnemonic = "UNKNOWN";
  info.meaning = "unknown Xid " + std::to_string(code);
  info.category = XidCategory::kOther;
  info.severity = XidSeverity::kWarning;
  info.immediate = XidResolution::kContactSupport;
  info.investigatory = "CONTACT_SUPPORT";
  info.action_en = "This Xid is not in NVIDIA's catalog. " + std::string(Bucket(info.immediate).en);
  info.action_zh = "该 Xid 不在 NVIDIA 目录中。" + std::string(Bucket(info.immediate).zh);
  info.in_catalog = false;
  return info;
}

}  // namespace

const std::vector<XidInfo>& AllXids() {
  static const std::vector<XidInfo> all = [] {
    std::vector<XidInfo> v;
    v.reserve(xid_rows::kRowCount);
    for (std::size_t i = 0; i < xid_rows::kRowCount; ++i) v.push_back(FromRow(xid_rows::kRows[i]));
    return v;
  }();
  return all;
}

const XidInfo& LookupXid(int code) {
  const auto& all = AllXids();
  for (const auto& info : all) {  // ~170 rows, sorted; a scan is cheap enough
    if (info.code == code) return info;
  }
  // Unknown codes: one entry per code, kept for the life of the process.
  // Bounded so that hostile input cannot grow it without limit.
  static std::mutex mu;
  static std::map<int, XidInfo> unknown;
  static const XidInfo overflow = UnknownXid(-1);
  std::lock_guard<std::mutex> lock(mu);
  auto it = unknown.find(code);
  if (it != unknown.end()) return it->second;
  if (unknown.size() >= 1024) return overflow;
  return unknown.emplace(code, UnknownXid(code)).first->second;
}

std::string_view XidResolutionName(XidResolution r) { return Bucket(r).name; }

std::string_view XidCategoryName(XidCategory c) {
  switch (c) {
    case XidCategory::kApplication:
      return "application";
    case XidCategory::kDriver:
      return "driver";
    case XidCategory::kMemory:
      return "memory";
    case XidCategory::kPcieBus:
      return "pcie_bus";
    case XidCategory::kThermal:
      return "thermal";
    case XidCategory::kPower:
      return "power";
    case XidCategory::kNvlink:
      return "nvlink";
    case XidCategory::kGsp:
      return "gsp";
    case XidCategory::kHardware:
      return "hardware";
    case XidCategory::kOther:
      return "other";
  }
  return "other";
}

std::string_view XidSeverityName(XidSeverity s) {
  switch (s) {
    case XidSeverity::kInfo:
      return "info";
    case XidSeverity::kWarning:
      return "warning";
    case XidSeverity::kCritical:
      return "critical";
  }
  return "warning";
}

const SxidNote& SxidNoteFor(bool fatal) {
  static const SxidNote kFatal{
      XidSeverity::kCritical,
      "Fatal NVSwitch error: jobs using the affected links fail. Check `nvidia-smi nvlink` and "
      "the Fabric Manager log, drain the node and reset the GPUs and NVSwitches (usually a "
      "reboot); contact support if it recurs.",
      "NVSwitch 致命错误：使用相关链路的任务会失败。请检查 `nvidia-smi nvlink` 与 Fabric Manager "
      "日志，排空节点并重置 GPU 与 NVSwitch（通常需重启）；反复出现请联系技术支持。"};
  static const SxidNote kNonFatal{
      XidSeverity::kWarning,
      "Non-fatal NVSwitch error: no immediate action; watch for repeats on the same link and "
      "contact support if they keep coming.",
      "NVSwitch 非致命错误：无需立即处理；请关注同一链路是否反复出现，持续出现时联系技术支持。"};
  return fatal ? kFatal : kNonFatal;
}

}  // namespace gpudoctor
