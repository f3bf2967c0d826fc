// The hot path of kernel-log scanning: find the lines that may hold an event
// without looking at the others. A line "may matter" when it contains one of
// the catalog's words (kernel_catalog.h KernelLineWords: "NVRM", "Xid", the
// words of each message and of the lines that continue one, journald JSON's
// byte-array "\"MESSAGE\":[", nvidia-smi's messages). Every event the
// extractor knows contains at least one of them, and so does every
// continuation line it accepts.
//
// The search classifies 32 positions at a time by three adjacent bytes of
// each needle that ordinary traffic rarely holds ("VRM", "CCL", "AER", ...;
// Teddy-style nibble lookups in eight buckets, AVX2 when the CPU has it, a
// byte table otherwise) and verifies the needles of a bucket only where all
// three of its bytes match.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpudoctor {

// The needles, as searched (for cross-checks): the catalog's words.
std::vector<std::string_view> KernelNeedles();

// Offset of the first needle occurrence at or after `from`, or npos.
std::size_t NextKernelNeedle(std::string_view text, std::size_t from = 0);

inline bool LineMayMatter(std::string_view line) {
  return NextKernelNeedle(line) != std::string_view::npos;
}

// Number of '\n' in text[from, to).
std::size_t CountNewlines(std::string_view text, std::size_t from, std::size_t to);

}  // namespace gpudoctor
