// The stress measurements as text and Markdown tables (active_tables.h).
#include <fmt/format.h>

#include <algorithm>

#include "render/active_tables.h"
#include "render/report_active.h"

namespace gpudoctor {
namespace {

// Terminal columns of UTF-8 text: East Asian wide characters take two.
std::size_t ActiveTextColumns(const std::string& text) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    char32_t cp = len == 1 ? c : static_cast<char32_t>(c & (0x7F >> len));
    for (std::size_t k = 1; k < len && i + k < text.size(); ++k) {
      cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    }
    bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                (cp >= 0xFFE0 && cp <= 0xFFE6);
    columns += wide ? 2 : 1;
    i += len;
  }
  return columns;
}

std::string ActiveTextCell(const ActiveCell& c) {
  return c.below ? c.text + " " + kActiveBelowMark : c.text;
}

// Columns padded to the widest cell; the first column left-aligned, the
// others right-aligned (numbers).
std::string AlignedTable(const ActiveTable& t) {
  std::vector<std::vector<std::string>> lines{t.headings};
  for (const auto& row : t.rows) {
    std::vector<std::string> line;
    for (const ActiveCell& c : row) line.push_back(ActiveTextCell(c));
    lines.push_back(std::move(line));
  }
  std::vector<std::size_t> widths(t.headings.size(), 0);
  for (const auto& line : lines) {
    for (std::size_t i = 0; i < line.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], ActiveTextColumns(line[i]));
    }
  }
  std::string out;
  for (const auto& line : lines) {
    std::string text = "    ";
    for (std::size_t i = 0; i < line.size() && i < widths.size(); ++i) {
      std::string pad(widths[i] - ActiveTextColumns(line[i]), ' ');
      text += i == 0 ? line[i] + pad : "  " + pad + line[i];
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

std::string ActiveMarkdownCell(const ActiveCell& c) {
  std::string text;
  for (char ch : c.text) text += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return c.below ? fmt::format("**{} {}**", text, kActiveBelowMark) : text;
}

}  // namespace

std::string ActiveRunText(const DiagnosisInput& input, Lang lang) {
  std::string out = "\n" + ActiveRunHeading(input, lang) + "\n";
  for (const ActiveTable& t : ActiveRunTables(input, lang)) {
    out += "  " + t.title + "\n" + AlignedTable(t);
    if (!t.note.empty()) out += "    (" + t.note + ")\n";
  }
  return out;
}

std::string ActiveRunMarkdown(const DiagnosisInput& input, Lang lang) {
  std::string out = "## " + ActiveRunHeading(input, lang) + "\n\n";
  for (const ActiveTable& t : ActiveRunTables(input, lang)) {
    out += "### " + t.title + "\n\n|";
    std::string rule = "|";
    for (std::size_t i = 0; i < t.headings.size(); ++i) {
      out += " " + ActiveMarkdownCell({t.headings[i]}) + " |";
      rule += i == 0 ? "---|" : "---:|";
    }
    out += "\n" + rule + "\n";
    for (const auto& row : t.rows) {
      out += "|";
      for (const ActiveCell& c : row) out += " " + ActiveMarkdownCell(c) + " |";
      out += "\n";
    }
    out += "\n";
    if (!t.note.empty()) out += "_" + t.note + "_\n\n";
  }
  return out;
}

}  // namespace gpudoctor
