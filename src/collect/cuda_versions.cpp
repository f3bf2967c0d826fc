#include "collect/cuda_versions.h"

#include <filesystem>
#include <set>

#include "collect/exec_capture.h"
#include "collect/library_dirs.h"
#include "collect/root_glob.h"
#include "parse/framework_versions.h"

namespace gpudoctor {
namespace {

namespace fs = std::filesystem;

std::string CanonicalKey(const CollectContext& ctx, const std::string& path) {
  std::error_code ec;
  auto real = fs::canonical(UnderRoot(ctx, path), ec);
  return ec ? path : real.string();
}

std::optional<CudaSupportVerdict> Verdict(const CudaFacts& facts, CudaVersion v) {
  if (!facts.driver) return std::nullopt;
  return CheckCudaOnDriver(v, *facts.driver, facts.driver_cuda);
}

// Wheel-built toolkits (dist-info/nvidia_cuda_runtime-13.0.96.dist-info)
// carry no version.json; the runtime component's major.minor names the release.
std::optional<CudaVersion> VersionFromDistInfo(const CollectContext& ctx, const std::string& dir,
                                               std::string* file) {
  auto names = ListRootDir(ctx, dir + "/dist-info");
  if (!names.ok()) return std::nullopt;
  for (const auto& name : *names) {
    auto dist = ParseDistInfoDirName(name);
    if (!dist || dist->name.rfind("nvidia-cuda-runtime", 0) != 0) continue;
    if (auto v = ParseCudaVersionText(dist->version)) {
      *file = dir + "/dist-info/" + name;
      return CudaVersion{v->major, v->minor, std::nullopt};
    }
  }
  return std::nullopt;
}

// "/usr/local/cuda-12.2" -> 12.2, the last resort.
std::optional<CudaVersion> VersionFromDirName(const std::string& dir) {
  const auto dash = dir.rfind("/cuda-");
  if (dash == std::string::npos) return std::nullopt;
  return ParseCudaVersionText(std::string_view(dir).substr(dash + 6));
}

void CollectToolkits(const CollectContext& ctx, CudaFacts& facts) {
  const std::string default_key = CanonicalKey(ctx, "/usr/local/cuda");
  std::set<std::string> seen;
  // Real directories first, so that /usr/local/cuda -> cuda-12.2 is listed
  // under its own name and the link only marks the default.
  std::vector<std::string> dirs;
  std::vector<std::string> links;
  for (const auto& dir : GlobRoot(ctx, "/usr/local/cuda*")) {
    std::error_code ec;
    (fs::is_symlink(UnderRoot(ctx, dir), ec) ? links : dirs).push_back(dir);
  }
  dirs.insert(dirs.end(), links.begin(), links.end());
  for (const auto& dir : dirs) {
    if (!IsRootDir(ctx, dir)) continue;
    const std::string key = CanonicalKey(ctx, dir);
    if (!seen.insert(key).second) continue;  // /usr/local/cuda -> cuda-12.2, listed once
    CudaToolkitInstall t;
    t.path = dir;
    std::optional<CudaVersion> version;
    if (auto json = ReadRootFile(ctx, dir + "/version.json", 1 << 20); json.ok()) {
      t.version_file = dir + "/version.json";
      version = ParseCudaVersionJson(*json);
    } else if (auto txt = ReadRootFile(ctx, dir + "/version.txt", 4096); txt.ok()) {
      t.version_file = dir + "/version.txt";
      version = ParseCudaVersionTxt(*txt);
    }
    if (!version) version = VersionFromDistInfo(ctx, dir, &t.version_file);
    if (!version && (version = VersionFromDirName(dir))) t.version_file = "directory name";
    if (!version) {
      facts.sources.push_back(SourceStatus{dir, false, "no readable version.json or version.txt"});
      continue;
    }
    facts.sources.push_back(
        SourceStatus{t.version_file == "directory name" ? dir : t.version_file, true, ""});
    t.version = *version;
    t.is_default = key == default_key;
    t.on_driver = Verdict(facts, t.version);
    facts.toolkits.push_back(std::move(t));
  }
  if (facts.toolkits.empty()) {
    facts.sources.push_back(
        SourceStatus{"/usr/local/cuda*", false, "no CUDA toolkit installed there"});
  }
}

void CollectNvcc(const CollectContext& ctx, CudaFacts& facts) {
  if (ctx.root != "/") {
    facts.sources.push_back(SourceStatus{"nvcc --version", false, "not run under --root"});
    return;
  }
  std::error_code ec;
  const std::string path =
      fs::exists("/usr/local/cuda/bin/nvcc", ec) ? "/usr/local/cuda/bin/nvcc" : "nvcc";
  auto out = ExecCapture({path, "--version"}, std::chrono::seconds(5));
  if (!out.ok()) {
    facts.sources.push_back(StatusOf("nvcc --version", out));
    return;
  }
  auto parsed = ParseNvccVersion(out->output);
  if (!parsed) {
    facts.sources.push_back(
        SourceStatus{"nvcc --version", false, "no \"release X.Y\" in its output"});
    return;
  }
  facts.sources.push_back(SourceStatus{"nvcc --version", true, ""});
  CudaVersion release = parsed->release;
  facts.nvcc = NvccInstall{path, *parsed, Verdict(facts, release)};
}

void ScanRuntimeDir(const CollectContext& ctx, const std::string& dir, const std::string& origin,
                    std::set<std::string>& seen, CudaFacts& facts) {
  auto names = ListRootDir(ctx, dir);
  if (!names.ok()) return;
  for (const auto& name : *names) {
    auto parsed = ParseCudartFileName(name);
    if (!parsed) continue;
    const std::string path = dir + "/" + name;
    std::error_code ec;
    // The SONAME links (libcudart.so.12 -> libcudart.so.12.2.140) would
    // repeat the real file, and libcudart.so.11.0 names every 11.x runtime.
    if (fs::is_symlink(UnderRoot(ctx, path), ec)) continue;
    if (!seen.insert(CanonicalKey(ctx, path)).second) continue;
    CudaRuntimeLibrary lib{path, origin, parsed->major, parsed->version, std::nullopt};
    if (lib.version) {
      CudaVersion release = *lib.version;
      release.patch.reset();  // a component build number, not a toolkit update
      lib.on_driver = Verdict(facts, release);
    }
    facts.runtimes.push_back(std::move(lib));
  }
}

void CollectRuntimes(const CollectContext& ctx, CudaFacts& facts) {
  std::set<std::string> seen;
  for (const auto& dir : LibrarySearchDirs(ctx, nullptr)) {
    ScanRuntimeDir(ctx, dir.path, dir.origin, seen, facts);
  }
  for (const char* pattern : {"/usr/local/cuda*/lib64", "/usr/local/cuda*/targets/*/lib"}) {
    for (const auto& dir : GlobRoot(ctx, pattern)) ScanRuntimeDir(ctx, dir, "toolkit", seen, facts);
  }
  if (facts.runtimes.empty()) {
    facts.sources.push_back(
        SourceStatus{"libcudart.so.*", false, "not found on the library path or in toolkits"});
  }
}

}  // namespace

CudaFacts CollectCudaVersions(const CollectContext& ctx, const CudaCollectOptions& options) {
  CudaFacts facts;
  facts.driver = options.driver;
  facts.driver_cuda = options.driver_cuda;
  if (options.driver_cuda) {
    facts.driver_max_cuda = options.driver_cuda;
  } else if (options.driver) {
    facts.driver_max_cuda = MaxCudaForDriver(*options.driver);
  }
  CollectToolkits(ctx, facts);
  if (options.run_nvcc) CollectNvcc(ctx, facts);
  CollectRuntimes(ctx, facts);
  return facts;
}

}  // namespace gpudoctor
