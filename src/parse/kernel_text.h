// Text helpers of the kernel-log catalog and scan: substring search as the
// matchers run it on a flood's every line, and PCI addresses as the kernel
// and the NVIDIA driver print them. Pure.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace gpudoctor::kevents {

// "PCI:0000:a1:00", "0000:a1:00", "00000000:86:00.0" -> "0000:a1:00.0";
// empty when malformed.
std::string NormalizeKernelPci(std::string_view text);
// The first PCI address in `text` ("dddd:bb:dd" with optional ".f"), or "".
std::string_view FindPci(std::string_view text);
// An address in `text` (FindPci) that NormalizeKernelPci refuses, as printed,
// and why it is not a PCI bus id ("device 0x25 is above 0x1f"); empty strings
// when there is none or it is one.
std::pair<std::string, std::string> KernelPciProblem(std::string_view text);

// isxdigit's answer (hex digits are the same in every locale), inline: a
// flood's every NVRM line is searched for a PCI address byte by byte.
inline bool IsHex(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'f');
}

// glibc's memmem, not string_view::find (a memchr and a compare per
// occurrence of the first byte): the matchers run on a flood's every line.
inline std::size_t Find(std::string_view s, std::string_view what) {
  if (what.empty()) return 0;
  if (what.size() > s.size()) return std::string_view::npos;  // and no null pointer below
  const void* at = memmem(s.data(), s.size(), what.data(), what.size());
  return at ? static_cast<std::size_t>(static_cast<const char*>(at) - s.data())
            : std::string_view::npos;
}
inline bool Has(std::string_view s, std::string_view what) {
  return Find(s, what) != std::string_view::npos;
}
inline std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

}  // namespace gpudoctor::kevents
