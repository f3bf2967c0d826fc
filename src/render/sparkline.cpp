#include "render/sparkline.h"

#include <cmath>

namespace gpudoctor {
namespace {

constexpr const char* kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                   "\u2585", "\u2586", "\u2587", "\u2588"};
constexpr int kLevels = 8;

int LevelOf(double value, double min, double max) {
  if (!(max > min)) return 0;
  double scaled = (value - min) / (max - min) * (kLevels - 1);
  long level = std::lround(scaled);
  if (level < 0) return 0;
  if (level > kLevels - 1) return kLevels - 1;
  return static_cast<int>(level);
}

}  // namespace

std::string Sparkline(const std::vector<std::optional<double>>& values,
                      double min, double max, std::size_t width) {
  std::string out;
  std::size_t shown = values.size() < width ? values.size() : width;
  out.append(width - shown, ' ');
  for (std::size_t i = values.size() - shown; i < values.size(); ++i) {
    const auto& v = values[i];
    if (!v || !std::isfinite(*v)) {
      out += ' ';
    } else {
      out += kBlocks[LevelOf(*v, min, max)];
    }
  }
  return out;
}

}  // namespace gpudoctor
