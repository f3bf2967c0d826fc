// NVRM lines: Xid, fallen off the bus, RmInitAdapter, GSP timeouts and
// heartbeats, driver load, GPU UUID, probe failures.
#include <algorithm>
#include <cctype>

#include "core/gpu_status.h"
#include "parse/kernel_events_match.h"
#include "parse/text_cursor.h"

namespace gpudoctor::kevents {
namespace {

// isxdigit's answer (hex digits are the same in every locale), inline: a
// flood's every NVRM line is searched for a PCI address byte by byte.
bool IsHex(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u >= '0' && u <= '9') || ((u | 0x20) >= 'a' && (u | 0x20) <= 'f');
}

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

// "Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)." -> "103 (GSP_RM_ALLOC)";
// later drivers put "sequence 5" before the data.
std::string RpcFunction(std::string_view s) {
  auto at = s.find("Expected function ");
  if (at == std::string_view::npos) return {};
  std::string_view f = s.substr(at + 18);
  auto end = std::min(f.find(" (0x"), f.find(" sequence "));
  if (end == std::string_view::npos) end = f.find_first_of(".!");
  return std::string(f.substr(0, end));
}

// Xid 154: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)". The
// value decides, not the text (610-series drivers print other words).
std::string RecoveryAction(std::string_view s) {
  static constexpr std::string_view kNames[] = {
      "None",      "GPU Reset Required", "Node Reboot Required",
      "Drain P2P", "Drain and Reset",    "Recover IMEX Domain"};
  auto at = s.find(" to 0x");
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + 6);
  unsigned value = 0;
  std::size_t n = 0;
  while (n < v.size() && IsHex(v[n]) && n < 8) {
    char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(v[n++])));
    value = value * 16 + static_cast<unsigned>(ch <= '9' ? ch - '0' : ch - 'a' + 10);
  }
  if (n > 0 && value < std::size(kNames)) return std::string(kNames[value]);
  auto open = v.find('('), close = v.find(')');
  if (open != std::string_view::npos && close > open) {
    return std::string(v.substr(open + 1, close - open - 1));
  }
  return std::string(v.substr(0, n));
}

// "Xid (PCI:0000:a1:00 GPU-I:01): 79, pid='<unknown>', name=<unknown>, msg".
std::optional<LineMatch> MatchXid(std::string_view s) {
  TextCursor c(s);
  if (!c.Lit("Xid (")) return std::nullopt;
  auto close = c.rest().find("): ");
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inside = c.rest().substr(0, close);
  c.set_pos(c.pos() + close + 3);
  int code = 0;
  if (!c.Int(code, 1, 6)) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kXid;
  m.code = code;
  if (inside.substr(0, 4) == "PCI:") inside.remove_prefix(4);
  auto space = inside.find(' ');
  m.pci = NormalizeKernelPci(inside.substr(0, space));
  if (space != std::string_view::npos) m.detail = std::string(TrimLeft(inside.substr(space)));
  c.Lit(',');
  c.SkipSpaces();
  if (c.Lit("pid=")) {
    std::string_view pid;
    auto comma = c.rest().find(',');
    pid = c.rest().substr(0, comma);
    std::uint64_t v = 0;
    TextCursor pc(pid);
    if (pc.Uint64(v) && pc.done()) m.pid = static_cast<std::int64_t>(v);
    c.set_pos(c.pos() + (comma == std::string_view::npos ? pid.size() : comma + 1));
    c.SkipSpaces();
  }
  if (c.Lit("name=")) {
    auto comma = c.rest().find(", ");
    std::string_view name = c.rest().substr(0, comma);
    if (name != "<unknown>") m.process = std::string(name);
    c.set_pos(c.pos() + (comma == std::string_view::npos ? name.size() : comma + 2));
  }
  m.message = c.rest();
  if (code == 154) m.detail = RecoveryAction(m.message);
  return m;
}

LineMatch Make(KernelEventKind kind, std::string_view pci_source, std::string detail = {}) {
  LineMatch m;
  m.kind = kind;
  m.pci = NormalizeKernelPci(FindPci(pci_source));
  m.detail = std::move(detail);
  return m;
}

