// Fuzzes ParseNvidiaSmiText and LooksLikeNvidiaSmiText (nvidia-smi -q text).
#include "parse/nvsmi_text.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpudoctor::fuzz::AsText(data, size);
  (void)gpudoctor::LooksLikeNvidiaSmiText(text);
  gpudoctor::fuzz::CheckStatusParser(gpudoctor::ParseNvidiaSmiText, text, "fuzz.txt");
  return 0;
}
