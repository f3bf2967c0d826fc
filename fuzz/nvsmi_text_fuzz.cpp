// Fuzzes ParseNvidiaSmiText and LooksLikeNvidiaSmiText (nvidia-smi -q text).
#include <string>
#include <vector>

#include "parse/nvsmi_text.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpudoctor::fuzz::AsText(data, size);
  (void)gpudoctor::LooksLikeNvidiaSmiText(text);
  // With the notes a file's reading collects (a GPU block left out, ...):
  // each one a single line.
  std::vector<std::string> notes;
  gpudoctor::fuzz::CheckStatusParser(
      [&notes](std::string_view input, std::string_view source) {
        return gpudoctor::ParseNvidiaSmiText(input, source, &notes);
      },
      text, "fuzz.txt");
  for (const std::string& note : notes) FUZZ_CHECK(note.find('\n') == std::string::npos);
  return 0;
}
