// Kernel-log events (Xid, SXid, fallen off the bus, GSP, NCCL, AER, OOM,
// fabric manager, ...) from lines in any format kernel_line.h reads.
// Which messages are which event is the catalog (kernel_catalog.h, a row
// per message); how lines group and fold into events, kernel_scan_rules.h;
// what makes a large log cheap, kernel_scan_fast.h (the flood's shortcuts)
// and kernel_scan_buffer.cpp (the needle search ahead of the scanner).
//
// What becomes an event, and what each field holds:
//  - Every Xid line is a kXid event: code, pci ("dddd:bb:dd.f"), pid and
//    process when the line names them ('<unknown>' -> none), `message` = the
//    Xid text after pid/name, `detail` = the MIG suffix ("GPU-I:01") or, for
//    Xid 154, the recovery action.
//  - Some Xid lines also yield a second, derived event of the same time and
//    place: Xid 79 -> kFallenOffBus, Xid 119 with an RPC timeout text ->
//    kGspTimeout (detail = RPC function), Xid 154 -> kRecoveryAction (detail =
//    "GPU Reset Required", "Node Reboot Required", "Drain and Reset", ...).
//  - A multi-line message (indented continuation lines, RPC history tables,
//    register dumps, crash-dump notes, the three-line probe-time "fallen off
//    the bus" message, SXid/AER detail lines) is one event; the lines after
//    the first go to `continuation`. The device line that follows an Xid 79
//    line belongs to the Xid event.
//  - GSP lines that name the GPU only by the driver's number ("GPU0
//    _kgspRpcGspEventPmuHalted: ...", "... RPC response from GPU0 GSP!")
//    carry it in gpu_number; their pci_bus_id is filled in when a line of the
//    log pairs that number with a bus id (an Xid line holding "from GPUn
//    GSP", "GPUn RPC history" under an Xid). GSP trouble without an Xid: the
//    "GSP Timeout" banner, "Memory Subsystem Error detected", "PMU has
//    halted" (kGspTimeout, detail "GSP Timeout", "memory subsystem error",
//    "PMU halted"), RPC timeouts (detail: the RPC function), heartbeat
//    timeouts (kGspHeartbeat).
//  - Repeats of the same kind/code/pci/pid/process/message/detail fold into
//    the first occurrence (count, last_time) when they come within
//    fold_window_s of the previous one (always, when times are unknown).
//  - PCIe AER events are kept only when a line of the group names the nvidia
//    driver or an NVIDIA device id (10de), or when they are the lines of the
//    port above such a device in the same burst (kernel_events_aer.h; they
//    then carry the GPU's bus id). `detail` is the severity ("corrected",
//    "uncorrected non-fatal", "uncorrected fatal", with ", surprise down"
//    appended when the status bits say so), or for the recovery lines
//    "can't recover" (no error_detected callback), "recovery failed",
//    "link reset". With ExtractOptions::aer_owner (live logs), an event
//    about a GPU's own bus id or the port above only that GPU is the GPU's.
// Pure: no I/O. Not thread-safe per scanner; separate scanners are independent.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "parse/kernel_line.h"
#include "parse/log_record.h"
#include "parse/nvsmi_messages.h"

namespace gpudoctor {

namespace kscan {
class FastScan;
}

struct ExtractOptions {
  LineTimeContext time;  // year (0: this year, UTC) and UTC offset for stamps that lack them
  bool fold_repeats = true;
  double fold_window_s = 300;  // repeats further apart stay separate events
  // Live logs only (this machine's PCI tree, facts/pci.h
  // AerOwnerOfBus): bus id -> the GPU an AER event naming it concerns. An
  // AER event whose bus id is listed is that GPU's even when no line of its
  // burst names the nvidia driver or an NVIDIA device id.
  std::map<std::string, std::string> aer_owner;
};

// Lines that mention NVRM or Xid: how many were read as (part of) an event,
// how many were not, and the first of those.
struct GpuLineStats {
  std::size_t decoded = 0;
  std::size_t undecoded = 0;
  SourceRef first_undecoded;
  std::string first_undecoded_text;  // its message, at most 300 bytes
};

inline constexpr std::size_t kMaxNvsmiMessages = 256;

// Bounds that keep a flood's cost in time, not memory (a million lines of
// one Xid are one event with a count):
//  - a cause (kind, code, GPU, detail) keeps at most kEventsPerCause
//    separate events (lines that differ in process or message, or repeats
//    further apart than fold_window_s); further occurrences are counted into
//    its latest event (count, last time, varied_count, other_processes);
//  - at most kMaxKernelEvents events in all; a new cause beyond them is
//    counted in events_left_out();
//  - a message or continuation line longer than kMaxEvidenceLineBytes is cut
//    (CutEvidenceLine), a multi-line message keeps kMaxContinuationLines;
//  - distinct processes beyond an event's kMaxOtherProcesses are counted
//    exactly while the scanner has seen fewer than
//    kMaxLeftOutProcessesTracked of them, and as a floor after.
inline constexpr std::size_t kEventsPerCause = 8;
inline constexpr std::size_t kMaxKernelEvents = 4096;
inline constexpr std::size_t kMaxEvidenceLineBytes = 400;
inline constexpr std::size_t kMaxContinuationLines = 64;
inline constexpr std::size_t kMaxLeftOutProcessesTracked = 1u << 16;

// `line` itself when at most kMaxEvidenceLineBytes, else its first bytes (not
// splitting a UTF-8 sequence) and " [... cut: the line has N bytes]". Pure.
std::string CutEvidenceLine(std::string_view line);

// A line of a buffer that holds a needle, as ScanKernelLogBuffer feeds it
// to the scanner (FindKernelCandidates).
struct KernelCandidate {
  std::size_t start = 0, size = 0;  // its bytes in the buffer
  std::size_t line = 0;             // 0-based, within the buffer
  bool break_before = false;        // lines without a needle lie before it
  bool parsed = false;              // not a record: `parse` is its parse
  // Where its first needle is "NVRM: Xid": that needle's offset in the
  // line and that of the next needle in it (npos: none); npos otherwise.
  std::size_t needle_at = std::string_view::npos, later_needle_at = std::string_view::npos;
  KernelLine parse;                 // in the scanner's time_context()
};

// The candidate lines of a buffer of whole lines, in order, and where the
// rest must be scanned line by line with the scanner's state at hand (from
// the first candidate that may switch it to relative stamps: dmesg -H, or a
// record whose text starts with a stamp).
struct KernelCandidates {
  std::vector<KernelCandidate> lines;
  bool break_at_end = false;        // lines without a needle end the buffer
  std::size_t stop = std::string_view::npos;  // offset of the rest; npos: none
  std::size_t stop_line = 0;        // its line, 0-based
  std::size_t line_count = 0;       // the buffer's lines (before `stop` when there is one)
};

// Pure (the parser is a memo): may run on another thread than the scanner,
// given the scanner's time_context(). `log_start`: the buffer begins the log.
void FindKernelCandidates(std::string_view text, bool log_start, const LineTimeContext& ctx,
                          KernelLineParser& parser, KernelCandidates& out);

// Streaming extractor: feed lines in order, then Finish().
// Lines may be JSON or logfmt records (log_record.h): their text is read
// as the line, their time used when the text has none. "NVRM:" is found
// wherever it stands in a line. What lines mean and how they fold is
// kernel_scan_rules.h; what makes a flood cheap, kernel_scan_fast.h.
class KernelEventScanner {
 public:
  explicit KernelEventScanner(ExtractOptions opts = {});
  ~KernelEventScanner();
  KernelEventScanner(const KernelEventScanner&) = delete;
  KernelEventScanner& operator=(const KernelEventScanner&) = delete;

