#include "knowledge/hbm_peaks.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace gpudoctor {
namespace {

struct HbmRow {
  std::vector<std::string_view> all_of;  // every one must appear (case-insensitive)
  HbmPeak peak;
};

// Most specific first: "H100 NVL" and "H100 PCIe" before the H100 SXM.
const std::vector<HbmRow>& HbmRows() {
  static const std::vector<HbmRow> rows = {
      {{"B200"}, {"B200", 8000, "NVIDIA DGX B200 / HGX B200 datasheet: 8 TB/s per GPU"}},
      {{"H200"}, {"H200", 4800, "NVIDIA H200 Tensor Core GPU datasheet: 4.8 TB/s"}},
      {{"H100", "NVL"}, {"H100 NVL", 3900, "NVIDIA H100 Tensor Core GPU datasheet: 3.9 TB/s (H100 NVL)"}},
      {{"H100", "PCIe"}, {"H100 PCIe", 2000, "NVIDIA H100 Tensor Core GPU datasheet: 2 TB/s (H100 PCIe)"}},
      {{"H100"}, {"H100 SXM", 3350, "NVIDIA H100 Tensor Core GPU datasheet: 3.35 TB/s (H100 SXM)"}},
      {{"A100", "80GB", "PCIe"}, {"A100 80GB PCIe", 1935, "NVIDIA A100 Tensor Core GPU datasheet: 1,935 GB/s"}},
      {{"A100", "80GB"}, {"A100 80GB SXM", 2039, "NVIDIA A100 Tensor Core GPU datasheet: 2,039 GB/s"}},
      {{"A100"}, {"A100 40GB", 1555, "NVIDIA A100 Tensor Core GPU datasheet: 1,555 GB/s (40GB)"}},
      {{"V100"}, {"V100", 900, "NVIDIA Tesla V100 datasheet: 900 GB/s"}},
      {{"L40S"}, {"L40S", 864, "NVIDIA L40S datasheet: 864 GB/s (GDDR6)"}},
      {{"L40"}, {"L40", 864, "NVIDIA L40 datasheet: 864 GB/s (GDDR6)"}},
      {{"A10"}, {"A10", 600, "NVIDIA A10 datasheet: 600 GB/s (GDDR6)"}},
      {{"L4"}, {"L4", 300, "NVIDIA L4 datasheet: 300 GB/s (GDDR6)"}},
  };
  return rows;
}

// True when `word` appears in `text` as a whole token (not "L4" in "L40S").
bool HasToken(std::string_view text, std::string_view word) {
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (std::size_t at = 0; at + word.size() <= text.size(); ++at) {
    bool same = std::equal(word.begin(), word.end(), text.begin() + static_cast<std::ptrdiff_t>(at),
                           [&](char a, char b) { return lower(a) == lower(b); });
    if (!same) continue;
    bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    std::size_t end = at + word.size();
    bool ends = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

std::optional<HbmPeak> FindHbmPeak(std::string_view nvml_name) {
  // "A100-SXM4-80GB", "H100 80GB HBM3": dashes and spaces both separate tokens.
  for (const HbmRow& row : HbmRows()) {
    bool all = std::all_of(row.all_of.begin(), row.all_of.end(),
                           [&](std::string_view w) { return HasToken(nvml_name, w); });
    if (all) return row.peak;
  }
  return std::nullopt;
}

}  // namespace gpudoctor
