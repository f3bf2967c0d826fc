#include "analyze/paste.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>

#include "analyze/analyze_input.h"
#include "parse/nvsmi_messages.h"

namespace gpudoctor {
namespace {
namespace paste_lines {

std::string_view TrimView(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool IsFence(std::string_view t) {
  if (!(StartsWith(t, "```") || StartsWith(t, "~~~"))) return false;
  std::size_t n = t.find_first_not_of(t[0]);
  if (n == std::string_view::npos) return true;
  std::string_view lang = t.substr(n);  // "console", "bash", "text", ...
  return std::all_of(lang.begin(), lang.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '+';
  });
}

bool IsElision(std::string_view t) {
  if (t.empty()) return false;
  if (t == "--" || t == "[...]" || t == "[…]" || t == "(...)" || t == "<snip>" || t == "[snip]" ||
      t == "(snip)" || t == "...snip..." || t == "[truncated]" || t == "(truncated)") {
    return true;
  }
  if (t.find_first_not_of('.') == std::string_view::npos) return t.size() >= 3;
  std::string_view rest = t;
  while (StartsWith(rest, "…")) rest.remove_prefix(3);
  return rest.empty();
}

// The tools whose command lines people paste above their output.
bool IsToolCommand(std::string_view cmd) {
  cmd = TrimView(cmd);
  if (StartsWith(cmd, "sudo ")) cmd = TrimView(cmd.substr(5));
  std::string_view word = cmd.substr(0, cmd.find_first_of(" \t|;"));
  if (auto slash = word.rfind('/'); slash != std::string_view::npos) word = word.substr(slash + 1);
  static constexpr std::array<std::string_view, 22> kTools = {
      "nvidia-smi", "dmesg",     "journalctl", "ibstat",   "ibv_devinfo", "ibdev2netdev",
      "dcgmi",      "lspci",     "cat",        "grep",     "egrep",       "zgrep",
      "tail",       "head",      "less",       "zcat",     "kubectl",     "nvidia-bug-report.sh",
      "for",        "perfquery", "ibstatus",   "show_gids"};
  return std::find(kTools.begin(), kTools.end(), word) != kTools.end();
}

bool IsHostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}

// "user@host:~$ cmd", "(venv) root@host:~/dir# cmd", "[user@host ~]$ cmd",
// "bash-5.1# cmd", "$ cmd", "# cmd", "PS C:\> cmd": the command; nullopt
// when the line is no prompt.
std::optional<std::string_view> PromptCommand(std::string_view t) {
  std::string_view s = t;
  if (StartsWith(s, "(")) {  // a virtualenv's name
    auto close = s.find(") ");
    if (close < 40) s = TrimView(s.substr(close + 2));  // npos is not below 40
  }
  auto after_sign = [](std::string_view rest) -> std::optional<std::string_view> {
    if (rest.empty()) return std::string_view{};
    if (rest.front() != ' ') return std::nullopt;
    return TrimView(rest);
  };
  // user@host:path$ and [user@host path]$ (or #)
  if (auto at = s.find('@'); at != std::string_view::npos && at > 0 && at < 40) {
    const bool bracket = s[0] == '[';
    const std::size_t from = bracket ? 1 : 0;
    std::string_view user = s.substr(from, at - from);
    std::size_t j = at + 1;
    while (j < s.size() && IsHostChar(s[j])) ++j;
    if (!user.empty() && std::all_of(user.begin(), user.end(), IsHostChar) && j > at + 1) {
      std::size_t sign = std::string_view::npos;
      if (bracket) {
        auto rb = s.find(']', j);
        if (rb != std::string_view::npos && rb + 1 < s.size() && rb - j < 80) sign = rb + 1;
      } else if (j < s.size() && (s[j] == '$' || s[j] == '#')) {
        sign = j;
      } else if (j < s.size() && s[j] == ':') {
        auto end_path = s.find_first_of(" $#", j);
        if (end_path != std::string_view::npos && end_path - j < 80 && s[end_path] != ' ')
          sign = end_path;
      }
      if (sign != std::string_view::npos && (s[sign] == '$' || s[sign] == '#'))
        return after_sign(s.substr(sign + 1));
    }
  }
  // bash-5.1# / sh-4.2$
  for (std::string_view shell : {"bash-", "sh-", "zsh-"}) {
    if (!StartsWith(s, shell)) continue;
    std::size_t j = shell.size();
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
    if (j > shell.size() && j < s.size() && (s[j] == '#' || s[j] == '$'))
      return after_sign(s.substr(j + 1));
  }
  // "$ cmd", "# cmd", "> cmd": only with a tool's command, since "# " opens
  // a Markdown heading and "> " a quote.
  if (s.size() > 2 && (s[0] == '$' || s[0] == '#' || s[0] == '>') && s[1] == ' ') {
    std::string_view cmd = TrimView(s.substr(2));
    if (s[0] == '$' || IsToolCommand(cmd)) return cmd;
  }
  return std::nullopt;
}

// A tool's command line on its own ("nvidia-smi nvlink -s", "sudo dmesg
// -T | grep NVRM"): the first word is the tool, followed by options or
// nothing; not a log line about the tool ("nvidia-smi[123]: ...").
bool IsBareCommand(std::string_view t) {
  if (!IsToolCommand(t)) return false;
  std::string_view cmd = StartsWith(t, "sudo ") ? TrimView(t.substr(5)) : t;
  std::string_view word = cmd.substr(0, cmd.find_first_of(" \t"));
  if (word == "for" || word == "cat" || word == "grep" || word == "tail" || word == "head" ||
      word == "less" || word == "zcat" || word == "egrep" || word == "zgrep") {
    return cmd.size() > word.size();  // "cat /sys/...": a command, "cat" alone is a word
  }
  std::string_view rest = cmd.substr(word.size());
  return rest.empty() || rest.front() == ' ' || rest.front() == '\t';
}

bool HasDigitDotOrDash(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-';
  });
}

