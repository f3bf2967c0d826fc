// stress.gpu_lost: a GPU fell off the bus, or the driver reported an Xid,
// while gpudoctor stress loaded it. The load is known and controlled here, so
// unlike a loss seen in a log the trigger is certain: this GPU cannot hold a
// full load. Several GPUs at once are stress.power_supply's case.
#include <fmt/format.h>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_gpu_lost_rule {

std::string XidList(const ActiveGpuResult& gpu) {
  std::string out;
  for (const ActiveXid& x : gpu.xids) out += (out.empty() ? "" : ", ") + std::to_string(x.xid);
  return out;
}

void AddActions(const ActiveGpuResult& gpu, Finding& f) {
  f.actions.push_back(Action{
      Text{"Read the kernel log around the loss for Xid 79 (fallen off the bus), Xid 48/94/95 "
           "(memory) or PCIe errors on this GPU.",
           "查看掉线前后的内核日志，寻找该 GPU 的 Xid 79（从总线掉线）、Xid 48/94/95（显存）或 PCIe 错误。"},
      "sudo dmesg -T | grep -iE 'xid|" + gpu.pci_bus_id + "'"});
  f.actions.push_back(Action{
      Text{"Run the burn again on this GPU alone: if it fails alone too, the GPU or its slot is "
           "at fault; if it holds alone, look at the power supply it shares.",
           "单独对该 GPU 再次运行压力测试：单独运行也失败，说明 GPU 或其插槽有问题；单独运行正常，"
           "则检查它与其他 GPU 共用的电源。"},
      fmt::format("sudo gpudoctor stress --tests power --gpu {} --duration 60s", gpu.index)});
  f.actions.push_back(Action{
      Text{"Drain the node; a GPU lost under load needs a reset or reboot, then reseating or RMA if "
           "it happens again (on a cloud instance: report the host).",
           "将节点下线排空；负载下掉线的 GPU 需要复位或重启，再次发生则需重新插拔或返修（云服务器请报告宿主机）。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const ActiveRun& run = *input.active;
  for (const ActiveGpuResult& gpu : run.gpus) {
    auto lost_at = active::LostAtS(input, gpu);
    if (!lost_at && gpu.xids.empty()) continue;
    Finding& f = out.Add(Severity::kCritical);
    f.gpus.push_back(gpu.pci_bus_id);
    std::string label = active::Label(gpu);
    for (const ActiveXid& x : gpu.xids) f.xids.push_back(x.xid);
    if (lost_at) {
      std::string into = gpu.load_started_s && *lost_at >= *gpu.load_started_s
                             ? FormatNumber(*lost_at - *gpu.load_started_s, 1)
                             : "";
      f.title = into.empty()
                    ? Text{fmt::format("{} was lost during the stress run", label),
                           fmt::format("{} 在压力测试中掉线", label)}
                    : Text{fmt::format("{} was lost {} s into its load", label, into),
                           fmt::format("{} 在加载 {} 秒后掉线", label, into)};
      f.evidence.push_back(active::Number(
          Text{fmt::format("NVML read {} as lost {} s after the run began", label, FormatNumber(*lost_at, 1)),
               fmt::format("运行开始 {} 秒后 NVML 读到 {} 已掉线", FormatNumber(*lost_at, 1), label)},
          *lost_at, "seconds"));
    } else {
      f.title = Text{fmt::format("{} reported Xid {} under load", label, XidList(gpu)),
                     fmt::format("{} 在负载下报告 Xid {}", label, XidList(gpu))};
    }
    for (const ActiveXid& x : gpu.xids) {
      f.evidence.push_back(active::Number(
          Text{fmt::format("Xid {} at {} s into the run", x.xid, FormatNumber(x.at_s, 1)),
               fmt::format("运行第 {} 秒出现 Xid {}", FormatNumber(x.at_s, 1), x.xid)},
          x.xid, "xid"));
    }
    if (!gpu.cuda_error.empty()) {
      f.evidence.push_back(EvidenceItem{
          Text{"CUDA: " + gpu.cuda_error + " (" + gpu.cuda_error_test + " test)",
               "CUDA 报错：" + gpu.cuda_error + "（" + gpu.cuda_error_test + " 测试）"},
          std::nullopt, "", std::nullopt, std::nullopt});
    }
    f.explanation = Text{
        "gpudoctor stress put this GPU under a known load and the GPU dropped or the driver "
        "reported an error. A GPU that cannot hold full load loses jobs in production the same way. "
        "Alone it points to the GPU, its slot or its power cable; with other GPUs at the same moment, "
        "to the power supply.",
        "`gpudoctor stress` 对该 GPU 施加了已知负载，随后 GPU 掉线或驱动报告错误。无法承受满载的 GPU "
        "在生产中同样会导致作业失败。单独发生指向 GPU、插槽或其供电线缆；与其他 GPU 同时发生则指向电源。"};
    AddActions(gpu, f);
  }
}

}  // namespace stress_gpu_lost_rule
}  // namespace

const Rule kStressGpuLostRule{"stress.gpu_lost", "xid",
                              "A GPU lost, or an Xid reported, while gpudoctor stress loaded it",
                              kNeedsActive, stress_gpu_lost_rule::Evaluate};

}  // namespace gpudoctor
