#include "parse/cgroup.h"

#include <algorithm>
#include <cctype>

#include "parse/proc_text.h"

namespace gpudoctor {

namespace {

Error Corrupt(std::string what) { return Error{ErrorCode::kCorrupt, std::move(what)}; }

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// The first run of exactly 64 hex digits in `text`, or empty.
std::string_view Find64Hex(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!IsHex(text[i])) {
      ++i;
      continue;
    }
    std::size_t start = i;
    while (i < text.size() && IsHex(text[i])) ++i;
    if (i - start == 64) return text.substr(start, 64);
  }
  return {};
}

// "pod1b2c3d4e_5f6a_..." (systemd driver) or "pod1b2c3d4e-5f6a-..." (cgroupfs).
std::string FindPodUid(std::string_view path) {
  for (std::size_t at = path.find("pod"); at != std::string_view::npos;
       at = path.find("pod", at + 3)) {
    std::string uid;
    std::size_t i = at + 3;
    while (i < path.size() && (IsHex(path[i]) || path[i] == '-' || path[i] == '_')) {
      uid.push_back(path[i] == '_' ? '-' : static_cast<char>(std::tolower(path[i])));
      ++i;
    }
    if (uid.size() == 36 && uid[8] == '-' && uid[13] == '-' && uid[18] == '-' && uid[23] == '-') {
      return uid;
    }
  }
  return {};
}

std::string RuntimeOf(std::string_view path) {
  if (path.find("cri-containerd") != std::string_view::npos ||
      path.find("containerd") != std::string_view::npos) {
    return "containerd";
  }
  if (path.find("crio") != std::string_view::npos) return "cri-o";
  if (path.find("libpod") != std::string_view::npos) return "podman";
  if (path.find("docker") != std::string_view::npos) return "docker";
  return {};
}

}  // namespace

Result<std::vector<CgroupLine>> ParseProcCgroup(std::string_view text) {
  std::vector<CgroupLine> out;
  for (std::string_view line : SplitLines(text)) {
    if (Trim(line).empty()) continue;
    auto first = line.find(':');
    auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos)
      return Corrupt("cgroup: bad line '" + std::string(line) + "'");
    auto id = ParseUnsigned(line.substr(0, first));
    if (!id) return Corrupt("cgroup: bad hierarchy id in '" + std::string(line) + "'");
    CgroupLine entry;
    entry.hierarchy = static_cast<unsigned>(*id);
    std::string_view controllers = line.substr(first + 1, second - first - 1);
    if (!controllers.empty()) {
      for (auto c : Split(controllers, ',')) entry.controllers.emplace_back(c);
    }
    entry.path = std::string(Trim(line.substr(second + 1)));
    out.push_back(std::move(entry));
  }
  return out;
}

std::optional<std::string> CgroupPathFor(const std::vector<CgroupLine>& lines,
                                         std::string_view controller) {
  for (const auto& line : lines) {
    if (controller.empty()) {
      if (line.hierarchy == 0 && line.controllers.empty()) return line.path;
      continue;
    }
    for (const auto& c : line.controllers) {
      if (c == controller) return line.path;
    }
  }
  return std::nullopt;
}

std::optional<double> CpuQuota::Cores() const {
  if (!quota_us || period_us <= 0) return std::nullopt;
  return static_cast<double>(*quota_us) / static_cast<double>(period_us);
}

Result<CpuQuota> ParseCpuMax(std::string_view text) {
  auto words = SplitWords(text);
  if (words.empty() || words.size() > 2)
    return Corrupt("cpu.max: malformed '" + std::string(Trim(text)) + "'");
  CpuQuota q;
  if (words.size() == 2) {
    auto period = ParseSigned(words[1]);
    if (!period || *period <= 0)
      return Corrupt("cpu.max: bad period '" + std::string(words[1]) + "'");
    q.period_us = *period;
  }
  if (words[0] == "max") return q;
  auto quota = ParseSigned(words[0]);
  if (!quota || *quota <= 0) return Corrupt("cpu.max: bad quota '" + std::string(words[0]) + "'");
  q.quota_us = *quota;
  return q;
}

Result<CpuStat> ParseCpuStat(std::string_view text) {
  CpuStat st;
  bool periods = false, throttled = false;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = std::min(text.find('\n', pos), text.size());
    auto words = SplitWords(text.substr(pos, end - pos));
    pos = end + 1;
    if (words.size() != 2) continue;
    auto value = ParseSigned(words[1]);
    if (!value || *value < 0) return Corrupt("cpu.stat: bad value for " + std::string(words[0]));
    const auto v = static_cast<std::uint64_t>(*value);
    if (words[0] == "nr_periods") {
      st.periods = v;
      periods = true;
    } else if (words[0] == "nr_throttled") {
      st.throttled_periods = v;
      throttled = true;
    } else if (words[0] == "throttled_usec") {
      st.throttled_s = static_cast<double>(v) / 1e6;
    } else if (words[0] == "throttled_time") {
      st.throttled_s = static_cast<double>(v) / 1e9;
    }
  }
  if (!periods || !throttled) return Corrupt("cpu.stat: no nr_periods or nr_throttled");
  return st;
}

Result<CpuQuota> ParseCfsQuota(std::string_view quota_text, std::string_view period_text) {
  auto quota = ParseSigned(quota_text);
  auto period = ParseSigned(period_text);
  if (!quota || !period || *period <= 0) {
    return Corrupt("cpu.cfs_quota_us/cpu.cfs_period_us: malformed");
  }
  CpuQuota q;
  q.period_us = *period;
  if (*quota > 0) q.quota_us = *quota;
  return q;
}

Result<std::optional<std::uint64_t>> ParseMemoryLimit(std::string_view text) {
  text = Trim(text);
  if (text == "max") return std::optional<std::uint64_t>();
  auto value = ParseUnsigned(text);
  if (!value) return Corrupt("memory limit: malformed '" + std::string(text) + "'");
  constexpr std::uint64_t kUnlimitedSentinel = std::uint64_t{1} << 62;
  if (*value >= kUnlimitedSentinel) return std::optional<std::uint64_t>();
  return std::optional<std::uint64_t>(*value);
}

std::optional<ContainerRef> ContainerFromCgroupPath(std::string_view path) {
  ContainerRef ref;
  ref.pod_uid = FindPodUid(path);
  // The container id sits in the last path component that holds one.
  std::string_view id;
  for (auto part : Split(path, '/')) {
    auto found = Find64Hex(part);
    if (!found.empty()) id = found;
  }
  if (!id.empty()) {
    ref.container_id = std::string(id.substr(0, 12));
    ref.runtime = RuntimeOf(path);
  }
  if (ref.container_id.empty() && ref.pod_uid.empty()) return std::nullopt;
  return ref;
}

}  // namespace gpudoctor