  void AddLine(const LogLine& line);
  // Same, without building a LogLine. `time`/`monotonic_s` as the source knows them.
  void AddText(std::string_view text, const SourceRef& ref,
               std::optional<WallTime> time = std::nullopt,
               std::optional<double> monotonic_s = std::nullopt);
  // AddText for a line in which NextKernelNeedle found a needle. A caller
  // that searched the line may say what it found: `needle_at`, the offset
  // of the line's first needle, and `later_needle_at`, that of the first
  // needle starting at or after needle_at + 7 (npos: none in the line);
  // needle_at npos: not searched (the scanner searches itself).
  void AddCandidate(std::string_view text, const SourceRef& ref,
                    std::size_t needle_at = std::string_view::npos,
                    std::size_t later_needle_at = std::string_view::npos);
  // A record from a JSON document or journal export: its time is used when
  // its text has no stamp of its own.
  void AddRecord(const LogRecord& record, const SourceRef& ref);
  // The candidates FindKernelCandidates found in `text` (up to their stop),
  // the buffer's first line being line number first_line: what
  // ScanKernelLogBuffer feeds for them.
  void AddCandidates(std::string_view text, const std::string& file, std::size_t first_line,
                     const KernelCandidates& candidates);
  // A line that cannot matter went by (it ends a multi-line message).
  void Break();
  // The context stamps without a year or zone are read in.
  const LineTimeContext& time_context() const;
  // True when relative stamps (dmesg -H) are in use: then callers that skip
  // lines must pass each skipped line to NoteTime so that times add up.
  bool tracks_relative_time() const;
  void NoteTime(std::string_view text);

  std::size_t events_so_far() const;
  // Occurrences of causes left out because the scanner held kMaxKernelEvents.
  std::size_t events_left_out() const;
  const GpuLineStats& gpu_line_stats() const;
  // nvidia-smi's messages found among the lines (nvsmi_messages.h: a shell
  // session pasted into the log), in order, with their source line; at most
  // kMaxNvsmiMessages.
  const std::vector<NvsmiMessage>& nvsmi_messages() const;
  std::vector<KernelEvent> Finish();

 private:
  std::unique_ptr<kscan::FastScan> s_;  // kernel_scan_fast.h
};

// Scans a buffer of whole lines ("...\n...\n") read from `file`, whose first
// line is line number first_line (1-based), feeding only the lines that may
// matter. Returns the number of lines in the buffer.
std::size_t ScanKernelLogBuffer(std::string_view text, const std::string& file,
                                std::size_t first_line, KernelEventScanner& scanner);

// What ScanKernelLogBuffer does once FindKernelCandidates has read the
// buffer: the candidates fed, then the rest from their stop line by line.
// Returns the number of lines in the buffer.
std::size_t FeedKernelCandidates(std::string_view text, const std::string& file,
                                 std::size_t first_line, const KernelCandidates& candidates,
                                 KernelEventScanner& scanner);

std::vector<KernelEvent> ExtractKernelEvents(const std::vector<LogLine>& lines,
                                             const ExtractOptions& opts = {});

// PCI address -> GPU UUID from kGpuUuid events (the latest wins).
std::map<std::string, std::string> PciToUuid(const std::vector<KernelEvent>& events);

// Xid 79 or any fallen-off-the-bus event.
bool IndicatesGpuLost(const KernelEvent& e);

}  // namespace gpudoctor
