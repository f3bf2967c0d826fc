// The buffer path of the kernel-log scan (speed only): over a buffer of
// whole lines, the needle search (kernel_prefilter.h) finds the candidate
// lines and their parse without the scanner's state (FindKernelCandidates:
// ScanKernelLogAhead runs it on other threads), and the scanner is fed those
// alone, with a break where lines without a needle lie between. Once
// relative stamps (dmesg -H) are in use every line carries part of the
// time, and the rest is fed line by line.
#include <cstring>

#include "parse/kernel_events.h"
#include "parse/kernel_prefilter.h"
#include "parse/log_record.h"

namespace gpudoctor {

namespace {

// What ScanKernelLogBuffer does line by line, the scanner's state at hand:
// the whole buffer once relative stamps are in use (every line carries
// part of the time), else the lines with a needle.
std::size_t ScanLineByLine(std::string_view text, const std::string& file, std::size_t first_line,
                           KernelEventScanner& scanner) {
  SourceRef ref{file, 0};
  std::size_t line_no = first_line;
  // dmesg -H: the first line holds the date the relative stamps that follow
  // add to; it rarely holds a needle itself, so look at it here.
  if (first_line == 1 && !scanner.tracks_relative_time() && !text.empty() && text[0] == '[') {
    scanner.NoteTime(text.substr(0, text.find('\n')));
  }
  std::size_t pos = 0;
  while (pos < text.size()) {
    const bool every_line = scanner.tracks_relative_time();
    std::size_t hit = every_line ? pos : NextKernelNeedle(text, pos);
    if (hit == std::string_view::npos) {
      scanner.Break();
      line_no += CountNewlines(text, pos, text.size());
      if (text.back() != '\n') ++line_no;
      return line_no - first_line;
    }
    std::size_t start = hit;
    if (hit > pos) {
      const void* nl = memrchr(text.data() + pos, '\n', hit - pos);
      start = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : pos;
    }
    if (start > pos) {  // lines without a needle lie in between
      line_no += CountNewlines(text, pos, start);
      scanner.Break();
    }
    std::size_t end = text.find('\n', hit);
    if (end == std::string_view::npos) end = text.size();
    ref.line = line_no++;
    if (every_line) {  // every line: it may hold no needle
      scanner.AddText(text.substr(start, end - start), ref);
    } else {
      scanner.AddCandidate(text.substr(start, end - start), ref);
    }
    pos = end + 1;
  }
  return line_no - first_line;
}

// Whether feeding this line may switch the scanner to relative stamps
// (dmesg -H), after which every line must be fed: its stamp is relative
// or human, or it is a record whose text starts with a stamp.
bool MaySwitchToRelative(const KernelCandidate& c, std::string_view line) {
  if (c.parsed) return c.parse.relative_s || c.parse.prefix == LinePrefix::kDmesgHuman;
  auto record = UnwrapLogRecord(line);
  if (!record) return false;
  std::string_view t = record->text;
  std::size_t i = t.find_first_not_of(" \t");
  return i != std::string_view::npos && t[i] == '[';
}

}  // namespace

void FindKernelCandidates(std::string_view text, bool log_start, const LineTimeContext& ctx,
                          KernelLineParser& parser, KernelCandidates& out) {
  out.lines.clear();
  out.break_at_end = false;
  out.stop = std::string_view::npos;
  out.stop_line = 0;
  std::size_t line_no = 0;
  // dmesg -H's first line (ScanLineByLine's NoteTime): left to that scan.
  if (log_start && !text.empty() && text[0] == '[') {
    KernelLine first = ParseKernelLine(text.substr(0, text.find('\n')), ctx);
    if (first.relative_s || first.prefix == LinePrefix::kDmesgHuman) {
      out.stop = 0;
      out.line_count = 0;
      return;
    }
  }
  std::size_t pos = 0;
  // An Xid line's search goes on past its end: the next line's first needle.
  std::size_t next_hit = 0;
  bool have_next_hit = false;
  while (pos < text.size()) {
    std::size_t hit = have_next_hit ? next_hit : NextKernelNeedle(text, pos);
    have_next_hit = false;
    if (hit == std::string_view::npos) {
      out.break_at_end = true;
      line_no += CountNewlines(text, pos, text.size());
      if (text.back() != '\n') ++line_no;
      out.line_count = line_no;
      return;
    }
    std::size_t start = hit;
    if (hit > pos) {
      const void* nl = memrchr(text.data() + pos, '\n', hit - pos);
      start = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1 : pos;
    }
    const bool gap = start > pos;  // lines without a needle lie in between
    const std::size_t gap_lines = gap ? CountNewlines(text, pos, start) : 0;
    std::size_t end = text.find('\n', hit);
    if (end == std::string_view::npos) end = text.size();
    KernelCandidate& c = out.lines.emplace_back();
    c.start = start;
    c.size = end - start;
    c.line = line_no + gap_lines;
    c.break_before = gap;
    const std::string_view line = text.substr(start, end - start);
    std::size_t needle_at = std::string_view::npos, later = std::string_view::npos;
    if (text.size() - hit >= 9 && std::memcmp(text.data() + hit, "NVRM: Xid", 9) == 0) {
      // Whether the line holds a needle after its "Xid" is what the flood's
      // path asks; the search runs on into the next lines (no needle spans
      // a '\n', so the first one past `end` is the next line's first).
      later = NextKernelNeedle(text, hit + 7);
      if (later == std::string_view::npos || later > end) {
        next_hit = later;
        have_next_hit = true;
        later = std::string_view::npos;
      } else {
        later -= start;
      }
      needle_at = hit - start;
    }
    c.needle_at = needle_at;
    c.later_needle_at = later;
    c.parsed = !MayBeLogRecord(line);
    if (c.parsed) c.parse = parser.Parse(line, ctx);
    if (MaySwitchToRelative(c, line)) {
      out.lines.pop_back();
      out.stop = pos;
      out.stop_line = line_no;
      out.line_count = line_no;
      return;
    }
    line_no = c.line + 1;
    pos = end + 1;
  }
  out.line_count = line_no;
}

std::size_t ScanKernelLogBuffer(std::string_view text, const std::string& file,
                                std::size_t first_line, KernelEventScanner& scanner) {
  if (scanner.tracks_relative_time()) return ScanLineByLine(text, file, first_line, scanner);
  KernelLineParser parser;
  KernelCandidates candidates;
  FindKernelCandidates(text, first_line == 1, scanner.time_context(), parser, candidates);
  return FeedKernelCandidates(text, file, first_line, candidates, scanner);
}

std::size_t FeedKernelCandidates(std::string_view text, const std::string& file,
                                 std::size_t first_line, const KernelCandidates& candidates,
                                 KernelEventScanner& scanner) {
  scanner.AddCandidates(text, file, first_line, candidates);
  if (candidates.stop == std::string_view::npos) return candidates.line_count;
  return candidates.stop_line + ScanLineByLine(text.substr(candidates.stop), file,
                                               first_line + candidates.stop_line, scanner);
}

}  // namespace gpudoctor
