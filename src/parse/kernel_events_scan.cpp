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
  while (pos < text.size()) {
    // In dmesg -H logs every line carries part of the time: visit them all.
    std::size_t hit = scanner.tracks_relative_time() ? pos : NextKernelNeedle(text, pos);
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
    if (scanner.tracks_relative_time()) {  // every line: it may hold no needle
      scanner.AddText(text.substr(start, end - start), ref);
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
