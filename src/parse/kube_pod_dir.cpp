#include "parse/kube_pod_dir.h"

namespace gpudoctor {
namespace {

bool IsDnsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// Kubernetes names: lower-case letters, digits, '-' and '.', starting and
// ending with a letter or digit.
bool IsDnsNameText(std::string_view s) {
  if (s.empty() || s.size() > 253 || !IsDnsAlnum(s.front()) || !IsDnsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsDnsAlnum(c) && c != '-' && c != '.') return false;
  }
  return true;
}

bool IsPodUidText(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsContainerIdText(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// "a_b_c" -> {a, b, c}; false unless exactly three parts.
bool SplitThree(std::string_view s, std::string_view (&parts)[3]) {
  const auto first = s.find('_');
  if (first == std::string_view::npos) return false;
  const auto second = s.find('_', first + 1);
  if (second == std::string_view::npos || s.find('_', second + 1) != std::string_view::npos) {
    return false;
  }
  parts[0] = s.substr(0, first);
  parts[1] = s.substr(first + 1, second - first - 1);
  parts[2] = s.substr(second + 1);
  return true;
}

}  // namespace

std::optional<KubePodRef> ParsePodLogDirName(std::string_view dir_name) {
  std::string_view parts[3];
  if (!SplitThree(dir_name, parts)) return std::nullopt;
  const auto [ns, name, uid] = parts;
  if (!IsDnsNameText(ns) || !IsDnsNameText(name) || !IsPodUidText(uid)) return std::nullopt;
  return KubePodRef{std::string(ns), std::string(name), std::string(uid)};
}

std::optional<KubeContainerRef> ParseContainerLogName(std::string_view file_name) {
  if (!file_name.ends_with(".log")) return std::nullopt;
  std::string_view parts[3];
  if (!SplitThree(file_name.substr(0, file_name.size() - 4), parts)) return std::nullopt;
  const auto [pod, ns, rest] = parts;
  const auto dash = rest.rfind('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const std::string_view container = rest.substr(0, dash);
  const std::string_view id = rest.substr(dash + 1);
  if (!IsDnsNameText(pod) || !IsDnsNameText(ns) || !IsDnsNameText(container) ||
      !IsContainerIdText(id)) {
    return std::nullopt;
  }
  return KubeContainerRef{std::string(pod), std::string(ns), std::string(container),
                          std::string(id)};
}

}  // namespace gpudoctor
