// Fuzzes ParseReportFindings (the JSON report `fix --from-report` reads).
#include "core/gpu_status.h"
#include "fix/report_findings.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpudoctor;
  Result<std::vector<Finding>> findings =
      ParseReportFindings(fuzz::AsText(data, size), "fuzz.json");
  if (!findings.ok()) {
    FUZZ_CHECK(findings.error().code == ErrorCode::kCorrupt);
    FUZZ_CHECK(fuzz::IsOneLineNaming(findings.error().message, "fuzz.json: "));
    return 0;
  }
  for (const Finding& f : *findings) {
    FUZZ_CHECK(!f.id.empty());
    for (const std::string& bus : f.gpus) FUZZ_CHECK(NormalizePciBusId(bus) == bus);
  }
  return 0;
}
