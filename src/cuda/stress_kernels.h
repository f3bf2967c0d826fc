// The kernels of `gpudoctor stress`: their entry names, parameter lists and
// the constants the host side and the fake libcuda of the tests share. The
// PTX text itself is in ptx_kernels.cpp.
//
// Parameters, in order (u64 = unsigned long long, u32 = unsigned int):
//   gd_copy   (u64 dst, u64 src, u64 vectors)   copies `vectors` 16-byte vectors
//   gd_fill   (u64 buf, u64 words, u64 pattern, u32 mode)
//   gd_verify (u64 buf, u64 words, u64 pattern, u32 mode, u64 result)
//   gd_burn   (u64 out, u32 iterations)         out: one float per thread
// mode kPatternFixed writes `pattern` to every 8-byte word; mode
// kPatternAddress writes each word's own device address (address in address).
// gd_verify counts the words that differ in result[0] and writes the
// addresses of the first kVerifyAddressSlots it meets to result[1..].
#pragma once

#include <cstdint>

namespace gpudoctor {

inline constexpr const char* kCopyKernelName = "gd_copy";
inline constexpr const char* kFillKernelName = "gd_fill";
inline constexpr const char* kVerifyKernelName = "gd_verify";
inline constexpr const char* kBurnKernelName = "gd_burn";

inline constexpr std::uint32_t kPatternFixed = 0;
inline constexpr std::uint32_t kPatternAddress = 1;

inline constexpr int kVerifyAddressSlots = 8;
// result[0] and the address slots, in 8-byte words.
inline constexpr int kVerifyResultWords = 1 + kVerifyAddressSlots;

// Independent FMA chains per thread and iteration of gd_burn: each
// iteration is this many fused multiply-adds, 2 floating-point operations each.
inline constexpr int kBurnFmasPerIteration = 8;

// The PTX module holding all four entries (NUL-terminated, as
// cuModuleLoadData takes it).
const char* StressKernelsPtx();

}  // namespace gpudoctor
