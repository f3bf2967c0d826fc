#include "render/fit_table.h"

#include <algorithm>

#include "render/ansi.h"
#include "render/watch_view.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kGap = 2;

std::size_t TotalWidth(const std::vector<std::size_t>& widths, const std::vector<bool>& shown) {
  std::size_t total = 0, n = 0;
  for (std::size_t i = 0; i < widths.size(); ++i) {
    if (!shown[i]) continue;
    total += widths[i];
    ++n;
  }
  return n == 0 ? 0 : total + kGap * (n - 1);
}

std::string Fit(const std::string& cell, std::size_t width, bool right) {
  std::size_t visible = VisibleWidth(cell);
  if (visible > width) return ClipToWidth(cell, width == 0 ? 0 : width - 1) + "~";
  std::string pad(width - visible, ' ');
  return right ? pad + cell : cell + pad;
}

}  // namespace

FitResult FitTable(const std::vector<FitColumn>& columns, const std::vector<std::vector<std::string>>& rows,
                   std::optional<std::size_t> width, bool bold_header) {
  const std::size_t n = columns.size();
  std::vector<std::size_t> widths(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    widths[i] = VisibleWidth(columns[i].header);
    for (const auto& row : rows) {
      if (i < row.size()) widths[i] = std::max(widths[i], VisibleWidth(row[i]));
    }
  }
  std::vector<bool> shown(n, true);
  FitResult result;
  if (width) {
    // In priority order, lowest first (the rightmost of equal priority
    // first): a shrinkable column gives up what it can, any other is dropped,
    // until the lines fit.
    std::vector<bool> done(n, false);
    while (TotalWidth(widths, shown) > *width) {
      std::optional<std::size_t> next;
      for (std::size_t i = 0; i < n; ++i) {
        if (!shown[i] || done[i] || columns[i].priority == 0) continue;
        if (!next || columns[i].priority <= columns[*next].priority) next = i;
      }
      if (!next) break;  // only the columns that are never dropped are left
      const std::size_t i = *next;
      done[i] = true;
      const std::size_t floor = std::max(columns[i].min_width, VisibleWidth(columns[i].header));
      if (columns[i].min_width > 0 && widths[i] > floor) {
        const std::size_t excess = TotalWidth(widths, shown) - *width;
        widths[i] = widths[i] - std::min(excess, widths[i] - floor);
        continue;
      }
      if (columns[i].min_width > 0) continue;  // already as narrow as it goes
      shown[i] = false;
      result.dropped.push_back(columns[i].header);
    }
  }
  auto line = [&](auto cell_of) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
      if (!shown[i]) continue;
      if (!out.empty()) out += std::string(kGap, ' ');
      out += Fit(cell_of(i), widths[i], columns[i].align_right);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string header = line([&](std::size_t i) { return columns[i].header; });
  result.text = bold_header ? Bold(header.substr(0, header.size() - 1), true) + "\n" : header;
  for (const auto& row : rows) {
    result.text += line([&](std::size_t i) { return i < row.size() ? row[i] : std::string(); });
  }
  return result;
}

}  // namespace gpudoctor
