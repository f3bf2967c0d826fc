// Fuzzes ParseNvidiaSmiTable, SplitNvidiaSmiTables and LooksLikeNvidiaSmiTable
// (the default nvidia-smi table): besides the status invariants, every field
// error is the ERR! marker, every GPU has a process list or none at all,
// consistently, and the tables split off are contiguous pieces of the text
// ending where it ends.
#include "parse/nvsmi_table.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpudoctor::fuzz::AsText(data, size);
  (void)gpudoctor::LooksLikeNvidiaSmiTable(text);
  gpudoctor::fuzz::CheckStatusParser(gpudoctor::ParseNvidiaSmiTable, text, "fuzz.txt",
                                     /*index_is_position=*/false);
  auto tables = gpudoctor::SplitNvidiaSmiTables(text);
  FUZZ_CHECK(!tables.empty() && tables.size() <= gpudoctor::kMaxTables);
  for (std::size_t i = 0; i + 1 < tables.size(); ++i) {
    FUZZ_CHECK(tables[i].data() + tables[i].size() == tables[i + 1].data());
  }
  FUZZ_CHECK(tables.back().data() + tables.back().size() == text.data() + text.size());
  FUZZ_CHECK(tables.size() > 1 || tables[0].size() == text.size());
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
