// One-line charts from Unicode block elements (U+2581..U+2588), for the live
// view's short history.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// Draws the last `width` values (oldest on the left) as exactly `width`
// cells: each value is scaled from [min, max] into eight block heights and
// clamped there; a missing or non-finite value is a space, and when there are
// fewer values than width the line is padded with spaces on the left, so the
// newest value is always in the last cell. When max <= min every present
// value is drawn at the lowest height. Returns UTF-8 (3 bytes per block).
std::string Sparkline(const std::vector<std::optional<double>>& values,
                      double min, double max, std::size_t width);

}  // namespace gpudoctor
