// Fuzzes the kernel-log scan over a multi-line input: the prefiltered
// buffer scan (ScanKernelLogBuffer, as `analyze` and --kernel-log use it)
// against the plain line-by-line extractor, ParseKernelLine on every line,
// and the SIMD needle search against a naive one.
#include <algorithm>
#include <string>
#include <vector>

#include "analyze/input_file.h"
#include "core/gpu_status.h"
#include "fuzz_check.h"
#include "parse/kernel_events.h"
#include "parse/kernel_line.h"
#include "parse/kernel_prefilter.h"
#include "render/events_json.h"
#include "render_check.h"

namespace {

using namespace gpudoctor;

// The needles of kernel_prefilter.h, searched the slow way.
std::size_t NaiveNeedle(std::string_view text, std::size_t from) {
  static const std::vector<std::string_view> kNeedles = KernelNeedles();
  std::size_t best = std::string_view::npos;
  for (std::string_view n : kNeedles) best = std::min(best, text.find(n, from));
  return best;
}

bool Within(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

void CheckLine(std::string_view line) {
  for (int year : {0, 2025}) {
    LineTimeContext ctx;
    ctx.year = year;
    const KernelLine k = ParseKernelLine(line, ctx);
    FUZZ_CHECK(Within(k.text, line) && Within(k.message, line));
    // A bare "kernel: msg" line gets the literal ident "kernel".
    FUZZ_CHECK(Within(k.host, line) && (Within(k.ident, line) || k.ident == "kernel"));
    FUZZ_CHECK(k.level >= -1 && k.level <= 7);
  }
}

bool SameEvents(const std::vector<KernelEvent>& a, const std::vector<KernelEvent>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || a[i].code != b[i].code || a[i].pci_bus_id != b[i].pci_bus_id ||
        a[i].message != b[i].message || a[i].detail != b[i].detail || a[i].count != b[i].count ||
        a[i].continuation != b[i].continuation || a[i].source.line != b[i].source.line) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::AsText(data, size));
  std::erase(text, '\r');  // as `analyze` does; SplitLogLines drops them too

  for (std::size_t from = 0; from <= text.size(); from += 1 + from / 2) {
    FUZZ_CHECK(NextKernelNeedle(text, from) == NaiveNeedle(text, from));
  }

  ExtractOptions opts;
  opts.time.year = 2025;
  KernelEventScanner scanner(opts);
  const std::size_t lines = ScanKernelLogBuffer(text, "fuzz.log", 1, scanner);
  const std::vector<KernelEvent> scanned = scanner.Finish();

  const std::vector<LogLine> all = SplitLogLines(text, "fuzz.log");
  FUZZ_CHECK(lines == all.size());
  for (const LogLine& line : all) CheckLine(line.text);
  const std::vector<KernelEvent> extracted = ExtractKernelEvents(all, opts);

  // The prefilter only skips lines that cannot matter: same events either way.
  FUZZ_CHECK(SameEvents(scanned, extracted));
  for (const KernelEvent& e : scanned) {
    FUZZ_CHECK(e.count >= 1);
    FUZZ_CHECK(e.source.line >= 1 && e.source.line <= lines);
    FUZZ_CHECK(e.pci_bus_id.empty() || NormalizePciBusId(e.pci_bus_id) == e.pci_bus_id);
  }
  (void)PciToUuid(scanned);
  // The events as analyze --format json writes them, whatever bytes the
  // log held.
  fuzz::CheckRendersAsUtf8Json(EventsToJson(scanned));
  return 0;
}
