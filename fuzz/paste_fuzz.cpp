// Fuzzes what reads a ticket's paste: ReadPaste (prompts, fences, command
// lines, elisions, prose and host prefixes around a tool's output) and the
// nvidia-smi nvlink -s / -e parser its blocks often go to. Every block is
// text of the input (its lines, a host prefix removed, in order and within
// the input's lines), never empty, and what was left out is counted; the
// nvlink parser keeps the status invariants and its detector never throws.
#include <functional>

#include "analyze/paste.h"
#include "parse/nvsmi_nvlink.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = gpudoctor::fuzz::AsText(data, size);
  gpudoctor::Paste paste = gpudoctor::ReadPaste(text);
  std::size_t lines = 0;
  for (char c : text) lines += c == '\n';
  if (!text.empty() && text.back() != '\n') ++lines;
  std::size_t previous_last = 0;
  for (const gpudoctor::PasteBlock& b : paste.blocks) {
    FUZZ_CHECK(!b.text.empty() && b.text.back() == '\n');
    FUZZ_CHECK(b.first_line >= 1 && b.first_line <= b.last_line && b.last_line <= lines);
    FUZZ_CHECK(b.first_line > previous_last);
    previous_last = b.last_line;
    FUZZ_CHECK(b.text.size() <= text.size() + 1);
  }
  FUZZ_CHECK(paste.blocks.size() <= lines);
  FUZZ_CHECK(paste.fences + paste.commands + paste.elisions + paste.prose_lines <= lines);
  (void)gpudoctor::PasteLeftOut(paste);
  (void)gpudoctor::LooksLikeNvidiaSmiNvlink(text);
  gpudoctor::fuzz::CheckStatusParser(
      [](std::string_view t, std::string_view source) {
        return gpudoctor::ParseNvidiaSmiNvlink(t, source);
      },
      text, "fuzz.txt", /*index_is_position=*/false);
  for (const gpudoctor::PasteBlock& b : paste.blocks) {
    gpudoctor::fuzz::CheckStatusParser(
        [](std::string_view t, std::string_view source) {
          return gpudoctor::ParseNvidiaSmiNvlink(t, source);
        },
        b.text, "block.txt", /*index_is_position=*/false);
  }
  return 0;
}
