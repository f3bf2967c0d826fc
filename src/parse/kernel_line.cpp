#include "parse/kernel_line.h"

#include <algorithm>

#include "parse/text_cursor.h"

namespace gpudoctor {
namespace {

using std::chrono::seconds;

constexpr std::string_view kFacilities[] = {"kern",     "user",   "mail",   "daemon", "auth",
                                            "syslog",   "lpr",    "news",   "uucp",   "cron",
                                            "authpriv", "ftp",    "local0", "local1", "local2",
                                            "local3",   "local4", "local5", "local6", "local7"};
constexpr std::string_view kLevels[] = {"emerg", "alert",  "crit", "err",
                                        "warn",  "notice", "info", "debug"};

bool Clock(TextCursor& c, int& h, int& m, int& s) {
  std::size_t start = c.pos();
  if (c.Int(h, 1, 2) && c.Lit(':') && c.Int(m, 2, 2) && c.Lit(':') && c.Int(s, 2, 2)) {
    return true;
  }
  c.set_pos(start);
  return false;
}

// "kern  :err   : " (dmesg --decode).
bool ParseDecode(TextCursor& c, KernelLine& out) {
  std::size_t start = c.pos();
  std::string_view rest = c.rest();
  for (auto fac : kFacilities) {
    if (rest.substr(0, fac.size()) != fac) continue;
    c.set_pos(start + fac.size());
    c.SkipSpaces();
    if (!c.Lit(':')) break;
    for (int lvl = 0; lvl < 8; ++lvl) {
      if (!c.Lit(kLevels[lvl])) continue;
      c.SkipSpaces();
      if (!c.Lit(':')) break;
      c.SkipSpaces();
      out.level = lvl;
      return true;
    }
    break;
  }
  c.set_pos(start);
  return false;
}

// "prio,seq,usec,flags;" (/dev/kmsg).
bool ParseKmsg(TextCursor& c, KernelLine& out) {
  std::size_t start = c.pos();
  std::uint64_t prio = 0, seq = 0, usec = 0;
  if (c.Uint64(prio) && c.Lit(',') && c.Uint64(seq) && c.Lit(',') && c.Uint64(usec) && c.Lit(',')) {
    while (!c.done() && c.peek() != ';' && c.peek() != ' ') c.set_pos(c.pos() + 1);
    if (c.Lit(';')) {
      out.level = static_cast<int>(prio & 7);
      out.monotonic_s = static_cast<double>(usec) / 1e6;
      out.prefix = LinePrefix::kKmsg;
      return true;
    }
  }
  c.set_pos(start);
  return false;
}

// Zone "Z", "+00:00", "+0200", "-05"; absent zone = naive local time.
seconds ParseZone(TextCursor& c, seconds local_offset) {
  if (c.Lit('Z')) return seconds{0};
  std::size_t start = c.pos();
  int sign = c.Lit('+') ? 1 : (c.Lit('-') ? -1 : 0);
  int hh = 0, mm = 0, hhmm = 0;
  if (sign != 0 && c.Int(hhmm, 4, 4)) {  // "+0200"
    return seconds{sign * (hhmm / 100 * 3600 + hhmm % 100 * 60)};
  }
  if (sign != 0 && c.Int(hh, 2, 2)) {  // "+02:00", "+02"
    if (!(c.Lit(':') && c.Int(mm, 2, 2))) mm = 0;
    return seconds{sign * (hh * 3600 + mm * 60)};
  }
  c.set_pos(start);
  return local_offset;
}

// An ISO 8601 / RFC 3339 stamp at the cursor: "2024-08-01T12:34:56,123456+00:00",
// "2025-02-15 17:37:45.123 UTC" (journalctl short-full after its weekday).
// `loose`: any non-alphanumeric byte may follow (a stamp inside a wrapper);
// otherwise white space or the end must.
bool ParseIsoStamp(TextCursor& c, const LineTimeContext& ctx, bool loose,
                   std::optional<WallTime>& time) {
  std::size_t start = c.pos();
  int y, mo, d, h, mi, s;
  double frac = 0;
  if (c.Int(y, 4, 4) && c.Lit('-') && c.Int(mo, 2, 2) && c.Lit('-') && c.Int(d, 2, 2) &&
      (c.Lit('T') || c.Lit(' ')) && Clock(c, h, mi, s)) {
    if (c.Lit('.') || c.Lit(',')) c.Fraction(frac);
    seconds zone = ParseZone(c, ctx.utc_offset);
    std::size_t before_name = c.pos();
    if (c.Lit(" UTC") || c.Lit(" GMT")) {
      zone = seconds{0};
    } else if (c.Lit(' ') && c.peek() >= 'A' && c.peek() <= 'Z') {  // " CET": local time
      std::string_view name;
      c.Token(name);
      bool upper = name.size() >= 3 && name.size() <= 5;
      for (char ch : name) upper = upper && ch >= 'A' && ch <= 'Z';
      if (!upper) c.set_pos(before_name);
    } else {
      c.set_pos(before_name);
    }
    char next = c.peek();
    bool alnum = TextCursor::IsDigit(next) || (next >= 'a' && next <= 'z') ||
                 (next >= 'A' && next <= 'Z');
    if (loose ? !alnum : (c.SkipSpaces() > 0 || c.done())) {
      time = MakeWallTime(y, mo, d, h, mi, s, frac, zone);
      return true;
    }
  }
  c.set_pos(start);
  return false;
}

// "2024-08-01T12:34:56,123456+00:00 ", "Sat 2025-02-15 17:37:45 UTC " (short-full).
bool ParseIso(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  std::string_view weekday;
  if (!TextCursor::IsDigit(c.peek()) && !(c.Token(weekday) && c.Lit(' '))) {
    return c.set_pos(start), false;
  }
  if (ParseIsoStamp(c, ctx, false, out.time)) {
    out.prefix = LinePrefix::kIso;
    // Kubernetes CRI container logs: "<stamp> stdout F <line>".
    if (c.Lit("stdout ") || c.Lit("stderr ")) {
      if (!((c.Lit('F') || c.Lit('P')) && c.Lit(' '))) c.set_pos(c.pos() - 7);
    }
    return true;
  }
  c.set_pos(start);
  return false;
}

// "1739641065.123456 " (journalctl -o short-unix).
bool ParseUnixStamp(TextCursor& c, KernelLine& out) {
  std::size_t start = c.pos();
  std::uint64_t whole = 0;
  double frac = 0;
  if (c.Uint64(whole) && c.pos() - start >= 9 && c.pos() - start <= 10 && c.Lit('.') &&
      c.Fraction(frac) && c.SkipSpaces() > 0) {
    out.time = WallTime{} + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                std::chrono::duration<double>(static_cast<double>(whole) + frac));
    out.prefix = LinePrefix::kUnix;
    return true;
  }
  c.set_pos(start);
  return false;
}

// "<3>" (dmesg -r, RFC 3164/5424 priority): the level, and the rest parsed on.
bool ParsePriority(TextCursor& c, KernelLine& out) {
  std::size_t start = c.pos();
  int pri = 0;
  if (c.Lit('<') && c.Int(pri, 1, 3) && c.Lit('>') && pri < 192) {
    out.level = pri & 7;
    return true;
  }
  c.set_pos(start);
  return false;
}

// After "<34>": "1 2025-02-15T17:37:45.123Z host app procid msgid [sd] msg" (RFC 5424).
bool ParseRfc5424(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  if (!c.Lit("1 ")) return false;
  if (!(c.Lit("- ") || ParseIsoStamp(c, ctx, false, out.time))) return c.set_pos(start), false;
  std::string_view host, app, procid, msgid;
  if (!(c.Token(host) && c.Lit(' ') && c.Token(app) && c.Lit(' ') && c.Token(procid) &&
        c.Lit(' ') && c.Token(msgid) && c.Lit(' '))) {
    return c.set_pos(start), false;
  }
  if (host != "-") out.host = host;
  if (app != "-") out.ident = app;
  if (!c.Lit("- ")) {  // structured data: "[id k="v"]..." up to the message
    while (c.Lit('[')) {
      bool quoted = false;
      while (!c.done() && (quoted || c.peek() != ']')) {
        if (c.peek() == '\\') c.set_pos(c.pos() + 1);
        else if (c.peek() == '"') quoted = !quoted;
        c.set_pos(c.pos() + 1);
      }
      c.Lit(']');
    }
    c.SkipSpaces();
  }
  c.Lit("\xEF\xBB\xBF");  // BOM before a UTF-8 message
  out.prefix = LinePrefix::kRfc5424;
  return true;
}

// "Feb 15 17:37:45 ", "11月 15 14:15:47.123456 " (syslog, journalctl).
bool ParseSyslogStamp(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos(), used = 0;
  auto month = ParseMonthName(c.rest(), &used);
  if (!month) return false;
  c.set_pos(start + used);
  int d, h, mi, s;
  double frac = 0;
  if (c.SkipSpaces() > 0 && c.Int(d, 1, 2) && c.SkipSpaces() > 0 && Clock(c, h, mi, s)) {
    if (c.Lit('.')) c.Fraction(frac);
    if (c.SkipSpaces() > 0) {
      out.time = MakeWallTime(ctx.year, *month, d, h, mi, s, frac, ctx.utc_offset);
      out.prefix = LinePrefix::kSyslog;
      return true;
    }
  }
  c.set_pos(start);
  return false;
}

// Inside '[': "Sun Feb 23 16:24:18 2025", "Feb23 16:24", "Feb 25 2025 13:59:45".
bool ParseBracketCalendar(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos(), used = 0;
  auto month = ParseMonthName(c.rest(), &used);
  bool weekday = false;
  if (!month) {  // a (localised) weekday first
    std::string_view skip;
    if (!c.Token(skip) || c.SkipSpaces() == 0) return c.set_pos(start), false;
    month = ParseMonthName(c.rest(), &used);
    if (!month) return c.set_pos(start), false;
    weekday = true;
  }
  std::size_t after_month = c.pos() + used;
  c.set_pos(after_month);
  int d, h, mi, s = 0, y = ctx.year;
  if (!weekday && c.Int(d, 1, 2) && c.Lit(' ') && c.Int(h, 1, 2) && c.Lit(':') && c.Int(mi, 2, 2) &&
      c.Lit(']')) {
    out.time = MakeWallTime(ctx.year, *month, d, h, mi, 0, 0, ctx.utc_offset);
    out.prefix = LinePrefix::kDmesgHuman;
    return true;
  }
  c.set_pos(after_month);
  if (c.SkipSpaces() == 0 || !c.Int(d, 1, 2) || c.SkipSpaces() == 0) {
    return c.set_pos(start), false;
  }
  if (weekday && Clock(c, h, mi, s) && c.Lit(' ') && c.Int(y, 4, 4) && c.Lit(']')) {
    out.prefix = LinePrefix::kDmesgWall;
  } else if (!weekday && c.Int(y, 4, 4) && c.Lit(' ') && Clock(c, h, mi, s) && c.Lit(']')) {
    out.prefix = LinePrefix::kFabricManager;
  } else {
    return c.set_pos(start), false;
  }
  out.time = MakeWallTime(y, *month, d, h, mi, s, 0, ctx.utc_offset);
  return true;
}

// Inside '[': "E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616".
bool ParseGlog(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  char sev = c.peek();
  int mmdd, h, mi, s;
  double frac = 0;
  if ((sev == 'I' || sev == 'W' || sev == 'E' || sev == 'F') && (c.Lit(sev), true) &&
      c.Int(mmdd, 3, 4) && c.Lit(' ') && Clock(c, h, mi, s)) {  // "E626", "E0626"
    if (c.Lit('.')) c.Fraction(frac);
    auto close = c.rest().find(']');
    if (close != std::string_view::npos) {
      c.set_pos(c.pos() + close + 1);
      out.time = MakeWallTime(ctx.year, mmdd / 100, mmdd % 100, h, mi, s, frac, ctx.utc_offset);
      out.level = sev == 'I' ? 6 : sev == 'W' ? 4 : sev == 'E' ? 3 : 2;
      out.prefix = LinePrefix::kGlog;
      return true;
    }
  }
  c.set_pos(start);
  return false;
}

// "I0215 17:37:45.123456    2345 log_monitor.go:160] " (klog/glog without
// brackets: node-problem-detector's own log, kubelet).
bool ParseBareGlog(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  if (!ParseGlog(c, ctx, out)) return false;
  // ParseGlog took everything up to the first ']': it must have been "pid file:line]".
  std::string_view header = std::string_view(c.rest().data() - (c.pos() - start), c.pos() - start);
  if (header.find(".go:") == std::string_view::npos && header.find(".cc:") == std::string_view::npos &&
      header.find(".cpp:") == std::string_view::npos) {
    out.time.reset();
    out.level = -1;
    out.prefix = LinePrefix::kNone;
    return c.set_pos(start), false;
  }
  c.SkipSpaces();
  return true;
}

// Any "[...]" stamp at the cursor.
bool ParseBracket(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  if (c.Lit("[rank")) {  // "[rank1]:" before a glog header
    auto close = c.rest().find("]:");
    if (close == std::string_view::npos || close > 8) return c.set_pos(start), false;
    c.set_pos(c.pos() + close + 2);
    if (!c.Lit('[')) return c.set_pos(start), false;
    if (ParseGlog(c, ctx, out)) return c.Lit(' '), true;
    return c.set_pos(start), false;
  }
  if (!c.Lit('[')) return false;
  c.SkipSpaces();
  std::size_t inner = c.pos();
  std::uint64_t whole = 0;
  double frac = 0;
  bool relative = c.Lit('+');
  if (!relative && c.Lit('<')) {  // dmesg --time-format delta: "[<    0.000123>]"
    c.SkipSpaces();
    if (c.Uint64(whole) && c.Lit('.') && c.Fraction(frac) && c.Lit(">]")) {
      out.prefix = LinePrefix::kDmesgDelta;
      c.Lit(' ');
      return true;
    }
    return c.set_pos(start), false;
  }
  const bool stamp = c.Uint64(whole) && c.Lit('.') && c.Fraction(frac);
  if (stamp && !relative && c.Lit(" <")) {
    // dmesg -d / journalctl short-delta: "[ 3605.123456 <    0.000123>]"
    out.monotonic_s = static_cast<double>(whole) + frac;
    out.prefix = LinePrefix::kDmesgMonotonic;
    auto close = c.rest().find(">]");
    if (close == std::string_view::npos) return c.set_pos(start), false;
    c.set_pos(c.pos() + close + 2);
    c.Lit(' ');
    return true;
  }
  // "[80000.001000]" (the stamp read once; "+" is already consumed for a relative one).
  if (stamp && c.Lit(']')) {
    double v = static_cast<double>(whole) + frac;
    (relative ? out.relative_s : out.monotonic_s) = v;
    out.prefix = relative ? LinePrefix::kDmesgRelative : LinePrefix::kDmesgMonotonic;
  } else if (c.set_pos(inner),
             relative || !(ParseGlog(c, ctx, out) || ParseBracketCalendar(c, ctx, out))) {
    return c.set_pos(start), false;
  }
  c.Lit(' ');
  return true;
}

bool IdentLike(std::string_view t) {
  if (t.size() < 2 || t.back() != ':') return false;
  t.remove_suffix(1);
  if (auto open = t.find('['); open != std::string_view::npos) {
    if (t.back() != ']') return false;
    for (char ch : t.substr(open + 1, t.size() - open - 2)) {
      if (!TextCursor::IsDigit(ch)) return false;
    }
    t = t.substr(0, open);
  }
  if (t.empty()) return false;
  for (char ch : t) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || TextCursor::IsDigit(ch) ||
              ch == '_' || ch == '-' || ch == '.' || ch == '@' || ch == '/';
    if (!ok) return false;
  }
  return true;
}

