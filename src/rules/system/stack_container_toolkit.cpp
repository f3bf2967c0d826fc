// stack.container_toolkit: a container runtime is installed on a GPU node
// but containers cannot get the GPUs, or will not once started:
// - no nvidia-container-toolkit program (docker run --gpus fails with
//   'could not select device driver "" with capabilities: [[gpu]]'; GPU pods
//   fail to start);
// - on a Kubernetes node, containerd's configuration names neither the
//   nvidia runtime nor CDI;
// - a CDI spec mounts libraries of another driver version than the loaded
//   one (left from before a driver upgrade: containers fail with "no such
//   file" for libcuda.so.<old version>).
// Warning. Nodes without a container runtime are left alone.
#include <fmt/format.h>

#include "rules/engine/window_stats.h"
#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace stack_container_toolkit_rule {

bool HasGpus(const DiagnosisInput& input) {
  return !input.gpus.empty() || (input.pci && !input.pci->gpus.empty());
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const GpuStackFacts& s = input.versions->stack;
  const ContainerStack& c = s.containers;
  if (!s.read || c.runtimes.empty() || !HasGpus(input)) return;
  const std::string runtimes = fmt::format("{}", fmt::join(c.runtimes, ", "));
  std::vector<EvidenceItem> evidence;
  std::vector<Action> actions;
  Text title;
  if (c.toolkit.empty()) {
    title = Text{
        fmt::format("{} is installed but nvidia-container-toolkit is not: containers "
                    "cannot use the GPUs",
                    runtimes),
        fmt::format("已安装 {}，但未安装 nvidia-container-toolkit：容器无法使用 GPU", runtimes)};
    evidence.push_back(TextEvidence(
        "none of nvidia-container-runtime-hook, nvidia-container-runtime, nvidia-ctk found in "
        "/usr/bin or /usr/local/nvidia/toolkit",
        "在 /usr/bin 和 /usr/local/nvidia/toolkit 中均未找到 nvidia-container-runtime-hook、"
        "nvidia-container-runtime 或 nvidia-ctk"));
    actions.push_back(Action{
        Text{"Install NVIDIA's container toolkit (its apt repository) and configure the runtime.",
             "安装 NVIDIA 容器工具包（使用其 apt 软件源）并配置容器运行时。"},
        "sudo apt-get install -y nvidia-container-toolkit && sudo nvidia-ctk runtime configure "
        "--runtime=" +
            std::string(c.runtimes.front() == "docker" ? "docker" : "containerd")});
  } else if (c.kubernetes && c.containerd_nvidia && !*c.containerd_nvidia && c.cdi_specs.empty()) {
    title = Text{
        "containerd on this Kubernetes node names neither the nvidia runtime nor CDI: "
        "GPU pods get no GPUs",
        "此 Kubernetes 节点上的 containerd 既未配置 nvidia 运行时也未启用 CDI：GPU Pod 拿不到 GPU"};
    evidence.push_back(TextEvidence(
        fmt::format("{}: no runtimes.nvidia table, no nvidia-container-runtime, no "
                    "enable_cdi = true",
                    c.containerd_config),
        fmt::format("{}：没有 runtimes.nvidia 配置、没有 nvidia-container-runtime，也没有 "
                    "enable_cdi = true",
                    c.containerd_config)));
    actions.push_back(Action{
        Text{
            "Configure containerd for the NVIDIA runtime and restart it (the GPU Operator does "
            "this when its toolkit component is enabled).",
            "为 containerd 配置 NVIDIA 运行时并重启（启用 GPU Operator 的 toolkit 组件时会自动完成）。"},
        "sudo nvidia-ctk runtime configure --runtime=containerd && sudo systemctl restart "
        "containerd"});
  }
  const auto& driver = input.versions->driver.effective_version;
  std::vector<std::string> stale;
  if (driver) {
    for (const CdiSpec& spec : c.cdi_specs) {
      for (const DriverVersion& v : spec.driver_versions) {
        if (v == *driver) continue;
        stale.push_back(spec.path);
        evidence.push_back(TextEvidence(
            fmt::format("{} mounts the libraries of driver {}; the loaded driver is {}", spec.path,
                        v.ToString(), driver->ToString()),
            fmt::format("{} 挂载的是驱动 {} 的库；当前加载的驱动为 {}", spec.path, v.ToString(),
                        driver->ToString())));
        break;
      }
    }
  }
  if (!stale.empty()) {
    if (title.en.empty()) {
      title = Text{fmt::format("The CDI spec {} is from another driver version: containers that "
                               "request GPUs through it fail to start",
                               stale.front()),
                   fmt::format("CDI 规格文件 {} 来自另一个驱动版本：通过它申请 GPU 的容器无法启动",
                               stale.front())};
    }
    actions.push_back(Action{
        Text{
            "Generate the CDI spec again for the loaded driver (and after every driver upgrade; "
            "the toolkit's nvidia-cdi-refresh service does this).",
            "为当前驱动重新生成 CDI 规格文件（每次升级驱动后都需要；工具包的 nvidia-cdi-refresh 服务可自动完成）。"},
        "sudo nvidia-ctk cdi generate --output=" + stale.front()});
  }
  if (title.en.empty()) return;
  Finding& f = out.Add(Severity::kWarning);
  f.title = std::move(title);
  f.evidence = std::move(evidence);
  f.explanation = Text{
      "Containers reach the GPUs through NVIDIA's container toolkit: it mounts the driver's "
      "libraries and device files into each container, by a runtime hook or by a CDI spec that "
      "lists them. When it is missing, not configured, or lists another driver's files, "
      "containers asking for GPUs fail to start or see none.",
      "容器通过 NVIDIA 容器工具包访问 GPU：它通过运行时钩子或列出文件的 CDI 规格，把驱动的库和设备文件挂载进每个容器。"
      "工具包缺失、未配置，或列出的是另一个驱动的文件时，申请 GPU 的容器无法启动或看不到 GPU。"};
  f.actions = std::move(actions);
}

}  // namespace stack_container_toolkit_rule
}  // namespace

const Rule kStackContainerToolkitRule{
    "stack.container_toolkit", "driver",
    "Container runtime without a working NVIDIA configuration (toolkit, containerd, CDI spec)",
    kNeedsVersions, stack_container_toolkit_rule::Evaluate};

}  // namespace gpudoctor
