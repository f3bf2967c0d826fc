#include "parse/kernel_prefilter.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpudoctor {
namespace {

struct Needle {
  std::string_view text;
  std::size_t anchor;  // start of the three bytes searched for (rare in ordinary traffic)
};

// Each needle is found by three adjacent bytes that ordinary kernel,
// systemd and container traffic rarely holds, then verified whole.
constexpr Needle kNeedles[] = {
    {"NVRM", 0},
    {"Xid", 0},
    {"NCCL", 1},
    {"libnccl", 2},
    {"Killed process", 0},
    {"oom-killer", 2},
    {"AER", 0},
    {"PCIe Bus Error", 2},
    {"PCIe bandwidth", 2},
    {"fabric", 2},
    {"[ERROR]", 0},
    {"failed with error", 5},
    {"\"MESSAGE\":[", 8},  // journald JSON: a message that is not UTF-8, as bytes
    // AER status and recovery lines that carry no "AER" of their own.
    {"status/mask", 5},
    {"SDES", 0},
    {"Surprise Down", 9},
    {"link has been reset", 3},
    // nvidia-smi's messages (nvsmi_messages.h), in a shell session pasted into a log.
    {"the device handle for", 11},
    {"No devices were found", 0},
    {"Failed to initialize NVML", 22},
    {"NVIDIA-SMI has failed", 6},
    // nvidia-peermem (GPUDirect RDMA) prints its errors under its own name.
    {"peermem", 1},
    {"the device handle for", 11}, {"No devices were found", 0},
    {"Failed to initialize NVML", 22}, {"NVIDIA-SMI has failed", 6},
    // ConnectX NIC driver lines (command timeouts, health, slot power, module heat).
    {"mlx5_core", 2},
};
constexpr std::size_t kNeedleCount = std::size(kNeedles);

// Teddy-style tables: needle i sits in bucket i % 8; for each of the three
// bytes, a bucket's bit is set in lo[b & 15] and hi[b >> 4] of every needle
// byte at that place. A position is a candidate when some bucket's bit
// survives all six lookups.
struct Tables {
  std::array<std::array<std::uint8_t, 16>, 3> lo{};
  std::array<std::array<std::uint8_t, 16>, 3> hi{};
  std::array<bool, 256> first{};  // scalar fallback: first anchor bytes
};

Tables MakeTables() {
  Tables t;
  for (std::size_t i = 0; i < kNeedleCount; ++i) {
    const auto bit = static_cast<std::uint8_t>(1u << (i % 8));
    for (std::size_t k = 0; k < 3; ++k) {
      auto c = static_cast<unsigned char>(kNeedles[i].text[kNeedles[i].anchor + k]);
      t.lo[k][c & 15] |= bit;
      t.hi[k][c >> 4] |= bit;
    }
    t.first[static_cast<unsigned char>(kNeedles[i].text[kNeedles[i].anchor])] = true;
  }
  return t;
}

const Tables& GetTables() {
  static const Tables t = MakeTables();
  return t;
}

// Start (>= from) of a needle whose anchor begins at `pos`, or npos.
std::size_t VerifyAt(std::string_view text, std::size_t pos, std::size_t from) {
  for (const auto& n : kNeedles) {
    if (pos < from + n.anchor || text[pos] != n.text[n.anchor]) continue;
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
  const auto& first = GetTables().first;
  for (std::size_t i = scan; i < text.size(); ++i) {
    if (!first[static_cast<unsigned char>(text[i])]) continue;
    if (std::size_t start = VerifyAt(text, i, from); start != std::string_view::npos) return start;
  }
  return std::string_view::npos;
}

#if defined(__x86_64__)
// Bucket bits of the 32 bytes at p for one of the three anchor places
// (a macro: a helper returning __m256i would change the ABI).
#define GPUDOCTOR_CLASSIFY(p, lo_tbl, hi_tbl)                                              \
  _mm256_and_si256(                                                                        \
      _mm256_shuffle_epi8(lo_tbl, _mm256_and_si256(_mm256_loadu_si256(                     \
                                                       reinterpret_cast<const __m256i*>(p)), \
                                                   nibble)),                               \
      _mm256_shuffle_epi8(                                                                 \
          hi_tbl, _mm256_and_si256(                                                        \
                      _mm256_srli_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), 4), \
                      nibble)))

__attribute__((target("avx2"))) std::size_t NextAvx2(std::string_view text, std::size_t from) {
  const Tables& t = GetTables();
#define GPUDOCTOR_TABLE(a) \
  _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>((a).data())))
  const __m256i lo0 = GPUDOCTOR_TABLE(t.lo[0]), hi0 = GPUDOCTOR_TABLE(t.hi[0]);
  const __m256i lo1 = GPUDOCTOR_TABLE(t.lo[1]), hi1 = GPUDOCTOR_TABLE(t.hi[1]);
  const __m256i lo2 = GPUDOCTOR_TABLE(t.lo[2]), hi2 = GPUDOCTOR_TABLE(t.hi[2]);
#undef GPUDOCTOR_TABLE
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  const char* p = text.data();
  std::size_t i = from;
  for (; i + 34 <= text.size(); i += 32) {
    __m256i m = GPUDOCTOR_CLASSIFY(p + i, lo0, hi0);
    m = _mm256_and_si256(m, GPUDOCTOR_CLASSIFY(p + i + 1, lo1, hi1));
    m = _mm256_and_si256(m, GPUDOCTOR_CLASSIFY(p + i + 2, lo2, hi2));
    auto mask = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(m, zero)));
    while (mask != 0) {
      std::size_t pos = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (std::size_t start = VerifyAt(text, pos, from); start != std::string_view::npos)
        return start;
      mask &= mask - 1;
    }
  }
  return NextScalar(text, i, from);
}
#undef GPUDOCTOR_CLASSIFY

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

std::vector<std::string_view> KernelNeedles() {
  std::vector<std::string_view> out;
  for (const auto& n : kNeedles) out.push_back(n.text);
  return out;
}

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
