#include "support/zh_check.h"

#include <cctype>

namespace gpudoctor::testing {

std::vector<std::string> EnglishRuns(std::string_view zh) {
  std::vector<std::string> runs;
  std::vector<std::string> words;  // current run of lowercase words
  auto flush = [&] {
    if (words.size() >= 2) {
      std::string run;
      for (const auto& w : words) run += (run.empty() ? "" : " ") + w;
      runs.push_back(run);
    }
    words.clear();
  };
  bool in_backquote = false;
  std::size_t i = 0;
  while (i < zh.size()) {
    char c = zh[i];
    if (c == '`') {
      in_backquote = !in_backquote;
      flush();
      ++i;
      continue;
    }
    if (in_backquote) {
      ++i;
      continue;
    }
    if (std::islower(static_cast<unsigned char>(c))) {
      std::size_t j = i;
      while (j < zh.size() && std::isalpha(static_cast<unsigned char>(zh[j]))) ++j;
      bool word_ends_cleanly = j >= zh.size() || zh[j] == ' ' || zh[j] == ',' || zh[j] == '.';
      bool all_lower = true;
      for (std::size_t k = i; k < j; ++k) all_lower = all_lower && std::islower(static_cast<unsigned char>(zh[k]));
      if (all_lower && word_ends_cleanly && j - i >= 2) {
        words.emplace_back(zh.substr(i, j - i));
        // a single space keeps the run going; anything else ends it
        if (j < zh.size() && zh[j] == ' ') {
          i = j + 1;
          continue;
        }
        flush();
        i = j;
        continue;
      }
      flush();
      i = j;
      continue;
    }
    flush();
    ++i;
  }
  flush();
  return runs;
}

bool HasCjk(std::string_view text) {
  // U+2E80..U+9FFF and U+FF00..U+FFEF (full-width punctuation) start with
  // lead bytes E2 BA..E9 BF / EF BC..EF BF in UTF-8; checking 0xE3-0xE9 lead
  // bytes is enough for the common CJK blocks.
  for (unsigned char c : text) {
    if (c >= 0xE3 && c <= 0xE9) return true;
  }
  return false;
}

namespace {

void CheckText(const char* what, const Text& t, std::vector<std::string>& problems) {
  if (t.en.empty()) problems.push_back(std::string(what) + ": English text is empty");
  if (t.zh.empty()) {
    problems.push_back(std::string(what) + ": Chinese text is empty");
    return;
  }
  if (!HasCjk(t.zh)) problems.push_back(std::string(what) + ": no Chinese in \"" + t.zh + "\"");
  for (const auto& run : EnglishRuns(t.zh)) {
    problems.push_back(std::string(what) + ": English \"" + run + "\" left in \"" + t.zh + "\"");
  }
}

}  // namespace

std::vector<std::string> ChineseTextProblems(const Finding& f) {
  std::vector<std::string> problems;
  CheckText("title", f.title, problems);
  CheckText("explanation", f.explanation, problems);
  for (const auto& a : f.actions) CheckText("action", a.text, problems);
  for (const auto& e : f.evidence) {
    if (e.source) continue;  // a quoted log line stays as it was written
    if (e.text.zh.empty()) problems.push_back("evidence: Chinese text is empty");
    else if (e.text.zh == e.text.en && !EnglishRuns(e.text.en).empty()) {
      problems.push_back("evidence: Chinese left in English: \"" + e.text.zh + "\"");
    }
  }
  for (auto& p : problems) p = f.id + ": " + p;
  return problems;
}

std::vector<std::string> ChineseTextProblems(const NotChecked& n) {
  std::vector<std::string> problems;
  CheckText("not_checked reason", n.reason, problems);
  for (auto& p : problems) p = n.rule + ": " + p;
  return problems;
}

}  // namespace gpudoctor::testing
