// Buffer-level scanning (the fast path for large files) and small helpers
// over extracted events.
#include <cstring>

#include "parse/kernel_events.h"
#include "parse/kernel_prefilter.h"

namespace gpudoctor {

std::size_t ScanKernelLogBuffer(std::string_view text, const std::string& file,
                                std::size_t first_line, KernelEventScanner& scanner) {
  SourceRef ref{file, 0};
  std::size_t line_no = first_line;
  // dmesg -H: the first line holds the date the relative stamps that follow
  // add to; it rarely holds a needle itself, so look at it here.
  if (first_line == 1 && !scanner.tracks_relative_time() && !text.empty() && text[0] == '[') {
    scanner.NoteTime(text.substr(0, text.find('\n')));
  }
  std::size_t pos = 0;
  // An Xid line's search goes on past its end: the next line's first needle.
  std::size_t next_hit = 0;
  bool have_next_hit = false;
  while (pos < text.size()) {
    // In dmesg -H logs every line carries part of the time: visit them all.
    const bool every_line = scanner.tracks_relative_time();
    std::size_t hit = every_line ? pos : have_next_hit ? next_hit : NextKernelNeedle(text, pos);
    have_next_hit = false;
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
    } else if (text.compare(hit, 9, "NVRM: Xid") == 0) {
      // Whether the line holds a needle after its "Xid" is what the flood's
      // path asks; the search runs on into the next lines (no needle spans
      // a '\n', so the first one past `end` is the next line's first).
      std::size_t later = NextKernelNeedle(text, hit + 7);
      if (later == std::string_view::npos || later > end) {
        next_hit = later;
        have_next_hit = true;
        later = std::string_view::npos;
      } else {
        later -= start;
      }
      scanner.AddCandidate(text.substr(start, end - start), ref, hit - start, later);
    } else {
      scanner.AddCandidate(text.substr(start, end - start), ref);
    }
    pos = end + 1;
  }
  return line_no - first_line;
}

std::vector<KernelEvent> ExtractKernelEvents(const std::vector<LogLine>& lines,
                                             const ExtractOptions& opts) {
  KernelEventScanner scanner(opts);
  for (const auto& line : lines) scanner.AddLine(line);
  return scanner.Finish();
}

std::map<std::string, std::string> PciToUuid(const std::vector<KernelEvent>& events) {
  std::map<std::string, std::string> map;
  for (const auto& e : events) {
    if (e.kind == KernelEventKind::kGpuUuid && !e.pci_bus_id.empty() && !e.detail.empty()) {
      map[e.pci_bus_id] = e.detail;
    }
  }
  return map;
}

bool IndicatesGpuLost(const KernelEvent& e) {
  return e.kind == KernelEventKind::kFallenOffBus || e.kind == KernelEventKind::kGpuLost ||
         (e.kind == KernelEventKind::kXid && e.code == 79);
}

}  // namespace gpudoctor
