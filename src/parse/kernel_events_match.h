// Internal to the kernel-event extractor: what one message line says, before
// multi-line grouping and folding. Split by source: NVRM (NVIDIA kernel
// driver) lines in kernel_events_nvrm.cpp, everything else in
// kernel_events_other.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/kernel_event.h"

namespace gpudoctor::kevents {

struct LineMatch {
  KernelEventKind kind = KernelEventKind::kXid;
  std::optional<int> code;
  std::string pci;  // normalised "dddd:bb:dd.f"
  std::optional<int> gpu_number;  // "GPU4" in the line (the driver's instance number)
  std::optional<std::int64_t> pid;
  std::string process;
  std::string detail;
  std::string_view message;  // empty: use the line's message (a view into the line)
  bool probe_head = false;  // "The NVIDIA GPU ..." waiting for its next lines
  bool nvidia = true;       // false: an AER group not (yet) known to be NVIDIA's
};

// `nvrm` is the text after "NVRM:" (leading spaces kept).
std::optional<LineMatch> MatchNvrm(std::string_view nvrm);
std::optional<LineMatch> MatchOther(std::string_view message, std::string_view ident);

// Whether an NVRM line continues the open event `open` rather than starting
// a new one: indented bodies, RPC history tables, crash-dump notes, ...
bool IsNvrmFollowUp(std::string_view nvrm, const KernelEvent& open);
// Whether a non-NVRM line continues `open` (SXid detail lines, AER detail
// lines, NCCL watchdog follow-ups).
bool IsOtherFollowUp(std::string_view message, const KernelEvent& open);

// An AER line printed by the nvidia driver or naming an NVIDIA device id.
bool IsNvidiaAerLine(std::string_view message);
// An AER status line naming a Surprise Down error ("[ 5] SDES", or the
// older kernels' "Surprise Down Error").
bool IsSurpriseDownLine(std::string_view message);

// The `detail` of the PCIe AER events that report recovery, not an error.
inline constexpr std::string_view kAerCantRecover = "can't recover";
inline constexpr std::string_view kAerRecoveryFailed = "recovery failed";
inline constexpr std::string_view kAerLinkReset = "link reset";
// Appended to an error's severity when its status bits name Surprise Down.
inline constexpr std::string_view kAerSurpriseDown = ", surprise down";
// The driver's GPU instance number a GSP line names: "GPU4 RPC history ...",
// "... RPC response from GPU0 GSP!", "GPU0 _kgspRpcGspEventPmuHalted: ...".
std::optional<int> GpuNumberIn(std::string_view nvrm);

// Xid 154 recovery action name ("Node Reboot Required") from its message.
std::string RecoveryActionOf(std::string_view message);
// Xid 119 RPC function ("103 (GSP_RM_ALLOC)") from a GSP timeout message.
std::string RpcFunctionOf(std::string_view message);

// "PCI:0000:a1:00", "0000:a1:00", "00000000:86:00.0" -> "0000:a1:00.0";
// empty when malformed.
std::string NormalizeKernelPci(std::string_view text);
// The first PCI address in `text` ("dddd:bb:dd" with optional ".f"), or "".
std::string_view FindPci(std::string_view text);
// An address in `text` (FindPci) that NormalizeKernelPci refuses, as printed,
// and why it is not a PCI bus id ("device 0x25 is above 0x1f"); empty strings
// when there is none or it is one.
std::pair<std::string, std::string> KernelPciProblem(std::string_view text);

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
