#include "parse/kernel_text.h"

#include <cctype>
#include <cstdint>

#include "core/gpu_status.h"

namespace gpudoctor::kevents {
namespace {

std::size_t HexRun(std::string_view s, std::size_t i) {
  std::size_t n = 0;
  while (i + n < s.size() && IsHex(s[i + n])) ++n;
  return n;
}

// Length of "dddd:bb:dd[.f]" at i (domain 4..8 hex digits), 0 if none.
std::size_t PciAt(std::string_view s, std::size_t i) {
  std::size_t d = HexRun(s, i);
  if (d < 4 || d > 8 || i + d >= s.size() || s[i + d] != ':') return 0;
  std::size_t j = i + d + 1;
  if (HexRun(s, j) != 2 || j + 2 >= s.size() || s[j + 2] != ':') return 0;
  j += 3;
  if (HexRun(s, j) != 2) return 0;
  j += 2;
  if (j + 1 < s.size() && s[j] == '.' && IsHex(s[j + 1])) j += 2;
  return j - i;
}

}  // namespace

std::string_view FindPci(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i > 0 && IsHex(text[i - 1])) continue;
    if (std::size_t n = PciAt(text, i)) return text.substr(i, n);
  }
  return {};
}

std::string NormalizeKernelPci(std::string_view text) {
  if (text.substr(0, 4) == "PCI:") text.remove_prefix(4);
  while (!text.empty() && (text.back() == ':' || text.back() == ',')) text.remove_suffix(1);
  if (text.empty() || PciAt(text, 0) != text.size()) return {};
  // "D{4,8}:BB:DD" with an optional ".F" (PciAt), written as
  // NormalizePciBusId writes it ("%04x:%02x:%02x.%x"), without its printf:
  // a flood's every line has one.
  auto hex_value = [](std::string_view digits) {
    std::uint32_t v = 0;
    for (char ch : digits) {
      auto u = static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(ch)));
      v = v * 16 + (u <= '9' ? u - '0' : u - 'a' + 10);
    }
    return v;
  };
  std::size_t colon = text.find(':');
  std::uint32_t domain = hex_value(text.substr(0, colon));
  std::uint32_t bus = hex_value(text.substr(colon + 1, 2));
  std::uint32_t device = hex_value(text.substr(colon + 4, 2));
  std::uint32_t function = text.size() > colon + 6 ? hex_value(text.substr(colon + 7, 1)) : 0;
  if (domain > 0xffff || device > 0x1f || function > 7) return {};  // as NormalizePciBusId
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(domain >> shift) & 15];
  out += ':';
  out += kHex[bus >> 4];
  out += kHex[bus & 15];
  out += ':';
  out += kHex[device >> 4];
  out += kHex[device & 15];
  out += '.';
  out += kHex[function & 15];
  return out;
}

std::pair<std::string, std::string> KernelPciProblem(std::string_view text) {
  std::string_view found = FindPci(text);
  if (found.empty() || !NormalizeKernelPci(found).empty()) return {};
  std::string full(found);
  if (full.find('.') == std::string::npos) full += ".0";
  std::string why = PciBusIdProblem(full);
  if (why.empty()) why = "malformed";
  return {std::string(found), why};
}

}  // namespace gpudoctor::kevents
