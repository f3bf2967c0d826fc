// fabricmanager.version_mismatch: Fabric Manager must be exactly the
// driver's version; otherwise it exits at start ("fabric manager NVIDIA GPU
// driver interface version X don't match with driver version Y") and the
// NVSwitch fabric stays down. Facts section 5.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace fabricmanager_version_mismatch_rule {

struct Versions {
  std::string fm;
  std::string driver;
  std::string how_en;  // where the mismatch was seen
  std::string how_zh;
};

// The installed versions when both are known; else the mismatch Fabric
// Manager itself logged (when the installed versions are unknown, the log is
// the best evidence left).
std::optional<Versions> Mismatch(const FabricManagerFacts& fm) {
  if (fm.version_matches_driver == true) return std::nullopt;  // a logged mismatch is then old
  if (fm.version_matches_driver == false && fm.version && fm.driver) {
    return Versions{*fm.version, fm.driver->ToString(), "installed: " + fm.version_source,
                    "已安装：" + Backquoted(fm.version_source)};
  }
  if (fm.log && fm.log->version_mismatch) {
    const FmVersionMismatch& m = *fm.log->version_mismatch;
    return Versions{m.fm_version, m.driver_version, "logged in " + fm.log_path,
                    "记录于 " + fm.log_path};
  }
  return std::nullopt;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const FabricManagerFacts& fm = input.versions->fabric_manager;
  if (!fm.nvswitch_present) return;  // not needed: its version does not matter
  auto m = Mismatch(fm);
  if (!m) return;
  Finding& f = out.Add(Severity::kCritical);
  for (const GpuSeries& gpu : input.gpus) f.gpus.push_back(gpu.key);
  f.title = Text{fmt::format("Fabric Manager {} does not match driver {}", m->fm, m->driver),
                 fmt::format("Fabric Manager {} 与驱动 {} 版本不一致", m->fm, m->driver)};
  f.explanation = Text{
      "Fabric Manager must be exactly the same version as the loaded driver. Otherwise it exits "
      "at start, the NVSwitch fabric is not set up, and CUDA fails with error 802. The usual "
      "cause is a package upgrade of one without the other.",
      "Fabric Manager 的版本必须与已加载的驱动完全一致，否则它在启动时就会退出，NVSwitch "
      "互联无法配置，CUDA "
      "报错误 802。常见原因是只升级了其中一个软件包。"};
  f.evidence.push_back(
      TextEvidence(fmt::format("Fabric Manager {}, driver {} ({})", m->fm, m->driver, m->how_en),
                   fmt::format("Fabric Manager {}，驱动 {}（{}）", m->fm, m->driver, m->how_zh)));
  f.actions.push_back(Action{
      Text{fmt::format("Install the Fabric Manager package of exactly version {} (the driver's), "
                       "and hold both packages together.",
                       m->driver),
           fmt::format(
               "安装版本恰好为 {}（与驱动相同）的 Fabric Manager 软件包，并将两者一起锁定版本。",
               m->driver)},
      "apt-cache policy 'nvidia-fabricmanager*'"});
  f.actions.push_back(
      Action{Text{"Restart it and check that it stays up.", "重启该服务并确认其保持运行。"},
             "sudo systemctl restart nvidia-fabricmanager && systemctl status "
             "nvidia-fabricmanager"});
}

}  // namespace fabricmanager_version_mismatch_rule
}  // namespace

const Rule kFabricManagerVersionMismatchRule{
    "fabricmanager.version_mismatch", "fabricmanager",
    "Fabric Manager version differs from the driver's (they must match exactly)", kNeedsVersions,
    fabricmanager_version_mismatch_rule::Evaluate};

}  // namespace gpudoctor
