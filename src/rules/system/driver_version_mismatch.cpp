// driver.version_mismatch: the loaded kernel module, the user-space driver
// libraries and NVML disagree about the driver version ("Failed to
// initialize NVML: Driver/library version mismatch").
#include <fmt/format.h>

#include <set>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace driver_version_mismatch_rule {

// A library kind (libnvidia-ml.so, libcuda.so) with no file of the module's
// version is what breaks NVML or CUDA; other-version files next to a matching
// one are leftovers of an older driver, which the loader does not pick.
bool LibraryKindWithoutMatch(const DriverFacts& d) {
  std::set<std::string> kinds, matched;
  for (const DriverLibraryFile& lib : d.libraries) {
    kinds.insert(lib.library);
    if (lib.matches_kernel_module) matched.insert(lib.library);
  }
  return kinds.size() != matched.size();
}

void AddActions(Finding& f) {
  f.actions.push_back(
      Action{Text{"See the versions side by side: the loaded module and the installed libraries.",
                  "对比已加载的内核模块与已安装的驱动库版本。"},
             "cat /proc/driver/nvidia/version; ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.*"});
  f.actions.push_back(Action{
      Text{"Reboot so that the module of the installed driver loads (or reload the module with no "
           "GPU process running).",
           "重启机器以加载已安装驱动版本的内核模块（或在没有 GPU 进程时重新加载内核模块）。"},
      "sudo reboot"});
  f.actions.push_back(
      Action{Text{"Stop unattended upgrades from changing the driver under running jobs: hold the "
                  "driver packages and upgrade them in a maintenance window.",
                  "防止系统自动升级在任务运行期间更换驱动：锁定驱动软件包，在维护窗口中再升级。"},
             "sudo apt-mark hold 'nvidia-*' 'libnvidia-*'"});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const DriverFacts& d = input.versions->driver;
  if (!d.version_mismatch) return;
  const bool nvml_differs =
      d.nvml_version && d.kernel_module && !(*d.nvml_version == d.kernel_module->version);
  const bool broken = nvml_differs || LibraryKindWithoutMatch(d);
  Finding& f = out.Add(broken ? Severity::kCritical : Severity::kInfo);
  std::string module = d.kernel_module ? d.kernel_module->version.ToString() : std::string("?");
  if (broken) {
    f.title = Text{fmt::format("Driver versions disagree: kernel module {} vs user-space "
                               "libraries",
                               module),
                   fmt::format("驱动版本不一致：内核模块为 {}，与用户态库不同", module)};
    f.explanation = Text{
        "The kernel module that is loaded and the driver libraries that programs load are of "
        "different versions. NVML and nvidia-smi then fail with \"Driver/library version "
        "mismatch\" and CUDA cannot start. It follows a driver upgrade without a reboot.",
        "已加载的内核模块与程序加载的驱动库版本不同，NVML 和 nvidia-smi 会报 "
        "`Driver/library version mismatch` 错误，CUDA "
        "也无法启动。这通常发生在升级驱动之后没有重启。"};
  } else {
    f.title =
        Text{fmt::format("Libraries of another driver version are left next to driver {}", module),
             fmt::format("驱动 {} 旁边残留着其他版本的驱动库文件", module)};
    f.explanation = Text{
        "Every driver library has a file of the loaded module's version, so nothing fails now; "
        "the other files are leftovers of an earlier driver. They can confuse containers and "
        "tools that pick a library by file name.",
        "每个驱动库都有与已加载内核模块同版本的文件，因此目前不会出错；其他版本的文件是旧驱动的残留"
        "，"
        "可能让按文件名选择驱动库的容器或工具出错。"};
  }
  f.evidence.push_back(
      TextEvidence(fmt::format("kernel module {} ({})", module, d.effective_source),
                   fmt::format("内核模块 {}（{}）", module, Backquoted(d.effective_source))));
  for (const std::string& line : d.mismatch_details) {
    f.evidence.push_back(TextEvidence(line, Backquoted(line)));
  }
  if (broken) AddActions(f);
  if (!broken) {
    f.actions.push_back(Action{Text{"Remove the leftover files with the old driver's packages.",
                                    "通过卸载旧驱动的软件包删除这些残留文件。"},
                               "ls -l /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.* "
                               "/usr/lib/x86_64-linux-gnu/libcuda.so.*"});
  }
}

}  // namespace driver_version_mismatch_rule
}  // namespace

const Rule kDriverVersionMismatchRule{
    "driver.version_mismatch", "driver",
    "Kernel module, user-space driver libraries and NVML report different driver versions",
    kNeedsVersions, driver_version_mismatch_rule::Evaluate};

}  // namespace gpudoctor
