#include "parse/kernel_prefilter.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <stdexcept>

#include "parse/kernel_catalog.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpudoctor {
namespace {

constexpr int kBuckets = 16;  // two sets of eight, each searched by its own tables

struct Needle {
  std::string_view text;
  std::size_t anchor;  // start of the three bytes searched for (rare in ordinary traffic)
  int bucket;          // of the 16 the search sorts positions into; -1: the emptiest
};

// The needles are the catalog's words (kernel_catalog.h KernelLineWords).
// Each is found by three adjacent bytes, then verified whole. For the words
// below, the anchors and buckets are chosen so that the nibble tables of a
// bucket's needles (below) match few other byte triples of ordinary kernel,
// systemd, container and English text: each position they match costs a
// verify, and an ordinary syslog should pass with few (a search over a
// sample of such text chose them; no anchor holds a space). A word of the
// catalog not listed here gets its first three bytes without a space and
// the bucket with the fewest needles: it is found all the same, perhaps at
// the cost of more verifies. Speed only: the search finds the same needles
// whatever the anchors and buckets.
constexpr Needle kTuned[] = {
    {"NVRM", 1, 3},
    {"Xid", 0, 1},
    {"NCCL", 0, 3},
    {"libnccl", 3, 3},
    {"Killed process", 0, 1},
    {"oom-killer", 3, 1},
    {"AER", 0, 2},
    {"PCIe Bus Error", 1, 2},
    {"PCIe bandwidth", 1, 2},
    {"fabric", 0, 0},
    {"[ERROR]", 0, 2},
    {"failed with error", 3, 4},
    {"\"MESSAGE\":[", 8, 2},  // journald JSON: a message that is not UTF-8, as bytes
    // AER status and recovery lines that carry no "AER" of their own.
    {"status/mask", 4, 5},
    {"SDES", 0, 7},
    {"Surprise Down", 2, 6},
    {"link has been reset", 9, 0},
    // nvidia-smi's messages (nvsmi_messages.h), in a shell session pasted into a log.
    {"the device handle for", 6, 5},
    {"No devices were found", 5, 5},
    {"Failed to initialize NVML", 22, 3},
    {"NVIDIA-SMI has failed", 7, 7},
    // nvidia-peermem (GPUDirect RDMA) prints its errors under its own name.
    {"peermem", 3, 6},
    // ConnectX NIC driver lines (command timeouts, health, slot power, module heat).
    {"mlx5_core", 1, 7},
    // The needles added for NCCL's network and the host, in the second set
    // of buckets: each bucket keeps anchors of one shape, so that its nibble
    // tables stay narrow: capitals and punctuation (8, 12), a capital then
    // lowercase (9, 13), lowercase then punctuation (10, 14), lowercase
    // throughout (11, 15).
    {"Got completion", 0, 9},
    {"closed by remote peer", 18, 11},
    {"Connection refused", 12, 15},
    {"ibv_", 1, 10},
    {"INFO: task", 1, 8},  // "NFO": shared with "INFO: rcu"
    {"INFO: rcu", 1, 8},
    {"hard LOCKUP", 8, 8},
    {"Kernel panic", 0, 13},
    {"BUG:", 1, 12},
    {"BUG at", 0, 8},
    {"general protection fault", 4, 11},
    {"Oops:", 0, 9},
    {"QID", 0, 12},
    {"controller is down;", 16, 14},
    {"Device not ready", 0, 13},
    {"Removing after probe", 0, 9},
    {"Disabling device after", 0, 13},
    {"I/O error", 0, 8},
    {"I/O Error", 0, 8},
    {"error, dev", 3, 10},
    {"XFS (", 0, 8},
    {"Disk failure on", 0, 9},
    {"beyond end of device", 2, 15},
    {"-fs error", 0, 12},
    {"Remounting filesystem read-only", 0, 13},
    {"nfs: server", 1, 14},
    {"lockd: server", 3, 10},
    {"Lock reclaim", 0, 9},
    {"Lustre", 0, 13},
    {"EDAC", 0, 8},
    {"Machine check", 0, 9},
    {"Machine Check", 0, 9},
    {"Uncorrected hardware", 0, 9},
    {"[Hardware Error]:", 0, 12},
    {"VFS: file-max", 0, 8},
    {"nf_conntrack", 1, 14},
    {"fork rejected", 5, 11},
    {"Comm:", 2, 10},
    {"RIP:", 0, 12},
    {"Hardware name:", 0, 13},
};

constexpr bool TunedAreWellFormed() {
  for (const Needle& n : kTuned) {
    if (n.anchor + 3 > n.text.size() || n.bucket < -1 || n.bucket >= kBuckets) return false;
    if (n.text.substr(n.anchor, 3).find(' ') != std::string_view::npos) return false;
  }
  return true;
}
static_assert(TunedAreWellFormed(),
              "an anchor's three bytes lie in its needle, hold no space, in one of 16 buckets");

constexpr std::size_t kMaxNeedles = 64;

// Teddy-style tables: for each of the three anchor bytes, a bucket's bit is
// set in lo[b & 15] and hi[b >> 4] of every byte its needles have at that
// place. A position is a candidate when some bucket's bit survives all six
// lookups; only that bucket's needles are verified there.
struct Tables {
  std::array<Needle, kMaxNeedles> needles{};
  std::size_t needle_count = 0;
  // Two sets of eight buckets (bucket b: set b / 8, bit b % 8).
  std::array<std::array<std::array<std::uint8_t, 16>, 3>, 2> lo{};
  std::array<std::array<std::array<std::uint8_t, 16>, 3>, 2> hi{};
  std::array<bool, 256> first{};  // scalar fallback: first anchor bytes
  // Per bucket and first anchor byte, the needles (bits of their indices)
  // whose anchor begins with that byte: a candidate verifies only those.
  std::array<std::array<std::uint64_t, 256>, kBuckets> by_first_byte{};
};
static_assert(kMaxNeedles <= 64, "needle indices are bits of a 64-bit mask");

// The catalog's words as needles: the tuned ones in kTuned's order, then
// the others.
std::vector<Needle> CatalogNeedles() {
  const std::vector<std::string_view> words = kevents::KernelLineWords();
  std::vector<Needle> out;
  std::array<std::size_t, kBuckets> used{};
  for (const Needle& n : kTuned) {
    if (std::find(words.begin(), words.end(), n.text) == words.end() || n.bucket < 0) continue;
    out.push_back(n);
    ++used[static_cast<std::size_t>(n.bucket)];
  }
  // Tuned anchors with no bucket of their own: the bucket with the fewest.
  for (Needle n : kTuned) {
    if (std::find(words.begin(), words.end(), n.text) == words.end() || n.bucket >= 0) continue;
    n.bucket = static_cast<int>(std::min_element(used.begin(), used.end()) - used.begin());
    ++used[static_cast<std::size_t>(n.bucket)];
    out.push_back(n);
  }
  for (std::string_view w : words) {
    if (std::any_of(out.begin(), out.end(), [&](const Needle& n) { return n.text == w; })) continue;
    if (w.size() < 3) throw std::logic_error("kernel_prefilter: a needle of fewer than 3 bytes");
    std::size_t anchor = 0;
    while (anchor + 3 < w.size() && w.substr(anchor, 3).find(' ') != std::string_view::npos) ++anchor;
    const auto bucket = static_cast<std::size_t>(std::min_element(used.begin(), used.end()) - used.begin());
    ++used[bucket];
    out.push_back(Needle{w, anchor, static_cast<int>(bucket)});
  }
  if (out.size() > kMaxNeedles) throw std::logic_error("kernel_prefilter: too many needles");
  return out;
}

Tables MakeTables() {
  Tables t;
  const std::vector<Needle> needles = CatalogNeedles();
  for (std::size_t i = 0; i < needles.size(); ++i) {
    const Needle& n = needles[i];
    t.needles[i] = n;
    const int b = n.bucket;
    const auto set = static_cast<std::size_t>(b / 8);
    const auto bit = static_cast<std::uint8_t>(1u << (b % 8));
    for (std::size_t k = 0; k < 3; ++k) {
      auto c = static_cast<unsigned char>(n.text[n.anchor + k]);
      t.lo[set][k][c & 15] |= bit;
      t.hi[set][k][c >> 4] |= bit;
    }
    t.first[static_cast<unsigned char>(n.text[n.anchor])] = true;
    t.by_first_byte[static_cast<std::size_t>(b)][static_cast<unsigned char>(n.text[n.anchor])] |=
        std::uint64_t{1} << i;
  }
  t.needle_count = needles.size();
  return t;
}

const Tables& GetTables() {
  static const Tables t = MakeTables();
  return t;
}

// Start (>= from) of needle i when its anchor begins at `pos`, or npos.
std::size_t VerifyNeedle(std::string_view text, std::size_t pos, std::size_t from,
                         const Needle& n) {
  // pos may lie in the NUL padding past the text (a candidate there when a
  // needle's anchor bytes share a nibble with NUL): never read it.
  if (pos >= text.size() || pos < from + n.anchor || text[pos] != n.text[n.anchor]) {
    return std::string_view::npos;
  }
  std::size_t start = pos - n.anchor;
  if (start + n.text.size() > text.size()) return std::string_view::npos;
  // Byte by byte: a needle is short, and memcmp is a call.
  for (std::size_t k = 0; k < n.text.size(); ++k) {
    if (text[start + k] != n.text[k]) return std::string_view::npos;
  }
  return start;
}

// Start (>= from) of a needle whose anchor begins at `pos`, or npos.
std::size_t VerifyAt(const Tables& t, std::string_view text, std::size_t pos, std::size_t from) {
  for (std::size_t i = 0; i < t.needle_count; ++i) {
    if (std::size_t start = VerifyNeedle(text, pos, from, t.needles[i]);
        start != std::string_view::npos)
      return start;
  }
  return std::string_view::npos;
}

// The same for the needles of the buckets in `buckets` (bits).
std::size_t VerifyBuckets(const Tables& t, std::string_view text, std::size_t pos,
                          std::size_t from, unsigned buckets) {
  std::size_t best = std::string_view::npos;
  if (pos >= text.size()) return best;  // the NUL padding past the text
  const auto first = static_cast<unsigned char>(text[pos]);
  while (buckets != 0) {
    const auto b = static_cast<std::size_t>(__builtin_ctz(buckets));
    buckets &= buckets - 1;
    for (std::uint64_t m = t.by_first_byte[b][first]; m != 0; m &= m - 1) {
      const auto i = static_cast<std::size_t>(__builtin_ctzll(m));
      std::size_t start = VerifyNeedle(text, pos, from, t.needles[i]);
      if (start < best) best = start;
    }
  }
  return best;
}

// Anchors from `scan` on; needles must start at or after `from`.
std::size_t NextScalar(std::string_view text, std::size_t scan, std::size_t from) {
  const Tables& t = GetTables();
  for (std::size_t i = scan; i < text.size(); ++i) {
    if (!t.first[static_cast<unsigned char>(text[i])]) continue;
    if (std::size_t start = VerifyAt(t, text, i, from); start != std::string_view::npos) return start;
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
  const __m256i lo0 = GPUDOCTOR_TABLE(t.lo[0][0]), hi0 = GPUDOCTOR_TABLE(t.hi[0][0]);
  const __m256i lo1 = GPUDOCTOR_TABLE(t.lo[0][1]), hi1 = GPUDOCTOR_TABLE(t.hi[0][1]);
  const __m256i lo2 = GPUDOCTOR_TABLE(t.lo[0][2]), hi2 = GPUDOCTOR_TABLE(t.hi[0][2]);
  const __m256i lo3 = GPUDOCTOR_TABLE(t.lo[1][0]), hi3 = GPUDOCTOR_TABLE(t.hi[1][0]);
  const __m256i lo4 = GPUDOCTOR_TABLE(t.lo[1][1]), hi4 = GPUDOCTOR_TABLE(t.hi[1][1]);
  const __m256i lo5 = GPUDOCTOR_TABLE(t.lo[1][2]), hi5 = GPUDOCTOR_TABLE(t.hi[1][2]);
#undef GPUDOCTOR_TABLE
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  // The last bytes (fewer than 34) are classified from a copy padded with
  // NUL bytes, which no needle holds.
  alignas(32) char tail[96];
  const char* p = text.data();
  std::size_t i = from;
  for (bool last = false; !last; i += 32) {
    const char* at = p + i;
    if (i + 34 > text.size()) {
      if (i >= text.size()) break;
      last = true;
      std::memset(tail, 0, sizeof tail);
      std::memcpy(tail, p + i, text.size() - i);
      at = tail;
    }
    __m256i m = GPUDOCTOR_CLASSIFY(at, lo0, hi0);
    m = _mm256_and_si256(m, GPUDOCTOR_CLASSIFY(at + 1, lo1, hi1));
    m = _mm256_and_si256(m, GPUDOCTOR_CLASSIFY(at + 2, lo2, hi2));
    __m256i m2 = GPUDOCTOR_CLASSIFY(at, lo3, hi3);
    m2 = _mm256_and_si256(m2, GPUDOCTOR_CLASSIFY(at + 1, lo4, hi4));
    m2 = _mm256_and_si256(m2, GPUDOCTOR_CLASSIFY(at + 2, lo5, hi5));
    auto mask = ~static_cast<std::uint32_t>(
        _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(m, m2), zero)));
    if (mask == 0) continue;
    alignas(32) std::uint8_t bits[32];
    alignas(32) std::uint8_t bits2[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits), m);
    _mm256_store_si256(reinterpret_cast<__m256i*>(bits2), m2);
    // Needles anchored at different offsets: a later anchor may belong to
    // an earlier start; the earliest start among this block's wins.
    std::size_t best = std::string_view::npos;
    while (mask != 0) {
      const auto k = static_cast<std::size_t>(__builtin_ctz(mask));
      mask &= mask - 1;
      std::size_t start =
          VerifyBuckets(t, text, i + k, from, bits[k] | static_cast<unsigned>(bits2[k]) << 8);
      if (start < best) best = start;
    }
    if (best != std::string_view::npos) return best;
  }
  return std::string_view::npos;
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
  const Tables& t = GetTables();
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < t.needle_count; ++i) out.push_back(t.needles[i].text);
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
