// driver.not_loaded: NVML could not start (or the kernel module is absent)
// while NVIDIA GPUs are on the PCI bus: no GPU can be used. The commonest
// cause, a driver upgrade without a reboot, is named when the versions show it;
// nvidia-smi's "No devices were found" and "couldn't communicate with the
// NVIDIA driver" get their own explanations.
#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace driver_not_loaded_rule {

bool MentionsMismatch(const std::string& error) {
  std::string lower = error;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("mismatch") != std::string::npos;
}

void ExplainMismatch(const DiagnosisInput& input, Finding& f) {
  f.title = Text{"The NVIDIA driver cannot be used: kernel module and libraries differ",
                 "NVIDIA 驱动无法使用：内核模块与用户态库版本不一致"};
  f.explanation = Text{
      "The loaded kernel module and the user-space driver libraries are of different versions, "
      "so NVML, nvidia-smi and CUDA refuse to start. This typically follows a driver upgrade "
      "(often an unattended package upgrade) without a reboot: the old module is still loaded.",
      "已加载的内核模块与用户态驱动库版本不同，因此 NVML、nvidia-smi 和 CUDA "
      "都无法启动。这通常发生在升级驱动"
      "（常见的是系统自动升级软件包）之后没有重启：旧的内核模块仍在运行。"};
  if (input.versions) {
    for (const std::string& line : input.versions->driver.mismatch_details) {
      f.evidence.push_back(TextEvidence(line, Backquoted(line)));
    }
  }
  f.actions.push_back(Action{Text{"Reboot, so that the module of the installed version loads.",
                                  "重启机器，使已安装版本的内核模块被加载。"},
                             "sudo reboot"});
  f.actions.push_back(Action{
      Text{"Or, with no GPU process running, reload the module instead of rebooting.",
           "或者在没有 GPU 进程运行时，重新加载内核模块而不重启。"},
      "sudo systemctl stop nvidia-persistenced; sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset "
      "nvidia && sudo modprobe nvidia && nvidia-smi"});
}

// Load the module and read why it fails; check its build and Secure Boot.
void AddLoadModuleActions(Finding& f) {
  f.actions.push_back(
      Action{Text{"Try to load it and read why it fails.", "尝试加载模块并查看失败原因。"},
             "sudo modprobe nvidia; sudo dmesg -T | grep -i -E 'nvrm|nvidia' | tail -20"});
  f.actions.push_back(Action{
      Text{"Check that the module is built for the running kernel, and whether Secure Boot is on.",
           "检查模块是否针对当前运行的内核编译，以及是否开启了安全启动。"},
      "dkms status; uname -r; mokutil --sb-state"});
}

void ExplainNoModule(Finding& f) {
  f.title = Text{"The NVIDIA kernel module is not loaded: no GPU can be used",
                 "NVIDIA 内核模块未加载：所有 GPU 均无法使用"};
  f.explanation = Text{
      "NVIDIA GPUs are on the PCI bus but the driver's kernel module is not loaded, so NVML, "
      "nvidia-smi and CUDA cannot reach them. Usual causes: a kernel upgrade without a rebuilt "
      "module (DKMS), Secure Boot refusing an unsigned module, or the module failing at load.",
      "PCI 总线上有 NVIDIA GPU，但驱动的内核模块没有加载，NVML、nvidia-smi 和 CUDA "
      "都无法访问它们。常见原因："
      "升级内核后没有重新编译模块（DKMS）、安全启动拒绝未签名的模块，或模块加载失败。"};
  AddLoadModuleActions(f);
}

bool Mentions(const std::string& error, std::string_view what) {
  return error.find(what) != std::string::npos;
}

// nvidia-smi's "No devices were found": NVML started, but the driver drives no GPU.
void ExplainNoDevices(Finding& f) {
  f.title = Text{"The NVIDIA driver is running but finds no GPU",
                 "NVIDIA 驱动在运行，但找不到任何 GPU"};
  f.explanation = Text{
      "NVML started, so the driver is loaded, but it drives no GPU: the GPUs fell off the bus or "
      "failed to initialise (the kernel log then holds Xid 79, \"fallen off the bus\" or "
      "RmInitAdapter failed), they are not attached to this VM or container, or the driver "
      "excluded them. Every job that needs a GPU fails.",
      "NVML 已启动，说明驱动已加载，但它没有驱动任何 GPU：GPU 已从总线掉线或初始化失败"
      "（内核日志中会有 Xid 79、`fallen off the bus` 或 `RmInitAdapter failed`），"
      "GPU 没有挂载到该虚拟机或容器，或被驱动排除。所有需要 GPU 的任务都会失败。"};
  f.actions.push_back(Action{
      Text{"See whether the GPUs are still on the PCI bus ((rev ff) means one stopped answering).",
           "查看 GPU 是否仍在 PCI 总线上（`(rev ff)` 表示设备已不再响应）。"},
      "lspci -d 10de: -nn"});
  f.actions.push_back(
      Action{Text{"Read why the driver did not take them.", "查看驱动没有接管它们的原因。"},
             "sudo dmesg -T | grep -i -E 'nvrm|xid|fallen off|rminitadapter'"});
  f.actions.push_back(Action{
      Text{"When they fell off the bus, reboot the node; if it recurs, check power and slots.",
           "若 GPU 已掉线，请重启节点；若反复出现，请检查供电和插槽。"},
      "sudo reboot"});
}

