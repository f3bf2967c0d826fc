#include "collect/edac.h"

#include <algorithm>
#include <cctype>

#include "collect/kernel_limits.h"
#include "parse/proc_text.h"

namespace gpudoctor {

namespace {
namespace edac_collect {

constexpr std::string_view kEdac = "/sys/devices/system/edac/mc";

bool NameWithNumber(std::string_view name, std::string_view prefix) {
  return name.size() > prefix.size() && name.substr(0, prefix.size()) == prefix &&
         std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

std::optional<std::uint64_t> Number(const CollectContext& ctx, const std::string& path) {
  auto text = ReadRootFile(ctx, path, 64);
  if (!text.ok()) return std::nullopt;
  return ParseSingleNumber(*text);
}

// A label as printable text, at most 96 characters.
std::string Label(const CollectContext& ctx, const std::string& path) {
  auto text = ReadRootFile(ctx, path, 256);
  if (!text.ok()) return "";
  std::string out;
  for (char c : Trim(*text)) {
    if (out.size() >= 96) break;
    out += std::isprint(static_cast<unsigned char>(c)) != 0 ? c : '?';
  }
  return out;
}

void ReadDimms(const CollectContext& ctx, const std::string& mc, const std::string& dir,
               const std::vector<std::string>& entries, EdacFacts& f) {
  for (const std::string& e : entries) {
    if (!NameWithNumber(e, "dimm") && !NameWithNumber(e, "rank")) continue;
    std::string d = dir;
    d.append("/").append(e).append("/");
    auto ce = Number(ctx, d + "dimm_ce_count");
    if (!ce) continue;
    EdacDimm dimm{mc, e, Label(ctx, d + "dimm_label"), *ce, Number(ctx, d + "dimm_ue_count")};
    f.dimms.push_back(std::move(dimm));
  }
}

// Drivers without dimm*/: csrowK/chJ_ce_count and chJ_dimm_label, and the
// row's ue_count.
void ReadCsrows(const CollectContext& ctx, const std::string& mc, const std::string& dir,
                const std::vector<std::string>& entries, EdacFacts& f) {
  for (const std::string& e : entries) {
    if (!NameWithNumber(e, "csrow")) continue;
    std::string row = dir;
    row.append("/").append(e);
    auto files = ListRootDir(ctx, row);
    if (!files.ok()) continue;
    std::optional<std::uint64_t> row_ue = Number(ctx, row + "/ue_count");
    bool first = true;
    for (const std::string& file : *files) {
      if (file.size() < 12 || file.substr(0, 2) != "ch" ||
          file.substr(file.size() - 9) != "_ce_count") {
        continue;
      }
      const std::string ch = file.substr(0, file.size() - 9);
      std::string path = row;
      path.append("/").append(file);
      auto ce = Number(ctx, path);
      if (!ce) continue;
      std::string label_path = row;
      label_path.append("/").append(ch).append("_dimm_label");
      std::string name = e;
      name.append("/").append(ch);
      EdacDimm dimm{mc, std::move(name), Label(ctx, label_path), *ce, std::nullopt};
      // The row's uncorrected count goes on its first channel.
      if (first && row_ue && *row_ue > 0) dimm.uncorrected = row_ue;
      first = false;
      f.dimms.push_back(std::move(dimm));
    }
  }
}

}  // namespace edac_collect
}  // namespace

EdacFacts ReadEdac(const CollectContext& ctx) {
  EdacFacts f;
  auto controllers = ListRootDir(ctx, edac_collect::kEdac);
  if (!controllers.ok()) {
    f.sources.push_back(StatusOf(std::string(edac_collect::kEdac), controllers));
    return f;
  }
  for (const std::string& mc : *controllers) {
    if (!edac_collect::NameWithNumber(mc, "mc")) continue;
    const std::string dir = std::string(edac_collect::kEdac) + "/" + mc;
    auto entries = ListRootDir(ctx, dir);
    if (!entries.ok()) continue;
    f.present = true;
    const std::size_t before = f.dimms.size();
    edac_collect::ReadDimms(ctx, mc, dir, *entries, f);
    if (f.dimms.size() == before) edac_collect::ReadCsrows(ctx, mc, dir, *entries, f);
    f.uncorrected_unnamed += edac_collect::Number(ctx, dir + "/ue_noinfo_count").value_or(0);
    if (auto s = edac_collect::Number(ctx, dir + "/seconds_since_reset")) {
      const auto seconds = static_cast<double>(*s);
      f.counting_for_s = f.counting_for_s ? std::min(*f.counting_for_s, seconds) : seconds;
    }
  }
  if (!f.present) {
    f.sources.push_back(SourceStatus{std::string(edac_collect::kEdac), false,
                                     "no EDAC memory controller registered"});
  }
  return f;
}

}  // namespace gpudoctor
