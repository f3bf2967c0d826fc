#include "parse/dpkg_status.h"
#include "parse/proc_text.h"

namespace gpudoctor {
namespace {

struct Stanza {
  std::string_view package, status, version;
};

void Finish(const Stanza& st, std::string_view prefix, std::vector<DpkgPackage>& out) {
  if (st.package.empty() || st.package.substr(0, prefix.size()) != prefix) return;
  if (st.status != "install ok installed") return;
  out.push_back(DpkgPackage{std::string(st.package), std::string(st.version),
                            DpkgUpstreamVersion(st.version)});
}

}  // namespace

std::string DpkgUpstreamVersion(std::string_view version) {
  if (const auto colon = version.find(':'); colon != std::string_view::npos) {
    version.remove_prefix(colon + 1);
  }
  if (const auto dash = version.rfind('-'); dash != std::string_view::npos) {
    version = version.substr(0, dash);
  }
  return std::string(version);
}

std::vector<DpkgPackage> FindInstalledDpkgPackages(std::string_view status_text,
                                                   std::string_view name_prefix) {
  std::vector<DpkgPackage> out;
  Stanza st;
  std::size_t pos = 0;
  while (pos <= status_text.size()) {
    auto end = status_text.find('\n', pos);
    if (end == std::string_view::npos) end = status_text.size();
    const std::string_view line = status_text.substr(pos, end - pos);
    pos = end + 1;
    if (Trim(line).empty()) {
      Finish(st, name_prefix, out);
      st = Stanza{};
      if (end == status_text.size()) break;
      continue;
    }
    if (line.front() == ' ' || line.front() == '\t') continue;  // continuation
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (key == "Package") st.package = value;
    if (key == "Status") st.status = value;
    if (key == "Version") st.version = value;
  }
  Finish(st, name_prefix, out);
  return out;
}

}  // namespace gpudoctor
