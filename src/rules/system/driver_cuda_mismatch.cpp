// driver.cuda_mismatch: installed CUDA (toolkits, nvcc, libcudart on the
// library path, the runtime pip wheels bundle) newer than the driver
// supports, checked against NVIDIA's table (knowledge/cuda_driver_table.h).
#include <fmt/format.h>

#include <algorithm>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace driver_cuda_mismatch_rule {

struct CudaItem {
  Text what;  // "CUDA toolkit 12.4 (/usr/local/cuda-12.4)"
  CudaSupportVerdict verdict;
  bool in_use = true;  // the default toolkit, nvcc, a runtime on the path, a bundled runtime
};

std::vector<CudaItem> Items(const VersionFacts& v) {
  std::vector<CudaItem> items;
  for (const CudaToolkitInstall& t : v.cuda.toolkits) {
    if (!t.on_driver) continue;
    std::string ver = t.version.ToString();
    items.push_back({Text{fmt::format("CUDA toolkit {} ({})", ver, t.path),
                          fmt::format("CUDA 工具包 {}（{}）", ver, t.path)},
                     *t.on_driver, t.is_default});
  }
  if (v.cuda.nvcc && v.cuda.nvcc->on_driver) {
    std::string ver = v.cuda.nvcc->version.release.ToString();
    items.push_back({Text{fmt::format("nvcc {} ({})", ver, v.cuda.nvcc->path),
                          fmt::format("nvcc {}（{}）", ver, v.cuda.nvcc->path)},
                     *v.cuda.nvcc->on_driver, true});
  }
  for (const CudaRuntimeLibrary& r : v.cuda.runtimes) {
    if (!r.on_driver || !r.version) continue;
    std::string ver = r.version->ToString();
    items.push_back({Text{fmt::format("libcudart {} ({})", ver, r.path),
                          fmt::format("libcudart {}（{}）", ver, r.path)},
                     *r.on_driver, true});
  }
  for (const PythonEnvironment& env : v.frameworks.environments) {
    if (!env.bundled_runtime || !env.bundled_runtime_on_driver) continue;
    std::string ver = env.bundled_runtime->ToString();
    items.push_back(
        {Text{fmt::format("CUDA runtime {} bundled by pip wheels in {}", ver, env.site_dir),
              fmt::format("{} 中 pip 包自带的 CUDA 运行时 {}", env.site_dir, ver)},
         *env.bundled_runtime_on_driver, true});
  }
  return items;
}

EvidenceItem ItemEvidence(const CudaItem& item, const std::string& driver) {
  const CudaSupportVerdict& v = item.verdict;
  std::string need = v.min_driver ? v.min_driver->ToString() : std::string("?");
  std::string max = v.driver_max_cuda.ToString();
  if (v.support == CudaSupport::kMinorCompatOnly) {
    return TextEvidence(
        fmt::format("{} runs on driver {} only through minor-version compatibility (CUDA {} "
                    "natively; full support from driver {})",
                    item.what.en, driver, max, need),
        fmt::format(
            "{} 在驱动 {} 上只能依靠次版本兼容运行（驱动原生支持 CUDA {}；驱动 {} 起完全支持）",
            item.what.zh, driver, max, need));
  }
  return TextEvidence(fmt::format("{} needs driver {} or newer; driver {} supports up to CUDA {}",
                                  item.what.en, need, driver, max),
                      fmt::format("{} 需要驱动 {} 或更新版本；驱动 {} 最高支持 CUDA {}",
                                  item.what.zh, need, driver, max));
}

// The highest minimum driver among the items that need a newer one.
std::optional<DriverVersion> DriverToReach(const std::vector<const CudaItem*>& items) {
  std::optional<DriverVersion> best;
  for (const CudaItem* i : items) {
    if (i->verdict.min_driver && (!best || *best < *i->verdict.min_driver)) {
      best = i->verdict.min_driver;
    }
  }
  return best;
}

