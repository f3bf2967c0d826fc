// gpu.dropped: a GPU that left, seen from two views that do not need each
// other: on the PCI bus but missing from NVML, no longer answering on the
// bus (lspci "rev ff"), or fewer GPUs than the configured count. This is
// how a GPU that dropped without any Xid is still caught (field notes).
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace gpu_dropped_rule {

Text TitleFor(const DroppedGpu& d) {
  switch (d.reason) {
    case DropReason::kNotInNvml:
      return Text{fmt::format("GPU {} is on the PCI bus but the driver (NVML) no longer lists it",
                              d.bus_id),
                  fmt::format("GPU {} 仍在 PCI 总线上，但驱动（NVML）已不再列出它", d.bus_id)};
    case DropReason::kNoAnswer:
      return Text{
          fmt::format("GPU {} no longer answers on the PCI bus (rev ff): it fell off", d.bus_id),
          fmt::format("GPU {} 在 PCI 总线上已无响应（`rev ff`）：已掉卡", d.bus_id)};
    case DropReason::kBelowExpectedCount:
      break;
  }
  return Text{"Fewer GPUs than expected: at least one GPU is gone",
              "GPU 数量少于预期：至少有一块 GPU 已丢失"};
}

void AddActions(const DroppedGpu& d, Finding& f) {
  std::string filter = d.bus_id.empty() ? "-i -E 'NVRM|Xid'" : "-i " + d.bus_id.substr(5, 5);
  f.actions.push_back(Action{
      Text{"Confirm on the bus: a line ending in \"(rev ff)\" means the device does not answer.",
           "在总线上确认：行尾为 `(rev ff)` 表示设备已无响应。"},
      "lspci -d 10de: -nn"});
  f.actions.push_back(
      Action{Text{"Look in the kernel log for what happened to it (Xid 79, fallen off the bus, AER "
                  "errors).",
                  "在内核日志中查看它发生了什么（Xid 79、从总线上掉落、AER 错误）。"},
             "sudo dmesg -T | grep " + filter});
  f.actions.push_back(Action{
      Text{"Reboot the node (a GPU reset rarely brings a dropped GPU back); on a cloud instance, "
           "stop and start it so that it moves to healthy hardware.",
           "重启节点（GPU 重置通常无法恢复已掉卡的 "
           "GPU）；云服务器请停止后再启动实例，使其迁移到健康的硬件上。"},
      "sudo reboot"});
  f.actions.push_back(Action{
      Text{"If it happens again: check power cables and the PSU, reseat the GPU or its riser, "
           "then have the GPU replaced (RMA, or a ticket to the cloud provider).",
           "如果再次发生：检查电源线和电源，重新插拔 GPU 或转接卡，然后更换 "
           "GPU（返修，或向云厂商提交工单）。"},
      ""});
}

void AddEvidence(const DiagnosisInput& input, const DroppedGpu& d, Finding& f) {
  f.evidence.push_back(TextEvidence(d.detail, Backquoted(d.detail)));
  if (d.reason == DropReason::kBelowExpectedCount && input.config.expected_gpus) {
    auto expected = static_cast<double>(*input.config.expected_gpus);
    f.evidence.push_back(NumberEvidence(
        fmt::format("expected {} GPUs ([gpus] expected_count); NVML lists {}, PCI bus {}",
                    *input.config.expected_gpus, input.gpus.size(), input.pci->gpus.size()),
        fmt::format("预期 {} 块 GPU（`[gpus] expected_count`）；NVML 列出 {} 块，PCI 总线上 {} 块",
                    *input.config.expected_gpus, input.gpus.size(), input.pci->gpus.size()),
        expected, "count"));
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  // When NVML itself failed, every GPU looks missing from it: driver.not_loaded
  // reports that instead of one drop per GPU.
  const bool nvml_failed = input.gpu_readings && !input.nvml_loaded;
  std::size_t dropped_on_bus = 0;
  for (const DroppedGpu& d : input.dropped_gpus) {
    if (nvml_failed && d.reason == DropReason::kNotInNvml) continue;
    Finding& f = out.Add(Severity::kCritical);
    if (!d.bus_id.empty()) {
      f.gpus.push_back(d.bus_id);
      ++dropped_on_bus;
    }
    f.title = TitleFor(d);
    f.explanation = Text{
        "A GPU the machine had is gone: the driver lost it (it usually logs Xid 79 \"fallen off "
        "the bus\", but not always), and work on it has failed. Usual causes, most frequent "
        "first: power (supply or cables), the PCIe slot or riser, heat, then failing GPU "
        "hardware.",
        "机器上原有的一块 GPU 已丢失：驱动失去了它（通常会记录 Xid "
        "79“从总线上掉落”，但并非总是如此），"
        "其上的任务已失败。常见原因按频率依次为：供电（电源或线缆）、PCIe "
        "插槽或转接卡、过热，最后是 GPU 硬件故障。"};
    AddEvidence(input, d, f);
    AddActions(d, f);
  }
  if (dropped_on_bus < 2) return;
  // Several GPUs gone at once points to what they share: power or the baseboard.
  for (Finding& f : out.findings()) {
    f.explanation.en += fmt::format(
        " {} GPUs dropped together: suspect the power supply or the baseboard they share first.",
        dropped_on_bus);
    f.explanation.zh +=
        fmt::format("共有 {} 块 GPU 同时掉卡：应首先怀疑它们共用的电源或主板。", dropped_on_bus);
  }
}

}  // namespace gpu_dropped_rule
}  // namespace

const Rule kGpuDroppedRule{
    "gpu.dropped", "gpu",
    "GPU on the PCI bus but missing from NVML, not answering (rev ff), or fewer than expected",
    kNeedsPci, gpu_dropped_rule::Evaluate};

}  // namespace gpudoctor
