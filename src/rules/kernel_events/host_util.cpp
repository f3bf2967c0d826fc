#include "rules/kernel_events/host_util.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "parse/kernel_catalog_host.h"

namespace gpudoctor::host_events {
namespace {
bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace

std::string NameList(const std::vector<std::string>& names, std::size_t named, Lang lang) {
  std::set<std::string> seen;
  std::string out;
  std::size_t more = 0;
  for (const std::string& n : names) {
    if (n.empty() || !seen.insert(n).second) continue;
    if (seen.size() > named) {
      ++more;
      continue;
    }
    out += (out.empty() ? "" : (lang == Lang::kZh ? "、" : ", ")) + ("`" + n + "`");
  }
  if (more > 0) {
    out +=
        lang == Lang::kZh ? fmt::format(" 等另外 {} 个", more) : fmt::format(" and {} more", more);
  }
  return out;
}

std::string Reports(std::size_t n, Lang lang) {
  if (lang == Lang::kZh) return fmt::format("{} 次报告", n);
  return fmt::format("{} report{}", n, n == 1 ? "" : "s");
}

std::pair<std::string, std::string> SplitDetail(const std::string& detail) {
  auto at = detail.rfind(": ");
  if (at == std::string::npos) return {"", detail};
  return {detail.substr(0, at), detail.substr(at + 2)};
}

EventProcess TaskOf(const KernelEvent& e) {
  if (!e.process.empty()) return EventProcess{e.pid, e.process};
  for (const std::string& line : e.continuation) {
    EventProcess p = kevents::CrashTask(line);
    if (!p.name.empty()) return p;
  }
  return {};
}

bool InNvidiaDriver(const KernelEvent& e) {
  if (IsNvidiaTask(TaskOf(e).name)) return true;
  return std::any_of(e.continuation.begin(), e.continuation.end(), [](const std::string& l) {
    return Starts(l, "RIP: ") &&
           (l.find("[nvidia") != std::string::npos || l.find(":_nv0") != std::string::npos);
  });
}

}  // namespace gpudoctor::host_events