// "host ident: msg", "ident: msg" (when `ident_only_ok`) or "host kernel: msg"
// (when `kernel_only`). Sets host/ident and moves the cursor to the message.
void SplitHostIdent(TextCursor& c, bool ident_only_ok, bool kernel_only, KernelLine& out) {
  std::size_t start = c.pos();
  std::string_view t1, t2;
  if (!c.Token(t1)) return;
  if (t1.back() == ':') {
    bool is_kernel = t1 == "kernel:";
    if ((ident_only_ok && IdentLike(t1)) || is_kernel) {
      out.ident = t1.substr(0, t1.size() - 1);
      c.SkipSpaces();
      return;
    }
    c.set_pos(start);
    return;
  }
  c.SkipSpaces();
  if (c.Token(t2) && (kernel_only ? t2 == "kernel:" : IdentLike(t2))) {
    out.host = t1;
    out.ident = t2.substr(0, t2.size() - 1);
    c.SkipSpaces();
    return;
  }
  c.set_pos(start);
}

// A stamp anywhere in `region` (the text before the message of a line whose
// wrapper is unknown): ISO 8601, syslog "Feb 15 17:37:45", "[  123.456]".
void FindEmbeddedStamp(std::string_view region, const LineTimeContext& ctx, KernelLine& out) {
  for (std::size_t i = 0; i < region.size(); ++i) {
    char prev = i > 0 ? region[i - 1] : ' ';
    if (TextCursor::IsDigit(prev) || (prev >= 'a' && prev <= 'z') || (prev >= 'A' && prev <= 'Z'))
      continue;
    TextCursor c(region, i);
    KernelLine found;
    if (TextCursor::IsDigit(region[i]) && ParseIsoStamp(c, ctx, true, found.time)) {
    } else if (region[i] == '[' && ParseBracket(c, ctx, found)) {
    } else if (!TextCursor::IsDigit(region[i]) && ParseSyslogStamp(c, ctx, found)) {
    } else {
      continue;
    }
    if (!found.time && !found.monotonic_s) continue;
    out.time = found.time;
    out.monotonic_s = found.monotonic_s;
    out.prefix = LinePrefix::kEmbedded;
    return;
  }
}