// "node03: ..." -> "node03": a host name with a digit, dot or dash, at the
// very start (a log's own "NVRM: " or "kernel: " has neither).
std::string_view HostPrefix(std::string_view line) {
  auto colon = line.find(": ");
  if (colon == std::string_view::npos || colon == 0 || colon > 64) return {};
  std::string_view host = line.substr(0, colon);
  if (!std::all_of(host.begin(), host.end(), IsHostChar) || !HasDigitDotOrDash(host)) return {};
  if (std::isdigit(static_cast<unsigned char>(host[0])) && host.find('.') == std::string_view::npos)
    return {};  // "12: ...", a number, not a host
  return host;
}

// "Fri Apr 18 12:26:18 2014": the date nvidia-smi prints above its table.
bool IsDateLine(std::string_view t) {
  static constexpr std::string_view kDays[] = {"Mon ", "Tue ", "Wed ", "Thu ",
                                               "Fri ", "Sat ", "Sun "};
  static constexpr std::string_view kMonths[] = {"Jan ", "Feb ", "Mar ", "Apr ", "May ", "Jun ",
                                                 "Jul ", "Aug ", "Sep ", "Oct ", "Nov ", "Dec "};
  if (t.size() < 8) return false;
  bool day = std::find(std::begin(kDays), std::end(kDays), t.substr(0, 4)) != std::end(kDays);
  bool month =
      std::find(std::begin(kMonths), std::end(kMonths), t.substr(4, 4)) != std::end(kMonths);
  return day && month;
}