// "loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb ..." -> version.
std::string DriverVersion(std::string_view s) {
  auto at = s.find("Module");
  if (at == std::string_view::npos) return {};
  TextCursor c(s, at);
  std::string_view tok;
  while (c.SkipSpaces(), c.Token(tok)) {
    if (TextCursor::IsDigit(tok.front()) && Has(tok, ".")) return std::string(tok);
  }
  return {};
}

std::optional<LineMatch> MatchGpuAt(std::string_view s) {
  // "GPU at PCI:0000:a1:00: GPU-979426f2-..." (and without "PCI:")
  auto uuid = s.find(": GPU-");
  if (uuid == std::string_view::npos) return std::nullopt;
  LineMatch m = Make(KernelEventKind::kGpuUuid, s.substr(0, uuid + 1));
  std::string_view u = s.substr(uuid + 2);
  m.detail = std::string(u.substr(0, u.find(' ')));
  return m;
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

// "nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446",
// "nvCheckFailedNoLog: Check failed: pKernelChannel != NULL @ kernel_gsp.c:640":
// the driver's check on its GSP channel failed -> "assertion at kernel_gsp.c:1446".
std::string GspAssertion(std::string_view s) {
  if (!Has(s, "Assertion failed") && !Has(s, "Check failed")) return {};
  auto at = s.find("@ kernel_gsp.c:");
  if (at == std::string_view::npos) return {};
  std::string_view where = s.substr(at + 2);
  std::size_t end = 13;  // past "kernel_gsp.c:"
  while (end < where.size() && TextCursor::IsDigit(where[end])) ++end;
  return "assertion at " + std::string(where.substr(0, end));
}

// GSP trouble printed without an Xid (kernel_gsp.c, kern_gmmu.c): the
// timeout banner, memory-subsystem errors found while GSP timed out, the PMU
// halting, a failed assertion in kernel_gsp.c. RPC timeouts and heartbeats
// are matched below.
std::optional<LineMatch> MatchGspOther(std::string_view s) {
  std::string detail;
  if (std::string assertion = GspAssertion(s); !assertion.empty()) {
    detail = std::move(assertion);
  } else if (Has(s, "* GSP Timeout *")) {
    detail = "GSP Timeout";
  } else if (Has(s, "Memory Subsystem Error detected")) {
    detail = "memory subsystem error";
  } else if (Has(s, "PMU has halted")) {
    detail = "PMU halted";
  } else {
    return std::nullopt;
  }
  return Make(KernelEventKind::kGspTimeout, "", detail);
}

std::optional<LineMatch> MatchNvrmLine(std::string_view s) {
  if (auto x = MatchXid(s)) return x;
  if (Has(s, "fallen off the bus")) return Make(KernelEventKind::kFallenOffBus, s);
  if (s.substr(0, 15) == "The NVIDIA GPU ") {
    LineMatch m = Make(KernelEventKind::kProbeFailed, s);
    m.probe_head = true;
    return m;
  }
  if (s.substr(0, 24) == "The NVIDIA probe routine") {
    auto n = s.find(" for ");
    std::string detail(n == std::string_view::npos ? s : s.substr(n + 5));
    while (!detail.empty() && detail.back() == '.') detail.pop_back();
    return Make(KernelEventKind::kProbeFailed, "", detail);
  }
  if (auto at = s.find("RmInitAdapter failed!"); at != std::string_view::npos) {
    std::string_view codes = TrimLeft(s.substr(at + 21));
    return Make(KernelEventKind::kRmInitFailed, s.substr(0, at),
                std::string(codes.substr(0, codes.find(' '))));
  }
  if (Has(s, "Cannot initialize GSP firmware RM")) {
    return Make(KernelEventKind::kRmInitFailed, s, "GSP firmware init");
  }
  if (Has(s, "waiting for RPC")) return Make(KernelEventKind::kGspTimeout, s, RpcFunction(s));
  if (s.substr(0, 33) == "Rate limiting GSP RPC error print") {
    return Make(KernelEventKind::kGspTimeout, s, "rate limited");
  }
  if (Has(s, "eartbeat timed out")) return Make(KernelEventKind::kGspHeartbeat, "");
  if (s.substr(0, 19) == "loading NVIDIA UNIX") {
    return Make(KernelEventKind::kDriverLoaded, "", DriverVersion(s));
  }
  if (s.substr(0, 7) == "GPU at ") return MatchGpuAt(s);
  // The driver could not set up NVLink with its peers after link training
  // (kernel_nvlink_gh100.c and later): "knvlinkUpdatePostRxDetectLinkMask_IMPL:
  // Failed to update Rx Detect Link mask!", "knvlinkDiscoverPostRxDetLinks_GH100:
  // Getting peer0's postRxDetLinkMask failed!".
  if (Has(s, "Failed to update Rx Detect Link mask") || Has(s, "postRxDetLinkMask failed")) {
    return Make(KernelEventKind::kNvlinkRxDetect, "", "");
  }
  return MatchGspOther(s);
}

std::optional<int> GpuNumberIn(std::string_view nvrm) {
  std::string_view s = TrimLeft(nvrm);
  // At the start: "GPU4 RPC history"; inside a line only as " GPUn GSP".
  std::size_t at = 0;
  bool leading = s.substr(0, 3) == "GPU";
  if (!leading) {
    at = Find(s, " GPU");
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  std::size_t digits = 0;
  while (at + 3 + digits < s.size() && digits < 4 && TextCursor::IsDigit(s[at + 3 + digits])) {
    ++digits;
  }
  std::size_t after = at + 3 + digits;
  if (digits == 0 || after >= s.size() || s[after] != ' ') return std::nullopt;
  if (!leading && s.substr(after + 1, 3) != "GSP") return std::nullopt;
  int n = 0;
  for (std::size_t i = 0; i < digits; ++i) n = n * 10 + (s[at + 3 + i] - '0');
  return n;
}

std::optional<LineMatch> MatchNvrm(std::string_view nvrm) {
  std::string_view s = TrimLeft(nvrm);
  std::optional<int> number = GpuNumberIn(s);
  // "GPU0 _kgspRpcGspEventPmuHalted: ...": the message after the number.
  std::string_view rest = s;
  if (number && s.substr(0, 3) == "GPU") rest = TrimLeft(s.substr(s.find(' ')));
  auto m = MatchNvrmLine(rest);
  if (m) m->gpu_number = number;
  return m;
}

std::string RecoveryActionOf(std::string_view message) { return RecoveryAction(message); }
std::string RpcFunctionOf(std::string_view message) { return RpcFunction(message); }

bool IsNvrmFollowUp(std::string_view nvrm, const KernelEvent& open) {
  if (nvrm.substr(0, 3) == "   ") return true;  // "NVRM:     entry function ..."
  std::string_view s = TrimLeft(nvrm);
  for (std::string_view lead : {"GPU Board Serial Number", "A GPU crash dump has been created",
                                "nvidia-bug-report.sh as root", "the NVIDIA kernel module is"}) {
    if (s.substr(0, lead.size()) == lead) return true;
  }
  // "GPU4 GSP RPC buffer contains", "GPU4 RPC history", "GPU4 RPC event history"
  if (s.substr(0, 3) == "GPU" && s.size() > 3 && TextCursor::IsDigit(s[3]) &&
      (Has(s, " RPC history") || Has(s, " RPC event history") || Has(s, "RPC buffer contains"))) {
    return true;
  }
  if (open.kind == KernelEventKind::kGspHeartbeat && Has(s, "eartbeat")) return true;
  if (open.kind == KernelEventKind::kGspTimeout && open.detail == "GSP Timeout" &&
      Has(s, "Note: Please also check logs above")) {
    return true;  // after the function name NV_PRINTF puts first
  }
  if (open.kind == KernelEventKind::kXid && Has(s, "PMU has halted")) return true;
  // The device line that follows an Xid 79 line (not another Xid 79 line of
  // the same GPU, which says "fallen off the bus" too: that is a repeat).
  if (open.kind == KernelEventKind::kXid && open.code == 79 && s.substr(0, 4) != "Xid " &&
      Has(s, "fallen off the bus")) {
    return NormalizeKernelPci(FindPci(s)) == open.pci_bus_id;
  }
  return false;
}

}  // namespace gpudoctor::kevents
