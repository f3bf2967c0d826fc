#include "parse/kernel_prefilter.h"

#include <array>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpudoctor {
namespace {

struct Needle {
  std::string_view text;
  std::size_t anchor;  // index of the rare byte searched for
};

// Anchors are bytes that are rare in ordinary kernel and syslog traffic.
// Their high nibbles (4, 5, 6, 7) fit the nibble classifier below.
constexpr Needle kNeedles[] = {
    {"NVRM", 1},           {"SXid", 1},       {"NCCL", 3},    {"libnccl", 2},
    {"Killed process", 0}, {"oom-killer", 4}, {"AER", 0},     {"PCIe Bus Error", 5},
    {"PCIe bandwidth", 5}, {"fabric", 2},     {"[ERROR]", 4}, {"failed with error", 7},
    // AER status and recovery lines that carry no "AER" of their own.
    {"status/mask", 6},    {"SDES", 1},       {"Surprise Down", 9}, {"link has been reset", 3},
};

struct Tables {
  std::array<bool, 256> anchor{};
  std::array<std::uint8_t, 16> lo{};  // bit per high nibble, set for each low nibble
  std::array<std::uint8_t, 16> hi{};
};

Tables MakeTables() {
  Tables t;
  std::array<int, 16> bit_of_hi;
  bit_of_hi.fill(-1);
  int next_bit = 0;
  for (const auto& n : kNeedles) {
    auto c = static_cast<unsigned char>(n.text[n.anchor]);
    t.anchor[c] = true;
    int h = c >> 4;
    if (bit_of_hi[h] < 0) bit_of_hi[h] = next_bit++;  // at most 8 by construction
    t.hi[h] |= static_cast<std::uint8_t>(1u << bit_of_hi[h]);
    t.lo[c & 15] |= static_cast<std::uint8_t>(1u << bit_of_hi[h]);
  }
  return t;
}

const Tables& GetTables() {
  static const Tables t = MakeTables();
  return t;
}

// Start (>= from) of a needle whose anchor byte is at `pos`, or npos.
std::size_t VerifyAt(std::string_view text, std::size_t pos, std::size_t from) {
  char c = text[pos];
  for (const auto& n : kNeedles) {
    if (n.text[n.anchor] != c || pos < from + n.anchor) continue;
    std::size_t start = pos - n.anchor;
    if (start + n.text.size() <= text.size() &&
        std::memcmp(text.data() + start, n.text.data(), n.text.size()) == 0) {
      return start;
    }
  }
  return std::string_view::npos;
}

// Anchors from `scan` on; needles must start at or after `from`.
std::size_t NextScalar(std::string_view text, std::size_t scan, std::size_t from) {
  const auto& anchor = GetTables().anchor;
  for (std::size_t i = scan; i < text.size(); ++i) {
    if (!anchor[static_cast<unsigned char>(text[i])]) continue;
    if (std::size_t start = VerifyAt(text, i, from); start != std::string_view::npos) return start;
  }
  return std::string_view::npos;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) std::size_t NextAvx2(std::string_view text, std::size_t from) {
  const Tables& t = GetTables();
  const __m256i lo_tbl =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t.lo.data())));
  const __m256i hi_tbl =
      _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(t.hi.data())));
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  const char* p = text.data();
  std::size_t i = from;
  for (; i + 32 <= text.size(); i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    __m256i lo = _mm256_shuffle_epi8(lo_tbl, _mm256_and_si256(v, nibble));
    __m256i hi = _mm256_shuffle_epi8(hi_tbl, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    __m256i hit = _mm256_cmpeq_epi8(_mm256_and_si256(lo, hi), zero);
    auto mask = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(hit));
    while (mask != 0) {
      std::size_t pos = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::size_t start = VerifyAt(text, pos, from); start != std::string_view::npos)
        return start;
      mask &= mask - 1;
    }
  }
  return NextScalar(text, i, from);
}

__attribute__((target("avx2"))) std::size_t CountAvx2(const char* p, std::size_t n) {
  const __m256i nl = _mm256_set1_epi8('\n');
  std::size_t count = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    count += static_cast<std::size_t>(
        __builtin_popcount(static_cast<unsigned>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, nl)))));
  }
  for (; i < n; ++i) count += p[i] == '\n';
  return count;
}

bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif

}  // namespace

std::size_t NextKernelNeedle(std::string_view text, std::size_t from) {
  if (from >= text.size()) return std::string_view::npos;
#if defined(__x86_64__)
  if (HaveAvx2()) return NextAvx2(text, from);
#endif
  return NextScalar(text, from, from);
}

std::size_t CountNewlines(std::string_view text, std::size_t from, std::size_t to) {
  if (to > text.size()) to = text.size();
  if (from >= to) return 0;
#if defined(__x86_64__)
  if (HaveAvx2()) return CountAvx2(text.data() + from, to - from);
#endif
  std::size_t count = 0;
  const char* p = text.data() + from;
  const char* end = text.data() + to;
  while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p))))) {
    ++count;
    ++p;
  }
  return count;
}

}  // namespace gpudoctor