// A sentence: at the left margin, five words or more, not a line any tool
// here prints (a log line, a GPU or link line, a "label : value" line, a
// table's border or row).
bool IsProse(std::string_view raw, std::string_view t) {
  if (raw.empty() || raw.front() == ' ' || raw.front() == '\t') return false;
  if (t.empty() || t.front() == '|' || t.front() == '+' || t.front() == '[' || t.front() == '<')
    return false;
  if (StartsWith(t, "GPU ") || StartsWith(t, "Link ") || t.find(" : ") != std::string_view::npos)
    return false;
  if (IsRecognisedLogLine(t) || !FindNvidiaSmiMessages(t).empty() || IsDateLine(t)) return false;
  std::size_t words = 1;
  for (std::size_t i = 1; i < t.size(); ++i) words += t[i] == ' ' && t[i - 1] != ' ';
  if (words < 5) {
    // "dmesg output error:", "Here is the log:": a short lead-in to what follows.
    return words >= 2 && t.back() == ':' && t.find(": ") == std::string_view::npos;
  }
  return true;
}

}  // namespace paste_lines
}  // namespace

Paste ReadPaste(std::string_view text) {
  using namespace paste_lines;  // NOLINT(google-build-using-namespace): this file's helpers
  Paste paste;
  std::vector<std::string_view> lines;
  for (std::size_t pos = 0; pos <= text.size();) {
    std::size_t end = std::min(text.find('\n', pos), text.size());
    if (pos == text.size()) break;
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  // The host prefix, when most lines that are not blank carry one.
  std::size_t nonblank = 0, prefixed = 0;
  for (std::string_view l : lines) {
    if (TrimView(l).empty()) continue;
    ++nonblank;
    if (!HostPrefix(l).empty()) ++prefixed;
  }
  const bool strip_hosts = prefixed >= 2 && prefixed * 5 >= nonblank * 4;

  PasteBlock current{};
  std::string command;
  auto close = [&]() {
    if (current.text.find_first_not_of(" \t\r\n") != std::string::npos) {
      current.command = command;
      paste.blocks.push_back(std::move(current));
    }
    current = PasteBlock{};
  };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string_view raw = lines[i];
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    if (strip_hosts) {
      if (std::string_view host = HostPrefix(raw); !host.empty()) {
        if (std::find(paste.hosts.begin(), paste.hosts.end(), host) == paste.hosts.end())
          paste.hosts.emplace_back(host);
        raw.remove_prefix(host.size() + 2);
      }
    }
    std::string_view t = TrimView(raw);
    if (IsFence(t)) {
      ++paste.fences;
      close();
      continue;
    }
    if (auto cmd = PromptCommand(t)) {
      ++paste.commands;
      close();
      command = std::string(*cmd);
      continue;
    }
    if (IsBareCommand(t)) {
      ++paste.commands;
      close();
      command = std::string(t);
      continue;
    }
    if (IsElision(t)) {
      ++paste.elisions;
      continue;
    }
    if (IsProse(raw, t)) {
      ++paste.prose_lines;
      close();
      command.clear();
      continue;
    }
    if (current.text.empty()) current.first_line = i + 1;
    if (!t.empty()) current.last_line = i + 1;
    current.text.append(raw);
    current.text += '\n';
  }
  close();
  return paste;
}

std::string PasteLeftOut(const Paste& paste) {
  std::string out;
  auto add = [&out](std::size_t n, std::string_view one, std::string_view many) {
    if (n == 0) return;
    if (!out.empty()) out += ", ";
    out += std::to_string(n) + " " + std::string(n == 1 ? one : many);
  };
  add(paste.fences, "Markdown fence", "Markdown fences");
  add(paste.commands, "prompt or command line", "prompts or command lines");
  add(paste.elisions, "elision line", "elision lines");
  add(paste.prose_lines, "line of prose", "lines of prose");
  if (!paste.hosts.empty()) {
    if (!out.empty()) out += ", ";
    out += "the host prefix of " + paste.hosts.front();
    if (paste.hosts.size() > 1) out += " and " + std::to_string(paste.hosts.size() - 1) + " more";
  }
  return out;
}

}  // namespace gpudoctor
