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

}  // namespace

std::optional<KubePodRef> ParsePodLogDirName(std::string_view dir_name) {
  const auto first = dir_name.find('_');
  if (first == std::string_view::npos) return std::nullopt;
  const auto second = dir_name.find('_', first + 1);
  if (second == std::string_view::npos || dir_name.find('_', second + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view ns = dir_name.substr(0, first);
  const std::string_view name = dir_name.substr(first + 1, second - first - 1);
  const std::string_view uid = dir_name.substr(second + 1);
  if (!IsDnsNameText(ns) || !IsDnsNameText(name) || !IsPodUidText(uid)) return std::nullopt;
  return KubePodRef{std::string(ns), std::string(name), std::string(uid)};
}

}  // namespace gpudoctor
