#include "collect/cgroup_limits.h"

#include <filesystem>

namespace gpudoctor {

namespace {

// "/a/b/c" -> {"/a/b/c", "/a/b", "/a", "/"}; a path outside our view
// ("/../x", seen without a cgroup namespace) is tried as given, then "/".
std::vector<std::string> SelfAndAncestors(const std::string& path) {
  std::vector<std::string> out;
  std::string p = path.empty() ? "/" : path;
  while (true) {
    out.push_back(p);
    if (p == "/" || p.empty()) break;
    auto slash = p.rfind('/');
    p = slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
  }
  return out;
}

std::string Join(std::string_view mount, const std::string& group, std::string_view file) {
  std::string out(mount);
  if (group != "/") out += group;
  out += "/";
  out += file;
  return out;
}

bool Exists(const CollectContext& ctx, std::string_view path) {
  std::error_code ec;
  return std::filesystem::exists(UnderRoot(ctx, path), ec);
}

// Walks from the group up to the root of `mount`, keeping the tightest value
// that `read_one` returns for a directory. When the group directory is not
// visible (a container without a cgroup namespace sees its own group at the
// mount root), the mount root alone is read.
template <typename T, typename ReadOne>
void Tightest(const CollectContext& ctx, std::string_view mount, const std::string& group,
              std::string_view probe_file, ReadOne read_one, std::optional<T>& value,
              std::string& file, std::vector<SourceStatus>& sources) {
  std::vector<std::string> groups = SelfAndAncestors(group);
  if (!Exists(ctx, Join(mount, group, ""))) groups = {"/"};
  for (const auto& g : groups) {
    const std::string dir = Join(mount, g, "");
    if (!Exists(ctx, Join(mount, g, probe_file))) continue;  // root groups have no limit files
    std::optional<T> one;
    std::string err;
    read_one(dir, one, err);
    if (!err.empty()) {
      sources.push_back(SourceStatus{Join(mount, g, probe_file), false, err});
      continue;
    }
    if (one && (!value || *one < *value)) {
      value = one;
      file = Join(mount, g, probe_file);
    }
  }
}

void ReadV2(const CollectContext& ctx, const std::string& group, CgroupLimits& out) {
  const std::string_view mount = "/sys/fs/cgroup";
  Tightest<double>(
      ctx, mount, group, "cpu.max",
      [&](const std::string& dir, std::optional<double>& v, std::string& err) {
        auto text = ReadRootFile(ctx, dir + "cpu.max", 4096);
        if (!text.ok()) return void(err = text.error().message);
        auto quota = ParseCpuMax(*text);
        if (!quota.ok()) return void(err = quota.error().message);
        v = quota->Cores();
      },
      out.cpu_quota_cores, out.cpu_quota_file, out.sources);
  Tightest<std::uint64_t>(
      ctx, mount, group, "memory.max",
      [&](const std::string& dir, std::optional<std::uint64_t>& v, std::string& err) {
        auto text = ReadRootFile(ctx, dir + "memory.max", 4096);
        if (!text.ok()) return void(err = text.error().message);
        auto limit = ParseMemoryLimit(*text);
        if (!limit.ok()) return void(err = limit.error().message);
        v = *limit;
      },
      out.memory_limit_bytes, out.memory_limit_file, out.sources);
}

std::string V1Mount(const CollectContext& ctx, std::initializer_list<std::string_view> names) {
  for (auto name : names) {
    std::string mount = "/sys/fs/cgroup/" + std::string(name);
    if (Exists(ctx, mount)) return mount;
  }
  return {};
}

void ReadV1(const CollectContext& ctx, const std::vector<CgroupLine>& lines, CgroupLimits& out) {
  const std::string cpu_group = CgroupPathFor(lines, "cpu").value_or("/");
  const std::string mem_group = CgroupPathFor(lines, "memory").value_or("/");
  out.cgroup_path = cpu_group;
  const std::string cpu_mount = V1Mount(ctx, {"cpu,cpuacct", "cpu", "cpuacct,cpu"});
  if (cpu_mount.empty()) {
    out.sources.push_back(
        SourceStatus{"/sys/fs/cgroup/cpu", false, "cgroup v1 cpu controller not mounted"});
  } else {
    Tightest<double>(
        ctx, cpu_mount, cpu_group, "cpu.cfs_quota_us",
        [&](const std::string& dir, std::optional<double>& v, std::string& err) {
          auto quota = ReadRootFile(ctx, dir + "cpu.cfs_quota_us", 4096);
          auto period = ReadRootFile(ctx, dir + "cpu.cfs_period_us", 4096);
          if (!quota.ok()) return void(err = quota.error().message);
          if (!period.ok()) return void(err = period.error().message);
          auto parsed = ParseCfsQuota(*quota, *period);
          if (!parsed.ok()) return void(err = parsed.error().message);
          v = parsed->Cores();
        },
        out.cpu_quota_cores, out.cpu_quota_file, out.sources);
  }
  const std::string mem_mount = V1Mount(ctx, {"memory"});
  if (mem_mount.empty()) {
    out.sources.push_back(
        SourceStatus{"/sys/fs/cgroup/memory", false, "cgroup v1 memory controller not mounted"});
    return;
  }
  Tightest<std::uint64_t>(
      ctx, mem_mount, mem_group, "memory.limit_in_bytes",
      [&](const std::string& dir, std::optional<std::uint64_t>& v, std::string& err) {
        auto text = ReadRootFile(ctx, dir + "memory.limit_in_bytes", 4096);
        if (!text.ok()) return void(err = text.error().message);
        auto limit = ParseMemoryLimit(*text);
        if (!limit.ok()) return void(err = limit.error().message);
        v = *limit;
      },
      out.memory_limit_bytes, out.memory_limit_file, out.sources);
}

}  // namespace

CgroupLimits ReadCgroupLimits(const CollectContext& ctx, std::string_view pid) {
  CgroupLimits out;
  const std::string source = "/proc/" + std::string(pid) + "/cgroup";
  auto text = ReadRootFile(ctx, source, 64 * 1024);
  out.sources.push_back(StatusOf(source, text));
  if (!text.ok()) return out;
  auto lines = ParseProcCgroup(*text);
  if (!lines.ok()) {
    out.sources.back() = SourceStatus{source, false, lines.error().message};
    return out;
  }
  const auto v2_path = CgroupPathFor(*lines, "");
  const bool has_v1_cpu = CgroupPathFor(*lines, "cpu").has_value();
  if (v2_path) out.container = ContainerFromCgroupPath(*v2_path);
  if (has_v1_cpu) {
    out.version = "v1";
    ReadV1(ctx, *lines, out);
    if (!out.container) out.container = ContainerFromCgroupPath(out.cgroup_path);
  } else if (v2_path) {
    out.version = "v2";
    out.cgroup_path = *v2_path;
    if (!Exists(ctx, "/sys/fs/cgroup/cgroup.controllers")) {
      out.sources.push_back(SourceStatus{"/sys/fs/cgroup", false, "cgroup v2 not mounted"});
      return out;
    }
    ReadV2(ctx, *v2_path, out);
  } else {
    out.sources.push_back(
        SourceStatus{source, false, "no cgroup v2 entry and no v1 cpu controller"});
  }
  if (!out.cpu_quota_file.empty())
    out.sources.push_back(SourceStatus{out.cpu_quota_file, true, ""});
  if (!out.memory_limit_file.empty())
    out.sources.push_back(SourceStatus{out.memory_limit_file, true, ""});
  return out;
}

std::optional<CpuStat> ReadQuotaCpuStat(const CollectContext& ctx, const CgroupLimits& limits) {
  if (!limits.cpu_quota_cores || limits.cpu_quota_file.empty()) return std::nullopt;
  const std::string& quota = limits.cpu_quota_file;
  const std::string file = quota.substr(0, quota.rfind('/') + 1) + "cpu.stat";
  auto text = ReadRootFile(ctx, file, 4096);
  if (!text.ok()) return std::nullopt;
  auto stat = ParseCpuStat(*text);
  if (!stat.ok()) return std::nullopt;
  return *stat;
}

std::optional<CpuThrottling> ThrottlingBetween(const CpuStat& a, const CpuStat& b, double window_s,
                                               std::string file) {
  if (b.periods < a.periods || b.throttled_periods < a.throttled_periods ||
      b.throttled_s < a.throttled_s) {
    return std::nullopt;
  }
  CpuThrottling t;
  t.window_s = window_s;
  t.periods = b.periods - a.periods;
  t.throttled_periods = b.throttled_periods - a.throttled_periods;
  t.throttled_s = b.throttled_s - a.throttled_s;
  t.file = std::move(file);
  return t;
}

}  // namespace gpudoctor
