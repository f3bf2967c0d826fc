#include "render/wrap_text.h"

#include <vector>

#include "render/ansi.h"

namespace gpudoctor {
namespace {

// Columns before a continuation starts: under the text after a bullet
// ("- ", "* ", "12. "); under the paragraph's own indentation; two columns in
// for a line that starts at the margin.
std::size_t HangingIndent(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t indent = i;
  if (i + 1 < line.size() && (line[i] == '-' || line[i] == '*') && line[i + 1] == ' ') return i + 2;
  std::size_t digits = i;
  while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
  if (digits > i && digits + 1 < line.size() && line[digits] == '.' && line[digits + 1] == ' ') {
    return digits + 2;
  }
  return indent == 0 ? 2 : indent;
}

// A word and the spaces before it, as the line had them (aligned columns
// keep their spacing where the line does not break).
struct Word {
  std::string_view spaces;
  std::string_view text;
};

void WrapLine(std::string_view line, std::size_t width, std::string& out) {
  std::size_t lead = 0;
  while (lead < line.size() && line[lead] == ' ') ++lead;
  // A command to type ("$ nvidia-smi ...") stays one line, so that a copy of
  // it from the terminal is the command.
  if (VisibleWidth(line) <= width || line.substr(lead, 2) == "$ ") {
    out.append(line);
    return;
  }
  const std::size_t hanging = std::min(HangingIndent(line), width / 2);
  std::vector<Word> words;
  for (std::size_t at = lead; at < line.size();) {
    const std::size_t start = line.find_first_not_of(' ', at);
    if (start == std::string_view::npos) break;
    std::size_t end = line.find(' ', start);
    if (end == std::string_view::npos) end = line.size();
    words.push_back(Word{line.substr(at, start - at), line.substr(start, end - start)});
    at = end;
  }
  std::string current(line.substr(0, lead));
  std::size_t used = lead;
  bool first_on_line = true;
  for (const Word& word : words) {
    const std::size_t w = VisibleWidth(word.text);
    if (!first_on_line && used + word.spaces.size() + w > width) {
      out += current + "\n";
      current.assign(hanging, ' ');
      used = hanging;
      first_on_line = true;
    }
    if (!first_on_line) {
      current.append(word.spaces);
      used += word.spaces.size();
    }
    current.append(word.text);
    used += w;
    first_on_line = false;
  }
  out += current;
}

}  // namespace

std::string WrapToWidth(std::string_view text, std::size_t width) {
  if (width < 20) return std::string(text);  // too narrow to help
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    const bool has_nl = nl != std::string_view::npos;
    if (!has_nl) nl = text.size();
    WrapLine(text.substr(at, nl - at), width, out);
    if (has_nl) out += '\n';
    at = nl + 1;
  }
  return out;
}

}  // namespace gpudoctor
