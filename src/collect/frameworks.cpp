#include "collect/frameworks.h"

#include <algorithm>
#include <set>

#include "collect/root_glob.h"
#include "parse/framework_versions.h"

namespace gpudoctor {
namespace {

struct SitePattern {
  const char* pattern;
  const char* origin;
};

constexpr SitePattern kSitePatterns[] = {
    {"/usr/lib/python3*/site-packages", "system"},
    {"/usr/lib/python3*/dist-packages", "system"},
    {"/usr/lib/python3/dist-packages", "system"},
    {"/usr/lib64/python3*/site-packages", "system"},
    {"/usr/local/lib/python3*/site-packages", "system"},
    {"/usr/local/lib/python3*/dist-packages", "system"},
    {"/opt/conda/lib/python3*/site-packages", "conda"},
    {"/opt/conda/envs/*/lib/python3*/site-packages", "conda"},
    {"/root/miniconda3/lib/python3*/site-packages", "conda"},
    {"/root/miniconda3/envs/*/lib/python3*/site-packages", "conda"},
    {"/root/anaconda3/lib/python3*/site-packages", "conda"},
    {"/root/anaconda3/envs/*/lib/python3*/site-packages", "conda"},
    {"/root/.local/lib/python3*/site-packages", "user"},
    {"/home/*/.local/lib/python3*/site-packages", "user"},
};

bool IsFrameworkDist(const std::string& name) {
  return name == "torch" || name == "tensorflow" || name == "tensorflow-gpu" ||
         name == "tensorflow-cpu" || name == "tf-nightly" || name == "jax" || name == "jaxlib";
}

std::string BaseName(const std::string& name) {
  return name.rfind("tensorflow", 0) == 0 || name == "tf-nightly" ? "tensorflow" : name;
}

FrameworkInstall* Find(PythonEnvironment& env, const std::string& name) {
  for (auto& f : env.frameworks) {
    if (f.name == name) return &f;
  }
  env.frameworks.push_back(FrameworkInstall{});
  env.frameworks.back().name = name;
  return &env.frameworks.back();
}

void ReadTorch(const CollectContext& ctx, const std::string& site, PythonEnvironment& env,
               std::vector<SourceStatus>& sources) {
  const std::string path = site + "/torch/version.py";
  auto text = ReadRootFile(ctx, path, 64 << 10);
  sources.push_back(StatusOf(path, text));
  if (!text.ok()) return;
  auto parsed = ParseTorchVersionPy(*text);
  if (!parsed) return;
  FrameworkInstall* t = Find(env, "torch");
  t->version = parsed->version;
  t->source = path;
  t->rocm = parsed->hip.has_value();
  if (parsed->cuda) {
    t->cuda = ParseCudaVersionText(*parsed->cuda);
    t->cuda_source = path;
  }
  t->cpu_only = !parsed->cuda && !parsed->hip;
}

void ReadTensorflow(const CollectContext& ctx, const std::string& site, PythonEnvironment& env,
                    std::vector<SourceStatus>& sources) {
  const std::string path = site + "/tensorflow/python/platform/build_info.py";
  auto text = ReadRootFile(ctx, path, 256 << 10);
  sources.push_back(StatusOf(path, text));
  if (!text.ok()) return;
  const TfBuildInfo info = ParseTfBuildInfo(*text);
  FrameworkInstall* tf = Find(env, "tensorflow");
  if (tf->source.empty()) tf->source = path;
  if (info.cuda_version) {
    tf->cuda = ParseCudaVersionText(*info.cuda_version);
    tf->cuda_source = path;
  }
  tf->cudnn = info.cudnn_version;
  tf->rocm = info.is_rocm_build.value_or(false);
  tf->cpu_only = info.is_cuda_build == false && !tf->rocm;
}

void ReadDistInfo(const CollectContext& ctx, const std::string& site, const std::string& dir,
                  PythonEnvironment& env) {
  auto dist = ParseDistInfoDirName(dir);
  if (!dist) return;
  const bool framework = IsFrameworkDist(dist->name);
  if (!framework && !ParseCudaWheelName(dist->name, dist->version)) return;
  // METADATA holds the unescaped version; the directory name is the fallback.
  if (auto meta = ReadRootFile(ctx, site + "/" + dir + "/METADATA", 64 << 10); meta.ok()) {
    if (auto parsed = ParseDistMetadata(*meta)) dist->version = parsed->version;
  }
  auto wheel = ParseCudaWheelName(dist->name, dist->version);
  if (wheel) {
    env.cuda_wheels.push_back(CudaWheel{dist->name, dist->version, wheel->cuda_major});
    if (wheel->family == "nvidia-cuda-runtime") {
      if (auto v = ParseCudaVersionText(dist->version)) {
        env.bundled_runtime = CudaVersion{v->major, v->minor, std::nullopt};
      }
    }
    if (wheel->family.rfind("jax-cuda", 0) == 0) {
      FrameworkInstall* jax = Find(env, "jax");
      jax->cuda_major = wheel->cuda_major;
      jax->cuda_source = site + "/" + dir;
    }
    return;
  }
  FrameworkInstall* f = Find(env, BaseName(dist->name));
  if (f->version.empty()) f->version = dist->version;
  if (f->source.empty()) f->source = site + "/" + dir;
  const LocalBuildTag tag = ParseLocalBuildTag(dist->version);
  if (!f->cuda && tag.cuda) {
    f->cuda = tag.cuda;
    f->cuda_source = "+" + tag.text + " version tag";
  }
  if (tag.kind == LocalBuildTag::Kind::kCpu && !f->cuda) f->cpu_only = true;
  if (tag.kind == LocalBuildTag::Kind::kRocm) f->rocm = true;
}

void CheckEnvironment(const FrameworkCollectOptions& options, PythonEnvironment& env) {
  std::set<int> majors;
  for (auto& f : env.frameworks) {
    if (f.cuda) majors.insert(f.cuda->major);
    if (f.cuda_major) majors.insert(*f.cuda_major);
    f.check = CheckFrameworkBuild(FrameworkBuild{f.cuda, f.cpu_only, f.rocm}, options.driver,
                                  options.driver_cuda);
  }
  for (const auto& w : env.cuda_wheels) majors.insert(w.cuda_major);
  env.cuda_majors.assign(majors.begin(), majors.end());
  if (majors.size() > 1) env.issues.push_back(FrameworkIssueId::kMixedCudaMajors);
  if (env.bundled_runtime && options.driver) {
    env.bundled_runtime_on_driver =
        CheckCudaOnDriver(*env.bundled_runtime, *options.driver, options.driver_cuda);
  }
}

PythonEnvironment ScanSiteDir(const CollectContext& ctx, const std::string& site,
                              const std::string& origin, const FrameworkCollectOptions& options,
                              std::vector<SourceStatus>& sources) {
  PythonEnvironment env;
  env.site_dir = site;
  env.origin = origin;
  auto names = ListRootDir(ctx, site);
  if (!names.ok()) {
    sources.push_back(StatusOf(site, names));
    return env;
  }
  for (const auto& name : *names) {
    if (name.ends_with(".dist-info")) ReadDistInfo(ctx, site, name, env);
  }
  // version.py and build_info.py are read after dist-info so that they win.
  if (std::binary_search(names->begin(), names->end(), "torch")) ReadTorch(ctx, site, env, sources);
  if (std::binary_search(names->begin(), names->end(), "tensorflow")) {
    ReadTensorflow(ctx, site, env, sources);
  }
  CheckEnvironment(options, env);
  return env;
}

std::vector<std::pair<std::string, std::string>> SiteDirs(const CollectContext& ctx,
                                                          const FrameworkCollectOptions& options) {
  std::vector<std::pair<std::string, std::string>> dirs;
  for (const auto& p : kSitePatterns) {
    for (const auto& dir : GlobRoot(ctx, p.pattern)) dirs.emplace_back(dir, p.origin);
  }
  for (const auto& env : options.python_envs) {
    std::string dir = env;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.ends_with("site-packages") || dir.ends_with("dist-packages")) {
      dirs.emplace_back(dir, "option");
      continue;
    }
    for (const char* sub : {"/lib/python3*/site-packages", "/lib64/python3*/site-packages"}) {
      for (const auto& d : GlobRoot(ctx, dir + sub)) dirs.emplace_back(d, "option");
    }
  }
  return dirs;
}

}  // namespace

FrameworkFacts CollectFrameworks(const CollectContext& ctx,
                                 const FrameworkCollectOptions& options) {
  FrameworkFacts facts;
  facts.driver = options.driver;
  facts.driver_cuda = options.driver_cuda;
  std::set<std::string> seen;
  for (const auto& [dir, origin] : SiteDirs(ctx, options)) {
    if (!IsRootDir(ctx, dir) || !seen.insert(dir).second) continue;
    facts.scanned_dirs.push_back(dir);
    PythonEnvironment env = ScanSiteDir(ctx, dir, origin, options, facts.sources);
    if (!env.frameworks.empty() || !env.cuda_wheels.empty()) {
      facts.environments.push_back(std::move(env));
    }
  }
  if (facts.scanned_dirs.empty()) {
    facts.sources.push_back(
        SourceStatus{"site-packages", false, "no Python site-packages or dist-packages found"});
  }
  for (const auto& env : options.python_envs) {
    if (!IsRootDir(ctx, env)) {
      facts.sources.push_back(SourceStatus{env, false, "--python-env directory not found"});
    }
  }
  return facts;
}

}  // namespace gpudoctor