// nvidia-smi's "couldn't communicate with the NVIDIA driver": no module answers.
void ExplainDriverUnreachable(Finding& f) {
  f.title = Text{"nvidia-smi cannot reach the NVIDIA driver: no GPU can be used",
                 "nvidia-smi 无法与 NVIDIA 驱动通信：所有 GPU 均无法使用"};
  f.explanation = Text{
      "The NVIDIA kernel module is not loaded, failed to load, or stopped answering, so NVML, "
      "nvidia-smi and CUDA cannot reach any GPU. Usual causes: a kernel upgrade without a "
      "rebuilt module (DKMS), Secure Boot refusing an unsigned module, a driver installation "
      "left half done, or the module failing at load on a GPU in trouble.",
      "NVIDIA 内核模块未加载、加载失败或不再响应，NVML、nvidia-smi 和 CUDA 都无法访问任何 GPU。"
      "常见原因：升级内核后没有重新编译模块（DKMS）、安全启动拒绝未签名的模块、驱动安装未完成，"
      "或模块在有故障的 GPU 上加载失败。"};
  AddLoadModuleActions(f);
}

void ExplainNvmlError(Finding& f) {
  f.title = Text{"NVML could not start: the GPUs cannot be queried or used",
                 "NVML 无法启动：无法查询或使用 GPU"};
  f.explanation = Text{
      "The NVIDIA management library failed to initialise, so neither nvidia-smi nor monitoring "
      "can see the GPUs, and CUDA usually fails the same way. The error below says why.",
      "NVIDIA 管理库（NVML）初始化失败，nvidia-smi 和监控都看不到 GPU，CUDA "
      "通常也会以同样方式失败。"
      "原因见下面的错误信息。"};
  f.actions.push_back(
      Action{Text{"Read the driver's messages in the kernel log.", "查看内核日志中驱动的消息。"},
             "sudo dmesg -T | grep -i -E 'nvrm|xid' | tail -20"});
  f.actions.push_back(Action{Text{"If the driver reports the GPUs lost or hung, reboot the node.",
                                  "如果驱动报告 GPU 丢失或挂起，请重启节点。"},
                             "sudo reboot"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  if (input.gpu_readings && input.nvml_loaded) return;  // NVML works
  if (NoNvidiaGpuOnBus(input)) return;                  // nothing for the driver to drive
  const bool nvml_failed = input.gpu_readings;
  const bool module_missing = input.versions && !input.versions->driver.kernel_module;
  const bool gpus_on_bus = input.pci && !input.pci->gpus.empty();
  if (!nvml_failed && !(gpus_on_bus && module_missing)) {
    if (!input.pci || !input.versions) {
      out.NotCheckedBecause(
          Text{"neither a GPU reading nor both the PCI device list and the driver "
               "version were available",
               "既没有 GPU 读数，也没有同时取得 PCI 设备列表和驱动版本"});
    }
    return;
  }
  Finding& f = out.Add(Severity::kCritical);
  const bool mismatch = (input.versions && input.versions->driver.version_mismatch) ||
                        MentionsMismatch(input.nvml_error);
  if (mismatch) {
    ExplainMismatch(input, f);
  } else if (module_missing) {
    ExplainNoModule(f);
  } else if (Mentions(input.nvml_error, "No devices were found")) {
    ExplainNoDevices(f);
  } else if (Mentions(input.nvml_error, "couldn't communicate with the NVIDIA driver")) {
    ExplainDriverUnreachable(f);
  } else {
    ExplainNvmlError(f);
  }
  if (!input.nvml_error.empty()) {
    f.evidence.insert(f.evidence.begin(), TextEvidence("NVML: " + input.nvml_error,
                                                       "NVML：" + Backquoted(input.nvml_error)));
  }
  if (gpus_on_bus) {
    auto count = static_cast<double>(input.pci->gpus.size());
    f.evidence.push_back(NumberEvidence(
        fmt::format("{} NVIDIA GPUs on the PCI bus", input.pci->gpus.size()),
        fmt::format("PCI 总线上有 {} 块 NVIDIA GPU", input.pci->gpus.size()), count, "count"));
    for (const PciDevice& d : input.pci->gpus) f.gpus.push_back(d.bus_id);
  }
}

}  // namespace driver_not_loaded_rule
}  // namespace

const Rule kDriverNotLoadedRule{
    "driver.not_loaded", "driver",
    "NVML cannot start, or the kernel module is absent, while NVIDIA GPUs are on the PCI bus",
    kNeedsNothing, driver_not_loaded_rule::Evaluate};

}  // namespace gpudoctor
