// Fuzzes ParseNvidiaSmiTable and LooksLikeNvidiaSmiTable (the default
// nvidia-smi table): besides the status invariants, every field error is the
// ERR! marker and every GPU has a process list or none at all, consistently.
#include "parse/nvsmi_table.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpudoctor::fuzz::AsText(data, size);
  (void)gpudoctor::LooksLikeNvidiaSmiTable(text);
  gpudoctor::fuzz::CheckStatusParser(gpudoctor::ParseNvidiaSmiTable, text, "fuzz.txt",
                                     /*index_is_position=*/false);
  auto status = gpudoctor::ParseNvidiaSmiTable(text, "fuzz.txt");
  if (!status) return 0;
  for (const gpudoctor::GpuStatus& gpu : status->gpus) {
    for (const auto& [field, error] : gpu.field_errors) {
      FUZZ_CHECK(!field.empty() && error == gpudoctor::kTableErrCell);
    }
    FUZZ_CHECK(gpu.processes.has_value() == status->gpus.front().processes.has_value());
  }
  return 0;
}