void AddActions(const VersionFacts& v, const std::vector<const CudaItem*>& flagged, Finding& f) {
  if (auto target = DriverToReach(flagged)) {
    std::string t = target->ToString();
    f.actions.push_back(Action{Text{fmt::format("Upgrade the driver to {} or newer.", t),
                                    fmt::format("把驱动升级到 {} 或更新版本。", t)},
                               ""});
  }
  for (const CudaToolkitInstall& t : v.cuda.toolkits) {
    if (!t.on_driver || t.on_driver->support != CudaSupport::kSupported || t.is_default) continue;
    f.actions.push_back(
        Action{Text{fmt::format("Or use the installed toolkit the driver supports ({}).", t.path),
                    fmt::format("或者改用驱动支持的已安装工具包（{}）。", t.path)},
               fmt::format("sudo ln -sfn {} /usr/local/cuda", t.path)});
    break;
  }
  f.actions.push_back(Action{
      Text{"Or install builds for a CUDA release the driver supports (e.g. a framework wheel for "
           "an older CUDA); on data-center GPUs the cuda-compat package can also run a newer CUDA "
           "on this driver.",
           "或者安装面向驱动所支持 CUDA 版本的构建（例如针对较旧 CUDA 的框架安装包）；在数据中心 "
           "GPU 上，"
           "也可以用 `cuda-compat` 包在当前驱动上运行更新的 CUDA。"},
      ""});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const VersionFacts& v = *input.versions;
  if (!v.cuda.driver) {
    if (!v.cuda.toolkits.empty() || !v.cuda.runtimes.empty() || v.cuda.nvcc) {
      out.NotCheckedBecause(
          Text{"the driver version is unknown, so the installed CUDA cannot be "
               "compared with it",
               "驱动版本未知，无法与已安装的 CUDA 进行比较"});
    }
    return;
  }
  auto items = Items(v);
  std::vector<const CudaItem*> flagged;
  bool in_use_too_old = false;
  for (const CudaItem& i : items) {
    CudaSupport s = i.verdict.support;
    if (s != CudaSupport::kDriverTooOld && s != CudaSupport::kMinorCompatOnly) continue;
    flagged.push_back(&i);
    in_use_too_old |= s == CudaSupport::kDriverTooOld && i.in_use;
  }
  if (flagged.empty()) return;

  std::string driver = v.cuda.driver->ToString();
  Finding& f = out.Add(in_use_too_old ? Severity::kWarning : Severity::kInfo);
  f.title = Text{fmt::format("Installed CUDA is newer than driver {} supports", driver),
                 fmt::format("已安装的 CUDA 版本高于驱动 {} 所支持的版本", driver)};
  f.explanation = Text{
      "Each CUDA release needs a minimum driver. A runtime newer than the driver fails at start "
      "with \"CUDA driver version is insufficient for CUDA runtime version\" (error 35); one that "
      "runs only through minor-version compatibility misses features and can fail to JIT-compile "
      "newer PTX (error 36). nvidia-smi's \"CUDA Version\" is the newest CUDA the driver supports, "
      "not what is installed.",
      "每个 CUDA 版本都要求最低驱动版本。比驱动更新的运行时在启动时会报 "
      "`CUDA driver version is insufficient for CUDA runtime version`（错误 "
      "35）；只能依靠次版本兼容运行的，"
      "部分功能不可用，对较新 PTX 的即时编译可能失败（错误 36）。nvidia-smi 显示的 CUDA Version "
      "是驱动支持的最高 CUDA 版本，而不是已安装的版本。"};
  for (const CudaItem* i : flagged) f.evidence.push_back(ItemEvidence(*i, driver));
  AddActions(v, flagged, f);
}

}  // namespace driver_cuda_mismatch_rule
}  // namespace

const Rule kDriverCudaMismatchRule{
    "driver.cuda_mismatch", "driver",
    "CUDA toolkit, nvcc, libcudart or a bundled pip runtime newer than the driver supports",
    kNeedsVersions, driver_cuda_mismatch_rule::Evaluate};

}  // namespace gpudoctor
