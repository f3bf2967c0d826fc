// The catalog of kernel-log messages: what a line means. One table row per
// message (or family of messages), in kernel_catalog.cpp:
//  - where it is printed: after "NVRM:" (the NVIDIA driver's lines,
//    kNvrmMessages) or anywhere else (kOtherMessages);
//  - the event kind it gives and how its fields are read: a fixed text
//    (any of a few, or one at the start) with a fixed detail and the line's
//    bus id, or a function that reads them;
//  - the words the prefilter searches for (kernel_prefilter.h): a line that
//    holds none of the catalog's words is never read, so every line of
//    every row holds one ("NVRM" for the NVRM rows);
//  - for a message of several lines, which lines continue it;
//  - an example line, which the tests read with the catalog.
// The rows are tried in order and the first that reads a line gives its
// event. A new message is one row: the prefilter's needles, the matchers
// (MatchNvrm, MatchOther) and the continuation rules take it from there.
// Also here: the second event some Xids yield (Xid 79, 119, 154) and what
// the three-line probe message becomes. How events fold, and the state a
// scan carries, are kernel_scan_rules.h's.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "parse/kernel_text.h"

namespace gpudoctor::kevents {

// What one line says, before multi-line grouping and folding.
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
// a new one: indented bodies, RPC history tables, crash-dump notes, and the
// lines the row of open's kind says continue it.
bool IsNvrmFollowUp(std::string_view nvrm, const KernelEvent& open);
// Whether a non-NVRM line continues `open` (the row of its kind says: SXid
// detail lines, AER detail lines, NCCL watchdog follow-ups).
bool IsOtherFollowUp(std::string_view message, const KernelEvent& open);

// The words a line must hold to be read at all (the prefilter's needles):
// every row's, "NVRM", "Xid" (lines that mention an Xid are counted),
// journald JSON's byte-array "\"MESSAGE\":[" (its text cannot be searched)
// and nvidia-smi's messages (nvsmi_messages.h). Each once, in the catalog's
// order.
std::vector<std::string_view> KernelLineWords();

// A row, as the tests walk the catalog.
struct CatalogRow {
  std::string_view name;
  bool nvrm = false;          // printed after "NVRM:"
  KernelEventKind kind = KernelEventKind::kXid;
  std::string_view example;   // a line the row reads
};
std::vector<CatalogRow> KernelCatalogRows();
// The index in KernelCatalogRows() of the row that reads a line whose
// message (after its prefix) is `message`: the NVRM rows when it holds
// "NVRM:", else the others. nullopt: no row.
std::optional<std::size_t> CatalogRowOf(std::string_view message, std::string_view ident = {});

// The second event an Xid line yields, of the same time and place: Xid 79
// -> kFallenOffBus ("Xid 79"), Xid 154 -> kRecoveryAction (the Xid's
// detail: the recovery action), Xid 119 with an RPC timeout text ->
// kGspTimeout (the RPC function). Its kind, and its detail into `detail`;
// nullopt when there is none. `message`, `xid_detail`: the Xid event's.
std::optional<KernelEventKind> XidDerivedEvent(int code, std::string_view message,
                                               std::string_view xid_detail, std::string& detail);
// Whether an Xid of `code` has its causes (its own and the derived one)
// fixed by its bytes up to the pid ("NVRM: Xid (PCI:0000:3b:00): 13,
// pid="): false when the message gives a detail (Xid 119, 154).
bool XidCausesFixedByHeader(int code);

// The three-line probe message ("The NVIDIA GPU 0000:3b:00.0 ...", "...
// has fallen off the bus and is not responding ..." or "... is not
// supported ..."): whether an NVRM line (after "NVRM:") continues it after
// `lines_so_far` lines, and what it becomes once its lines are in: its kind
// and detail from its continuation lines.
bool ProbeMessageContinues(std::string_view nvrm, int lines_so_far);
void ProbeMessageEvent(const std::vector<std::string>& continuation, KernelEventKind& kind,
                       std::string& detail);

// A line that continues an open PCIe AER event (IsOtherFollowUp): whether
// it names NVIDIA (into `nvidia`), the severity when the head had none, a
// Surprise Down.
void AddAerDetailLine(std::string_view message, std::string_view ident, KernelEvent& open,
                      bool& nvidia);

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

}  // namespace gpudoctor::kevents
