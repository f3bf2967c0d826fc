#include "parse/kernel_line.h"

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

// "2024-08-01T12:34:56,123456+00:00 ".
bool ParseIso(TextCursor& c, const LineTimeContext& ctx, KernelLine& out) {
  std::size_t start = c.pos();
  int y, mo, d, h, mi, s;
  double frac = 0;
  if (c.Int(y, 4, 4) && c.Lit('-') && c.Int(mo, 2, 2) && c.Lit('-') && c.Int(d, 2, 2) &&
      (c.Lit('T') || c.Lit(' ')) && Clock(c, h, mi, s)) {
    if (c.Lit('.') || c.Lit(',')) c.Fraction(frac);
    seconds zone = ParseZone(c, ctx.utc_offset);
    if (c.SkipSpaces() > 0 || c.done()) {
      out.time = MakeWallTime(y, mo, d, h, mi, s, frac, zone);
      out.prefix = LinePrefix::kIso;
      return true;
    }
  }
  c.set_pos(start);
  return false;
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
  if (c.Uint64(whole) && c.Lit('.') && c.Fraction(frac) && c.Lit(']')) {
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

}  // namespace

KernelLine ParseKernelLine(std::string_view line, const LineTimeContext& ctx) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  KernelLine out;
  if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    TextCursor c(line);
    c.SkipSpaces();
    out.text = out.message = c.rest();
    out.prefix = LinePrefix::kContinuation;
    return out;
  }
  TextCursor c(line);
  ParseDecode(c, out);
  bool syslog_header = false;
  if (ParseKmsg(c, out)) {
  } else if (ParseIso(c, ctx, out)) {
    syslog_header = true;
  } else if (ParseBracket(c, ctx, out)) {
  } else if (ParseSyslogStamp(c, ctx, out)) {
    syslog_header = true;
  } else if (c.Lit("kernel: ")) {
    out.ident = "kernel";
  }
  out.text = c.rest();
  if (syslog_header) {
    SplitHostIdent(c, out.prefix == LinePrefix::kSyslog, false, out);
    // "kernel: [82659.755847] msg": the kernel's own stamp after the header.
    KernelLine inner;
    std::size_t before = c.pos();
    if (c.peek() == '[' && ParseBracket(c, ctx, inner) && inner.monotonic_s) {
      out.monotonic_s = inner.monotonic_s;
    } else {
      c.set_pos(before);
    }
  } else if (out.prefix == LinePrefix::kDmesgMonotonic) {
    SplitHostIdent(c, false, true, out);  // journalctl -o short-monotonic
  }
  out.message = c.rest();
  return out;
}

}  // namespace gpudoctor
