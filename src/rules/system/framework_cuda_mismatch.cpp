// framework.cuda_mismatch: Python frameworks whose build cannot use the GPUs
// as installed: built for a CUDA the driver cannot run, a CPU-only or ROCm
// build on an NVIDIA GPU host, CUDA runtimes of several majors mixed in one
// environment, or a build that runs only through minor-version
// compatibility (knowledge/framework_compat.h).
#include <fmt/format.h>

#include <algorithm>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace framework_cuda_mismatch_rule {

bool HasIssue(const std::vector<FrameworkIssueId>& issues, FrameworkIssueId id) {
  return std::find(issues.begin(), issues.end(), id) != issues.end();
}

bool GpuHost(const DiagnosisInput& input) {
  return !input.gpus.empty() || (input.pci && !input.pci->gpus.empty());
}

// Another environment holds a CUDA build of the same framework that the
// driver can run: a CPU-only copy elsewhere is then most likely not the one
// the jobs use.
bool UsableCudaBuildElsewhere(const FrameworkFacts& facts, const PythonEnvironment& here,
                              const std::string& name) {
  for (const PythonEnvironment& env : facts.environments) {
    if (&env == &here) continue;
    for (const FrameworkInstall& fw : env.frameworks) {
      if (fw.name == name && fw.cuda && !fw.cpu_only && !fw.rocm &&
          !HasIssue(fw.check.issues, FrameworkIssueId::kDriverTooOld)) {
        return true;
      }
    }
  }
  return false;
}

// Severity of one issue of `fw` (kOk: not worth a finding here).
Severity IssueSeverity(const DiagnosisInput& input, const PythonEnvironment& env,
                       const FrameworkInstall& fw, FrameworkIssueId id) {
  switch (id) {
    case FrameworkIssueId::kDriverTooOld:
      return Severity::kWarning;
    case FrameworkIssueId::kMinorCompatOnly:
      return Severity::kInfo;
    case FrameworkIssueId::kCpuOnlyBuild:
    case FrameworkIssueId::kRocmBuild:
      if (!GpuHost(input)) return Severity::kOk;
      return UsableCudaBuildElsewhere(input.versions->frameworks, env, fw.name)
                 ? Severity::kInfo
                 : Severity::kWarning;
    case FrameworkIssueId::kMixedCudaMajors:
      break;
  }
  return Severity::kInfo;
}

Text IssueText(const FrameworkInstall& fw, FrameworkIssueId id) {
  std::string name = fmt::format("{} {}", fw.name, fw.version);
  std::string cuda = fw.cuda ? fw.cuda->ToString() : std::string("?");
  switch (id) {
    case FrameworkIssueId::kDriverTooOld:
      return Text{fmt::format("{} is built for CUDA {}, which the driver cannot run", name, cuda),
                  fmt::format("{} 针对 CUDA {} 构建，当前驱动无法运行", Backquoted(name), cuda)};
    case FrameworkIssueId::kMinorCompatOnly:
      return Text{
          fmt::format("{} is built for CUDA {}: runs only through minor-version "
                      "compatibility",
                      name, cuda),
          fmt::format("{} 针对 CUDA {} 构建：只能依靠次版本兼容运行", Backquoted(name), cuda)};
    case FrameworkIssueId::kCpuOnlyBuild:
      return Text{fmt::format("{} is a CPU-only build: it never uses the GPUs", name),
                  fmt::format("{} 是仅支持 CPU 的构建：不会使用 GPU", Backquoted(name))};
    case FrameworkIssueId::kRocmBuild:
      return Text{fmt::format("{} is an AMD ROCm build: it cannot use NVIDIA GPUs", name),
                  fmt::format("{} 是 AMD ROCm 构建：无法使用 NVIDIA GPU", Backquoted(name))};
    case FrameworkIssueId::kMixedCudaMajors:
      break;
  }
  return {};
}

Text MixedText(const PythonEnvironment& env) {
  std::string majors;
  for (int m : env.cuda_majors) majors += (majors.empty() ? "" : ", ") + std::to_string(m);
  return Text{fmt::format("CUDA runtimes of majors {} mixed in one environment", majors),
              fmt::format("同一环境中混装了 CUDA 主版本 {} 的运行时", majors)};
}

