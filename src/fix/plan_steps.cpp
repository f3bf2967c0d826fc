#include "fix/plan_steps.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "nvml/nvml_api.h"

namespace gpudoctor::fix_internal {
namespace {

void Automatic(FixStep& step, const char* field, Risk risk, bool safe) {
  step.automatic = true;
  step.field = field;
  step.risk = risk;
  step.safe_with_processes = safe;
}

}  // namespace

std::string WattsText(double w) { return fmt::format("{} W", std::lround(w)); }

std::string ClockPairText(const std::optional<std::int64_t>& graphics,
                          const std::optional<std::int64_t>& memory) {
  auto text = [](const std::optional<std::int64_t>& v) {
    return v ? std::to_string(*v) : std::string("?");
  };
  return fmt::format("{}/{} MHz", text(graphics), text(memory));
}

std::string StepGpuLabel(const FixStep& step) {
  if (step.gpu_index) return fmt::format("GPU {} ({})", *step.gpu_index, step.pci_bus_id);
  return step.pci_bus_id;
}

std::string NvidiaSmiTarget(const FixStep& step) {
  return "-i " + (step.gpu_index ? std::to_string(*step.gpu_index) : step.pci_bus_id);
}

bool PersistenceStep(const GpuStatus& gpu, FixStep& step) {
  if (!gpu.persistence_mode || *gpu.persistence_mode) return false;
  Automatic(step, "persistence_mode", Risk::kLow, true);
  step.before = "off";
  step.target = "on";
  step.setting = GpuSetting{GpuSetting::Kind::kPersistenceMode, true, 0, 0};
  step.what = Text{"turn persistence mode on", "开启持久模式"};
  step.command = fmt::format("nvidia-smi {} -pm 1", NvidiaSmiTarget(step));
  return true;
}

bool PowerLimitStep(const GpuStatus& gpu, double target_w, FixStep& step) {
  if (!gpu.power_limit_w || std::fabs(*gpu.power_limit_w - target_w) < 1) return false;
  Automatic(step, "power_limit_w", Risk::kLow, true);
  step.before = WattsText(*gpu.power_limit_w);
  step.target = WattsText(target_w);
  step.setting = GpuSetting{GpuSetting::Kind::kPowerLimit, true,
                            static_cast<std::uint32_t>(std::lround(target_w * 1000)), 0};
  bool to_default =
      gpu.power_default_limit_w && std::fabs(*gpu.power_default_limit_w - target_w) < 1;
  step.what = to_default
                  ? Text{fmt::format("set the power limit back to its default {}", step.target),
                         fmt::format("将功耗上限恢复为默认值 {}", step.target)}
                  : Text{fmt::format("set the power limit to {}", step.target),
                         fmt::format("将功耗上限设为 {}", step.target)};
  step.command = fmt::format("nvidia-smi {} -pl {}", NvidiaSmiTarget(step), std::lround(target_w));
  return true;
}

bool ApplicationClocksStep(const GpuStatus& gpu, FixStep& step) {
  const auto& g = gpu;
  if (!g.clocks_default_applications_graphics_mhz || !g.clocks_default_applications_memory_mhz) {
    return false;
  }
  if (g.clocks_applications_graphics_mhz == g.clocks_default_applications_graphics_mhz &&
      g.clocks_applications_memory_mhz == g.clocks_default_applications_memory_mhz) {
    return false;
  }
  Automatic(step, "applications_clocks", Risk::kLow, true);
  step.before = ClockPairText(g.clocks_applications_graphics_mhz, g.clocks_applications_memory_mhz);
  step.target = ClockPairText(g.clocks_default_applications_graphics_mhz,
                              g.clocks_default_applications_memory_mhz);
  step.setting = GpuSetting{GpuSetting::Kind::kResetApplicationClocks, true, 0, 0};
  step.what = Text{"reset the application clocks (graphics/memory) to their defaults",
                   "将应用时钟（图形/显存）恢复为默认值"};
  step.command = fmt::format("nvidia-smi {} -rac", NvidiaSmiTarget(step));
  return true;
}

bool ComputeModeStep(const GpuStatus& gpu, FixStep& step) {
  if (!gpu.compute_mode || *gpu.compute_mode == "Default") return false;
  // Any process may then use the GPU: harmless to running ones, but it ends
  // an exclusive use someone may have wanted.
  Automatic(step, "compute_mode", Risk::kMedium, true);
  step.before = *gpu.compute_mode;
  step.target = "Default";
  step.setting = GpuSetting{GpuSetting::Kind::kComputeMode, true, 0, NVML_COMPUTEMODE_DEFAULT};
  step.what = Text{"set the compute mode back to Default", "将计算模式恢复为 Default"};
  step.command = fmt::format("nvidia-smi {} -c DEFAULT", NvidiaSmiTarget(step));
  return true;
}

namespace {

// The printed steps whose text does not depend on the GPU.
struct ManualRow {
  StepAction action;
  Risk risk;
  Text what;
  const char* command;
  Text note;
};

const std::vector<ManualRow>& ManualRows() {
  static const std::vector<ManualRow> rows = {
      {StepAction::kReloadUvm, Risk::kMedium,
       Text{"reload the nvidia_uvm module to free memory held by no process",
            "重新加载 `nvidia_uvm` 模块，释放不属于任何进程的显存"},
       "rmmod nvidia_uvm && modprobe nvidia_uvm",
       Text{"only when no CUDA program runs on the node", "仅在节点上没有 CUDA 程序运行时执行"}},
      {StepAction::kRestartFabricManager, Risk::kMedium,
       Text{"restart the NVIDIA Fabric Manager service", "重启 NVIDIA Fabric Manager 服务"},
       "systemctl restart nvidia-fabricmanager",
       Text{"running multi-GPU jobs lose their NVLink fabric: stop them first",
            "正在运行的多 GPU 任务会失去 NVLink 互联：请先停止它们"}},
      {StepAction::kGspOff, Risk::kHigh,
       Text{"turn the GSP firmware off (driver module option), then reboot",
            "关闭 GSP 固件（驱动模块参数），然后重启"},
       "echo 'options nvidia NVreg_EnableGpuFirmware=0' > /etc/modprobe.d/nvidia-gsp.conf && "
       "update-initramfs -u && reboot",
       Text{"a workaround for GSP timeouts; some GPUs (and open kernel modules) need GSP, check "
            "NVIDIA's notes for yours",
            "这是针对 GSP 超时的临时规避办法；部分 GPU（以及开源内核模块）必须使用 GSP，"
            "请查阅 NVIDIA 对应型号的说明"}},
      {StepAction::kReseat, Risk::kHigh,
       Text{"power the node off and reseat the GPU, its riser and power cables",
            "关闭节点电源，重新插拔 GPU、转接卡（Riser）及供电线缆"},
       "",
       Text{"if it happens again after reseating, ask for an RMA",
            "如重新插拔后再次发生，请申请 RMA 返修"}},
      {StepAction::kRma, Risk::kHigh,
       Text{"collect a bug report and ask the vendor for an RMA if the memory errors persist "
            "after a reset",
            "如重置后显存错误仍然存在，收集故障报告并向厂商申请 RMA 返修"},
       "nvidia-bug-report.sh", Text{}},
  };
  return rows;
}

}  // namespace

void ManualStep(const GpuStatus* gpu, FixStep& step) {
  step.automatic = false;
  step.safe_with_processes = false;
  if (step.action == StepAction::kGpuReset) {
    step.risk = Risk::kHigh;
    step.what = Text{"reset the GPU", "重置 GPU"};
    step.command = fmt::format("nvidia-smi -r {}", NvidiaSmiTarget(step));
    std::size_t n = gpu && gpu->processes ? gpu->processes->size() : 0;
    step.note = Text{fmt::format("only with no process on the GPU (stop the jobs first; {} compute "
                                 "process(es) on it now); if the reset fails, reboot the node",
                                 n),
                     fmt::format("仅在该 GPU 上没有进程时执行（先停止任务；当前有 {} 个计算进程）；"
                                 "若重置失败，请重启节点",
                                 n)};
    return;
  }
  for (const ManualRow& row : ManualRows()) {
    if (row.action != step.action) continue;
    step.risk = row.risk;
    step.what = row.what;
    step.command = row.command;
    step.note = row.note;
  }
}

}  // namespace gpudoctor::fix_internal
