#include "collect/driver_versions.h"

#include <algorithm>
#include <charconv>

#include "collect/library_dirs.h"
#include "collect/root_glob.h"

namespace gpudoctor {
namespace {

constexpr const char* kProcVersion = "/proc/driver/nvidia/version";
constexpr const char* kProcParams = "/proc/driver/nvidia/params";
constexpr const char* kPersistencedUnit = "nvidia-persistenced.service";
constexpr const char* kPersistencedPid = "/var/run/nvidia-persistenced/nvidia-persistenced.pid";
constexpr const char* kLibraries[] = {"libnvidia-ml.so", "libcuda.so"};

void FindLibraries(const CollectContext& ctx, DriverFacts& facts) {
  for (const auto& dir : LibrarySearchDirs(ctx, &facts.sources)) {
    auto names = ListRootDir(ctx, dir.path);
    if (!names.ok()) continue;
    for (const auto& name : *names) {
      for (const char* lib : kLibraries) {
        auto v = DriverVersionFromLibraryName(name, lib);
        if (!v) continue;
        facts.libraries.push_back(DriverLibraryFile{dir.path + "/" + name, lib, *v, true});
      }
    }
  }
}

void ChooseEffective(DriverFacts& facts) {
  if (facts.kernel_module) {
    facts.effective_version = facts.kernel_module->version;
    facts.effective_source = kProcVersion;
  } else if (facts.nvml_version) {
    facts.effective_version = facts.nvml_version;
    facts.effective_source = "NVML";
  } else {
    const DriverLibraryFile* newest = nullptr;
    for (const auto& lib : facts.libraries) {
      if (lib.library != "libnvidia-ml.so") continue;
      if (newest == nullptr || newest->version < lib.version) newest = &lib;
    }
    if (newest != nullptr) {
      facts.effective_version = newest->version;
      facts.effective_source = newest->path;
    }
  }
}

void DetectMismatch(DriverFacts& facts) {
  if (!facts.kernel_module) return;
  const DriverVersion& kernel = facts.kernel_module->version;
  for (auto& lib : facts.libraries) {
    lib.matches_kernel_module = lib.version == kernel;
    if (lib.matches_kernel_module) continue;
    facts.version_mismatch = true;
    facts.mismatch_details.push_back(lib.path + " is " + lib.version.ToString() +
                                     ", kernel module is " + kernel.ToString());
  }
  if (facts.nvml_version && !(*facts.nvml_version == kernel)) {
    facts.version_mismatch = true;
    facts.mismatch_details.push_back("NVML reports " + facts.nvml_version->ToString() +
                                     ", kernel module is " + kernel.ToString());
  }
}

void CollectGsp(const CollectContext& ctx, DriverFacts& facts) {
  auto params = ReadRootFile(ctx, kProcParams, 1 << 20);
  facts.sources.push_back(StatusOf(kProcParams, params));
  if (params.ok()) {
    if (auto raw = ParseNvidiaParam(*params, "EnableGpuFirmware")) {
      facts.gsp.enable_gpu_firmware = DecodeEnableGpuFirmware(*raw);
    }
  }
  if (!facts.effective_version) return;
  facts.gsp.firmware_dir = "/lib/firmware/nvidia/" + facts.effective_version->ToString();
  auto names = ListRootDir(ctx, facts.gsp.firmware_dir);
  facts.sources.push_back(StatusOf(facts.gsp.firmware_dir, names));
  if (!names.ok()) return;
  for (const auto& name : *names) {
    if (name.rfind("gsp", 0) == 0 && name.size() > 4 && name.ends_with(".bin")) {
      facts.gsp.firmware_files.push_back(name);
    }
  }
}

std::optional<std::uint32_t> ParsePid(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  std::uint32_t pid = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), pid);
  if (ec != std::errc() || ptr != text.data() + text.size() || pid == 0) return std::nullopt;
  return pid;
}

void CollectPersistenced(const CollectContext& ctx, ServiceStateReader* services,
                         DriverFacts& facts) {
  PersistencedFacts& p = facts.persistenced;
  if (services != nullptr) {
    auto state = services->Read(kPersistencedUnit);
    facts.sources.push_back(StatusOf(kPersistencedUnit, state));
    if (state.ok() && state->Installed()) {
      p.source = kPersistencedUnit;
      p.active_state = state->active_state;
      p.sub_state = state->sub_state;
      p.running = state->Running();
      if (state->main_pid && *state->main_pid != 0) p.pid = state->main_pid;
      return;
    }
  }
  // The daemon writes its pid file while it runs and removes it on exit.
  auto text = ReadRootFile(ctx, kPersistencedPid, 64);
  facts.sources.push_back(StatusOf(kPersistencedPid, text));
  p.source = kPersistencedPid;
  if (!text.ok()) {
    if (text.error().code == ErrorCode::kNotFound) p.running = false;
    return;
  }
  p.pid = ParsePid(*text);
  if (!p.pid) return;
  // A stale pid file names a process that no longer exists.
  p.running = IsRootDir(ctx, "/proc/" + std::to_string(*p.pid));
}

}  // namespace

DriverFacts CollectDriverVersions(const CollectContext& ctx, const DriverCollectOptions& options) {
  DriverFacts facts;
  facts.nvml_version = options.nvml_version;
  auto version_text = ReadRootFile(ctx, kProcVersion, 64 << 10);
  if (version_text.ok()) {
    facts.kernel_module = ParseProcDriverVersion(*version_text);
    if (!facts.kernel_module) {
      version_text =
          Error{ErrorCode::kCorrupt, std::string(kProcVersion) + ": no NVRM version line"};
    }
  } else if (version_text.error().code == ErrorCode::kNotFound) {
    version_text = Error{ErrorCode::kNotFound,
                         std::string(kProcVersion) + ": missing (nvidia kernel module not loaded)"};
  }
  facts.sources.push_back(StatusOf(kProcVersion, version_text));
  FindLibraries(ctx, facts);
  if (facts.libraries.empty()) {
    facts.sources.push_back(SourceStatus{"libnvidia-ml.so.<version>", false,
                                         "no versioned libnvidia-ml or libcuda in library dirs"});
  }
  ChooseEffective(facts);
  DetectMismatch(facts);
  CollectGsp(ctx, facts);
  CollectPersistenced(ctx, options.services, facts);
  return facts;
}

}  // namespace gpudoctor