void AddActions(Finding& f, const std::string& site_dir) {
  f.actions.push_back(
      Action{Text{"List what is installed there and which CUDA each build expects.",
                  "列出该环境中已安装的包及各构建所需的 CUDA 版本。"},
             fmt::format("ls {} | grep -i -E '^(torch|tensorflow|jax|nvidia)'", site_dir)});
  f.actions.push_back(Action{
      Text{"Create an isolated environment (venv or conda) per framework and install the build "
           "for a CUDA release this driver supports, from the framework's matching index (e.g. "
           "PyTorch's cu121 index).",
           "为每个框架创建独立环境（venv 或 conda），从框架对应的软件源（例如 PyTorch 的 cu121 源）"
           "安装面向当前驱动所支持 CUDA 版本的构建。"},
      "python -m venv /opt/venv-torch && /opt/venv-torch/bin/pip install torch --index-url "
      "https://download.pytorch.org/whl/cu121"});
  f.actions.push_back(Action{Text{"Check from inside the environment that the GPU is seen.",
                                  "在该环境中确认框架能识别 GPU。"},
                             "python -c 'import torch; print(torch.version.cuda, "
                             "torch.cuda.is_available())'"});
}

void EvaluateEnvironment(const DiagnosisInput& input, const PythonEnvironment& env,
                         RuleOutput& out) {
  Severity worst = Severity::kOk;
  std::vector<EvidenceItem> evidence;
  for (const FrameworkInstall& fw : env.frameworks) {
    for (FrameworkIssueId id : fw.check.issues) {
      Severity s = IssueSeverity(input, env, fw, id);
      if (s == Severity::kOk || id == FrameworkIssueId::kMixedCudaMajors) continue;
      worst = std::max(worst, s);
      Text t = IssueText(fw, id);
      evidence.push_back(TextEvidence(t.en, t.zh));
    }
  }
  if (HasIssue(env.issues, FrameworkIssueId::kMixedCudaMajors)) {
    // Only harmful once a framework built for CUDA loads one of the runtimes.
    bool cuda_framework =
        std::any_of(env.frameworks.begin(), env.frameworks.end(),
                    [](const FrameworkInstall& fw) { return fw.cuda.has_value(); });
    worst = std::max(worst, cuda_framework ? Severity::kWarning : Severity::kInfo);
    Text t = MixedText(env);
    evidence.push_back(TextEvidence(t.en, t.zh));
  }
  if (worst == Severity::kOk) return;
  Finding& f = out.Add(worst);
  f.title = Text{fmt::format("Python environment {}: framework builds do not match the GPUs or "
                             "the driver",
                             env.site_dir),
                 fmt::format("Python 环境 {}：框架构建与 GPU 或驱动不匹配", env.site_dir)};
  f.explanation = Text{
      "A framework uses the GPUs only when its build matches the machine: a CUDA build for a "
      "CUDA release the driver can run, and one CUDA major per environment (pip wheels bundle "
      "their CUDA runtime, and whichever loads first wins). Otherwise it falls back to the CPU, "
      "fails to start CUDA, or fails to load its libraries.",
      "框架只有在其构建与本机匹配时才能使用 GPU：必须是针对驱动可运行的 CUDA 版本的 CUDA "
      "构建，且同一环境中"
      "只能有一个 CUDA 主版本（pip 包自带 CUDA 运行时，先加载者生效）。否则框架会退回到 CPU "
      "运行、CUDA "
      "初始化失败，或无法加载其依赖库。"};
  f.evidence = std::move(evidence);
  AddActions(f, env.site_dir);
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const PythonEnvironment& env : input.versions->frameworks.environments) {
    EvaluateEnvironment(input, env, out);
  }
}

}  // namespace framework_cuda_mismatch_rule
}  // namespace

const Rule kFrameworkCudaMismatchRule{
    "framework.cuda_mismatch", "framework",
    "PyTorch / TensorFlow / JAX builds the driver cannot run, CPU-only or ROCm builds on a GPU "
    "host, or mixed CUDA majors in one environment",
    kNeedsVersions, framework_cuda_mismatch_rule::Evaluate};

}  // namespace gpudoctor