// A line whose prefix is none of the known shapes: the message starts at
// "NVRM:" or after "kernel: " wherever they stand, and a stamp before it
// still gives the time.
void LocateMessage(std::string_view line, const LineTimeContext& ctx, KernelLine& out) {
  constexpr auto npos = std::string_view::npos;
  std::size_t kernel = line.find("kernel: ");
  std::size_t at = kernel == npos ? npos : kernel + 8;
  // A driver's own message start ("nvidia 0000:01:00.0: AER: ...") before
  // that, or without it: the matchers read those from the message start.
  for (std::string_view lead : {"NVRM:", "nvidia ", "nvidia-nvswitch", "pcieport "}) {
    std::size_t p = line.find(lead);
    while (p != npos && p > 0 && line[p - 1] != ' ' && line[p - 1] != '|' && line[p - 1] != '"') {
      p = line.find(lead, p + 1);
    }
    if (p != npos && (at == npos || p < at)) at = p;
  }
  if (kernel != npos && kernel + 8 <= at) out.ident = "kernel";
  constexpr std::size_t kStampRegionBytes = 160;
  FindEmbeddedStamp(line.substr(0, std::min(at, kStampRegionBytes)), ctx, out);
  if (at != std::string_view::npos) out.text = out.message = line.substr(at);
}

