// The kernel-log scan's rules: how the lines the catalog reads
// (kernel_catalog.h) become events, and the state that carries from
// one line to the next. What a line continues (multi-line messages, the
// three-line probe message), the second event some Xid lines yield, an OOM
// kill paired with the line that invoked it, PCIe AER bursts
// (kernel_events_aer.h), the bus id of a GSP line's "GPUn", relative stamps
// added up, and repeats folded per cause within the bounds of
// kernel_events.h.
//
// Meaning only. Two questions are asked of a subclass: how a line's prefix
// is parsed (ParseLine) and what the catalog says the line is (MatchLine),
// so that it may memoise them; and a subclass may count an event in a
// shortcut of its own when it gives the same events (CloseShortcut, Opened).
// The production scan (kernel_scan_fast.h) is such a subclass; the tests'
// reference (tests/support/kernel_scan_reference.h) answers directly and
// takes no shortcut, and the two must find the same events.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "parse/flat_hash_set.h"
#include "parse/kernel_events.h"
#include "parse/kernel_events_aer.h"
#include "parse/kernel_catalog.h"

namespace gpudoctor::kscan {

// An occurrence as the fold reads it: an event's, or a line's read in place
// (its process and message views into the line).
struct FoldOccurrence {
  std::optional<std::int64_t> pid;
  std::string_view process, message;
  std::optional<WallTime> time, last_time;
  std::optional<double> monotonic_s, last_monotonic_s;
  std::size_t count = 1;
};

inline FoldOccurrence OccurrenceOf(const KernelEvent& e) {
  return FoldOccurrence{e.pid,       e.process,     e.message,          e.time,
                        e.last_time, e.monotonic_s, e.last_monotonic_s, e.count};
}

// Whether `prev` and `next` are repeats of one line, given the same cause:
// the same process and message.
inline bool SameLine(const KernelEvent& prev, const FoldOccurrence& next) {
  return prev.pid.value_or(-1) == next.pid.value_or(-1) && prev.process == next.process &&
         prev.message == next.message;
}

// Clears `ev` for reuse, keeping the capacity of its strings and vectors.
void ResetEvent(KernelEvent& ev);

// CutEvidenceLine into `out`, reusing its buffer.
void CutEvidenceLineInto(std::string_view line, std::string& out);

class ScanRules {
 public:
  // opts.time.year <= 0: the current year (UTC) for year-less stamps.
  explicit ScanRules(ExtractOptions opts);
  virtual ~ScanRules();
  ScanRules(const ScanRules&) = delete;
  ScanRules& operator=(const ScanRules&) = delete;

  // One line. `time`, `monotonic_s`: as its source knows them. `parsed`:
  // the line's parse in options().time (nullptr: parse it here).
  // `record_time`: the time of the record the line came in (a JSON
  // document's, a journal export's). `needle_known`: the caller found a
  // prefilter needle in the line (kernel_prefilter.h; else it is searched).
  void AddLine(std::string_view text, const SourceRef& ref, std::optional<WallTime> time,
               std::optional<double> monotonic_s, const KernelLine* parsed = nullptr,
               std::optional<WallTime> record_time = std::nullopt, bool needle_known = false);
  // A line that cannot matter went by: it ends the open event.
  void Break() { Close(); }
  // A line that holds no event but may hold the time (dmesg -H).
  void NoteTime(std::string_view text);
  std::vector<KernelEvent> Finish();

  const ExtractOptions& options() const { return opts; }
  bool relative_mode() const { return relative; }
  std::size_t events_so_far() const { return out.size(); }
  std::size_t events_left_out() const { return left_out_events; }
  const GpuLineStats& gpu_line_stats() const { return gpu_lines; }
  const std::vector<NvsmiMessage>& nvsmi_messages() const { return nvsmi; }

