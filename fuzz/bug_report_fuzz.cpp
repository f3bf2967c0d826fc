// Fuzzes what `analyze` does with a bug report or any input file's bytes:
// gzip decoding (GunzipData; plain input is also round-tripped through
// GzipCompress, once and as two members), line splitting, kind detection,
// the bug report's facts and kernel-log sections, and its nvidia-smi text.
#include <string>

#include "analyze/analyze_input.h"
#include "analyze/bug_report.h"
#include "analyze/input_file.h"
#include "collect/kernel_log_files.h"
#include "fuzz_check.h"
#include "http/content_encoding.h"
#include "parse/kernel_events.h"
#include "parse/nvsmi_text.h"

namespace {

using namespace gpudoctor;

constexpr std::size_t kMaxBytes = 4u << 20;

void CheckGzipRoundTrip(std::string_view plain) {
  const std::optional<std::string> gz = GzipCompress(plain);
  FUZZ_CHECK(gz.has_value() && IsGzipData(*gz));
  Result<std::string> back = GunzipData(*gz, "fuzz.gz", kMaxBytes);
  FUZZ_CHECK(back.ok() && *back == plain);
  Result<std::string> twice = GunzipData(*gz + *gz, "fuzz.gz", 2 * kMaxBytes);
  FUZZ_CHECK(twice.ok() && *twice == std::string(plain) + std::string(plain));
}

void CheckReport(std::string_view content) {
  (void)DetectInputKind(content);
  const std::vector<LogLine> lines = SplitLogLines(content, "fuzz.log");
  for (std::size_t i = 0; i < lines.size(); ++i) FUZZ_CHECK(lines[i].ref.line == i + 1);

  const BugReportFacts facts = ReadBugReportFacts(lines);
  FUZZ_CHECK(facts.date_year >= 0);
  for (const std::string& smi : facts.smi_query_texts) {
    (void)FirstNonEmptyLine(smi);
    Result<SystemStatus> status = ParseNvidiaSmiText(smi, "fuzz.log");
    FUZZ_CHECK(status.ok() || fuzz::IsOneLineNaming(status.error().message, "fuzz.log: "));
  }

  (void)LooksLikeBugReport(lines);
  const std::vector<LogLine> kernel = BugReportKernelLines(lines);
  FUZZ_CHECK(kernel.size() <= lines.size());
  for (const LogLine& k : kernel) FUZZ_CHECK(k.ref.line >= 1 && k.ref.line <= lines.size());
  ExtractOptions opts;
  opts.time.year = facts.date_year;
  (void)ExtractKernelEvents(kernel, opts);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::AsText(data, size);
  // UTF-16 with a byte-order mark: two bytes become at most three.
  if (auto utf8 = Utf16ToUtf8(bytes)) FUZZ_CHECK(utf8->size() <= bytes.size() / 2 * 3);
  if (!IsGzipData(bytes)) {
    CheckGzipRoundTrip(bytes);
    CheckReport(bytes);
    return 0;
  }
  Result<std::string> text = GunzipData(bytes, "fuzz.gz", kMaxBytes);
  if (!text.ok()) {
    FUZZ_CHECK(fuzz::IsOneLineNaming(text.error().message, "fuzz.gz: "));
    return 0;
  }
  FUZZ_CHECK(text->size() <= kMaxBytes);
  CheckReport(*text);
  return 0;
}