// The kernel's own stamp after a syslog header ("kernel: [82659.755847] msg"),
// then the message.
void ParseAfterHeader(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t before = c.pos();
  // The kernel's own stamp "[80000.001000] ", as ParseBracket reads it,
  // without trying its other forms first (a flood's every line has one).
  if (c.Lit('[')) {
    c.SkipSpaces();
    std::uint64_t whole = 0;
    double frac = 0;
    if (c.Uint64(whole) && c.Lit('.') && c.Fraction(frac) && c.Lit(']')) {
      out.monotonic_s = static_cast<double>(whole) + frac;
      c.Lit(' ');
      return;
    }
    c.set_pos(before);
  }
  KernelLine inner;
  if (c.peek() == '[' && ParseBracket(c, ctx, inner) && inner.monotonic_s) {
    out.monotonic_s = inner.monotonic_s;
  } else {
    c.set_pos(before);
  }
}

// ParseKernelLine; `header_end` receives the length of a syslog-style header
// whose parse depends on its bytes alone (stamp, host, ident, up to the
// message or the kernel's own stamp), 0 when the line has none.
KernelLine ParseLine(std::string_view line, const LineTimeContext& ctx, std::size_t& header_end) {
  header_end = 0;
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  KernelLine out;
  TextCursor c(line);
  // Indented lines: a pasted log (or a locale whose month is " 2月") keeps
  // its prefix after the indent; anything else continues the line before.
  const bool indented = c.SkipSpaces() > 0;
  ParseDecode(c, out);
  bool syslog_header = false;
  if (ParsePriority(c, out)) {
    if (ParseRfc5424(c, ctx, out)) {
      out.text = out.message = c.rest();
      return out;
    }
    ParseDecode(c, out);
  }
  if (ParseKmsg(c, out)) {
  } else if (ParseIso(c, ctx, out)) {
    syslog_header = true;
  } else if (ParseUnixStamp(c, out)) {
    syslog_header = true;
  } else if (ParseBracket(c, ctx, out)) {
  } else if (ParseSyslogStamp(c, ctx, out)) {
    syslog_header = true;
  } else if (ParseBareGlog(c, ctx, out)) {
  } else if (c.Lit("kernel: ")) {
    out.ident = "kernel";
  } else if (indented && out.level < 0) {
    out.text = out.message = c.rest();
    out.prefix = LinePrefix::kContinuation;
    return out;
  }
  out.text = c.rest();
  if (syslog_header) {
    SplitHostIdent(c, out.prefix == LinePrefix::kSyslog || out.prefix == LinePrefix::kUnix, false,
                   out);
    // The ident's token ended at a space and the spaces after it are
    // skipped: what follows cannot change how the header reads.
    if (!out.ident.empty() && !c.done()) header_end = c.pos();
    ParseAfterHeader(c, ctx, out);
  } else if (out.prefix == LinePrefix::kDmesgMonotonic) {
    SplitHostIdent(c, false, true, out);  // journalctl -o short-monotonic
  }
  out.message = c.rest();
  if (out.prefix == LinePrefix::kNone && out.ident.empty() && out.message.substr(0, 5) != "NVRM:") {
    LocateMessage(out.message, ctx, out);
  }
  return out;
}

}  // namespace