 protected:
  // ParseKernelLine's answer for `text`.
  virtual KernelLine ParseLine(std::string_view text, const LineTimeContext& ctx) = 0;
  // The catalog's answer: MatchNvrm(text) when `nvrm` (text: after
  // "NVRM:"; ident empty), else MatchOther(text, ident).
  virtual std::optional<kevents::LineMatch> MatchLine(bool nvrm, std::string_view ident,
                                                      std::string_view text) = 0;
  // The open event is about to close: true when the subclass has counted
  // it (into the events and their causes, as Close would); it is dropped.
  virtual bool CloseShortcut() = 0;
  // A line opened the open event from `message` (its text from "NVRM:" on
  // when `nvrm`); `timed`: its source or record gave its time.
  virtual void Opened(std::string_view message, bool nvrm, bool timed) = 0;

  // Per cause (kind, code, GPU, detail): its separate events so far and the
  // latest, into which a flood's further variants are counted.
  struct Cause {
    std::size_t events = 0;
    std::size_t latest = 0;
    std::vector<std::size_t> members;  // its separate events (at most kEventsPerCause)
  };

  void Close();
  // The cause (kind, ev's code and GPU, detail) when it already has all the
  // separate events it may have (Append would count a new one into its
  // latest), else null.
  Cause* SaturatedCause(KernelEventKind kind, const KernelEvent& ev, std::string_view detail);
  // An occurrence that differs from the cause's latest event counted into it.
  void CountInto(const Cause& cause, const FoldOccurrence& ev);
  // `ev` counted into `prev` when within the fold window of its last occurrence.
  bool FoldRepeat(KernelEvent& prev, const FoldOccurrence& ev);
  // The bus id of a GSP line's "GPUn", when a line paired them.
  void FillBus(KernelEvent& ev);
  void CountGpuLine(bool decoded, const SourceRef& ref, std::string_view message);

  ExtractOptions opts;

  // What the scan found: the events, their causes, and each line's latest
  // separate event.
  std::vector<KernelEvent> out;
  std::unordered_map<std::string, std::size_t> fold_index;  // fold key -> index in out
  std::unordered_map<std::string, Cause> causes;             // cause key -> its events
  FlatHashSet64 left_out_processes;  // (event, pid, name) hashes counted as left out
  std::size_t left_out_events = 0;
  GpuLineStats gpu_lines;
  std::vector<NvsmiMessage> nvsmi;

  // The open event, whose next lines may follow it.
  std::optional<KernelEvent> open;
  bool open_nvrm = false;
  bool open_probe_head = false;  // "The NVIDIA GPU ..." waiting for its next lines
  bool open_nvidia = true;       // false: an AER group not (yet) known to be NVIDIA's
  int open_probe_lines = 0;

  // What carries from line to line.
  bool relative = false;                   // dmesg -H seen
  std::optional<WallTime> last_wall;       // running time for relative stamps
  std::optional<std::size_t> oom_invoked;  // "X invoked oom-killer" waiting for its victim
  kevents::AerBurst aer_burst;             // which port AER events are a GPU's
  std::map<int, std::string> bus_of_gpu_number;  // "GPU4" -> bus id, as lines pair them

  // Reused buffers, no meaning: a flood's lines reuse them instead of
  // allocating strings per line. `spare` is the last closed event.
  struct Buffers {
    std::string key, cause_key, derived_detail;
    KernelEvent spare;
  } buf;

 private:
  std::optional<WallTime> TimeOf(const KernelLine& kl);
  // Both may move from `ev` (when it becomes an event of its own).
  void Emit(KernelEvent& ev);
  void Fold(KernelEvent& ev);
  std::optional<std::size_t> Append(KernelEvent& ev);
  bool Continues(const KernelLine& kl, std::string_view nvrm, bool is_nvrm);
  void Open(const kevents::LineMatch& m, std::string_view message, bool is_nvrm,
            const SourceRef& ref, std::optional<WallTime> t, std::optional<double> mono);
};

}  // namespace gpudoctor::kscan