KernelLine ParseKernelLine(std::string_view line, const LineTimeContext& ctx) {
  std::size_t header_end = 0;
  return ParseLine(line, ctx, header_end);
}

KernelLine KernelLineParser::Parse(std::string_view line, const LineTimeContext& ctx) {
  if (!header_.empty() && line.size() > header_.size() && ctx.year == ctx_.year &&
      ctx.utc_offset == ctx_.utc_offset && line[header_.size()] != ' ' &&
      line[header_.size()] != '\t' && line.compare(0, header_.size(), header_) == 0) {
    while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
    if (line.size() > header_.size()) {
      KernelLine out;
      out.time = memo_.time;
      out.level = memo_.level;
      out.prefix = memo_.prefix;
      out.text = line.substr(text_at_);
      out.host = line.substr(host_at_, memo_.host.size());
      out.ident = line.substr(ident_at_, memo_.ident.size());
      TextCursor c(line, header_.size());
      ParseAfterHeader(c, ctx, out);
      out.message = c.rest();
      return out;
    }
  }
  std::size_t header_end = 0;
  KernelLine out = ParseLine(line, ctx, header_end);
  header_.assign(line.substr(0, header_end));
  if (header_end > 0) {
    ctx_ = ctx;
    memo_ = out;  // its views are not used, only its values and their sizes
    text_at_ = static_cast<std::size_t>(out.text.data() - line.data());
    host_at_ = out.host.empty() ? 0 : static_cast<std::size_t>(out.host.data() - line.data());
    ident_at_ = static_cast<std::size_t>(out.ident.data() - line.data());
  }
  return out;
}

}  // namespace gpudoctor
