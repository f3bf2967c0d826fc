#include "parse/kernel_scan_rules.h"

#include <charconv>
#include <chrono>
#include <cstring>
#include <tuple>
#include <utility>

#include "parse/kernel_prefilter.h"
#include "parse/log_record.h"

namespace gpudoctor {

void kscan::CutEvidenceLineInto(std::string_view line, std::string& out) {
  if (line.size() <= kMaxEvidenceLineBytes) {
    out.assign(line);
    return;
  }
  std::size_t keep = kMaxEvidenceLineBytes;
  // Not inside a UTF-8 sequence: back off over its continuation bytes.
  for (int i = 0; i < 3 && keep > 0 && (static_cast<unsigned char>(line[keep]) & 0xC0) == 0x80; ++i)
    --keep;
  out.assign(line.substr(0, keep));
  out += " [... cut: the line has " + std::to_string(line.size()) + " bytes]";
}

std::string CutEvidenceLine(std::string_view line) {
  std::string out;
  kscan::CutEvidenceLineInto(line, out);
  return out;
}

namespace kscan {

using kevents::LineMatch;

void ResetEvent(KernelEvent& ev) {
  ev.kind = KernelEventKind::kXid;
  ev.time.reset();
  ev.monotonic_s.reset();
  ev.code.reset();
  ev.pci_bus_id.clear();
  ev.gpu_number.reset();
  ev.pid.reset();
  ev.process.clear();
  ev.message.clear();
  ev.continuation.clear();
  ev.count = 1;
  ev.last_time.reset();
  ev.last_monotonic_s.reset();
  ev.source.file.clear();
  ev.source.line = 0;
  ev.detail.clear();
  ev.pci_not_bus_id.clear();
  ev.pci_not_bus_id_why.clear();
  ev.varied_count = 0;
  ev.other_processes.clear();
  ev.other_processes_left_out = 0;
  ev.other_processes_left_out_is_floor = false;
  ev.continuation_left_out = 0;
}

namespace {

// What makes two events one cause: kind, code, GPU and detail (the MIG
// instance, the recovery action, the AER severity, the UUID, ...).
void AppendNumber(std::string& key, std::int64_t n) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  key.append(digits, end);
}

void CauseKey(KernelEventKind kind, std::optional<int> code, std::string_view pci,
              std::string_view detail, std::string& key) {
  key.assign(KernelEventKindName(kind));
  key += '|';
  AppendNumber(key, code.value_or(-1));
  key += '|';
  key += pci;
  key += '|';
  key += detail;
}

void CauseKey(const KernelEvent& e, std::string& key) {
  CauseKey(e.kind, e.code, e.pci_bus_id, e.detail, key);
}

// Repeats of one line: the cause, the process and the message (the
// process's length keeps "a|b", "c" apart from "a", "b|c").
void FoldKey(const KernelEvent& e, std::string& key) {
  CauseKey(e, key);
  key += '|';
  AppendNumber(key, e.pid.value_or(-1));
  key += '|';
  AppendNumber(key, static_cast<std::int64_t>(e.process.size()));
  key += '|';
  key += e.process;
  key += '|';
  key += e.message;
}

// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
std::uint64_t MixProcessHash(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// (event, pid, name) for the left-out set: eight bytes of the name at a
// time, inline (a storm's every line hashes its process).
std::uint64_t ProcessHash(std::size_t event, const FoldOccurrence& e) {
  const char* p = e.process.data();
  std::size_t n = e.process.size();
  std::uint64_t h = MixProcessHash(static_cast<std::uint64_t>(e.pid.value_or(-1)) * 0x9e3779b97f4a7c15ull +
                                   static_cast<std::uint64_t>(n) * 0xbf58476d1ce4e5b9ull +
                                   static_cast<std::uint64_t>(event));
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = MixProcessHash(h ^ w);
  }
  // The last bytes shifted into a register (a copy through memory would
  // stall the load that follows it).
  std::uint64_t w = 0;
  for (std::size_t k = 0; k < n; ++k)
    w |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[k])) << (8 * k);
  return MixProcessHash(h ^ w);
}

template <typename T>
void KeepLater(std::optional<T>& last, const std::optional<T>& first, const std::optional<T>& t) {
  if (t && (!last || *t > *last) && (!first || *t >= *first)) last = t;
}

// Seconds between the last occurrence of `prev` and `next`, when both known.
std::optional<double> Gap(const KernelEvent& prev, const FoldOccurrence& next) {
  auto last = prev.last_time ? prev.last_time : prev.time;
  if (last && next.time) return std::chrono::duration<double>(*next.time - *last).count();
  auto last_mono = prev.last_monotonic_s ? prev.last_monotonic_s : prev.monotonic_s;
  if (last_mono && next.monotonic_s) return *next.monotonic_s - *last_mono;
  return std::nullopt;
}

// The part of a message after "NVRM:" wherever it stands (an unknown wrapper
// may put anything before it), or npos when not NVRM.
std::size_t NvrmStart(std::string_view msg) {
  if (msg.substr(0, 5) == "NVRM:") return 5;
  std::size_t at = msg.find("NVRM:");
  return at == std::string_view::npos ? at : at + 5;
}

int RecordYear(WallTime t) {
  return static_cast<int>(
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(t)).year());
}

// "[Feb23 16:24]" (dmesg -H): letters, then a digit with no space between.
bool LooksLikeHumanStamp(std::string_view text) {
  if (text.size() < 6 || text[0] != '[') return false;
  std::size_t i = 1;
  while (i < text.size() && i < 12 && text[i] != ' ' && !(text[i] >= '0' && text[i] <= '9')) ++i;
  return i >= 3 && i < text.size() && text[i] >= '0' && text[i] <= '9';
}

// One more line of a multi-line message, cut, up to kMaxContinuationLines.
void AddContinuation(KernelEvent& ev, std::string_view line) {
  if (ev.continuation.size() >= kMaxContinuationLines) {
    ++ev.continuation_left_out;
    return;
  }
  ev.continuation.push_back(CutEvidenceLine(line));
}

}  // namespace

ScanRules::ScanRules(ExtractOptions o) : opts(std::move(o)) {
  if (opts.time.year <= 0) {  // year-less stamps: assume the current year
    auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    opts.time.year = static_cast<int>(std::chrono::year_month_day(today).year());
  }
}

ScanRules::~ScanRules() = default;

void ScanRules::CountGpuLine(bool decoded, const SourceRef& ref, std::string_view message) {
  if (decoded) {
    ++gpu_lines.decoded;
    return;
  }
  if (gpu_lines.undecoded++ == 0) {
    gpu_lines.first_undecoded = ref;
    gpu_lines.first_undecoded_text = std::string(message.substr(0, 300));
  }
}

std::optional<WallTime> ScanRules::TimeOf(const KernelLine& kl) {
  if (kl.prefix == LinePrefix::kDmesgHuman) {
    relative = true;
    last_wall = kl.time;
  } else if (kl.relative_s) {
    relative = true;
    if (last_wall) {
      last_wall = *last_wall + std::chrono::duration_cast<std::chrono::system_clock::duration>(
                                   std::chrono::duration<double>(*kl.relative_s));
    }
    return last_wall;
  }
  return kl.time;
}

// A flood's occurrence that differs from `into` (another process, another
// message) counted into it: the count, the last time, the process.
void ScanRules::CountInto(const Cause& cause, const FoldOccurrence& ev) {
  KernelEvent& into = out[cause.latest];
  into.count += ev.count;
  into.varied_count += ev.count;
  KeepLater(into.last_time, into.time, ev.last_time ? ev.last_time : ev.time);
  KeepLater(into.last_monotonic_s, into.monotonic_s,
            ev.last_monotonic_s ? ev.last_monotonic_s : ev.monotonic_s);
  if (!ev.pid && ev.process.empty()) return;
  const std::size_t index = static_cast<std::size_t>(&into - out.data());
  // A process already counted as left out is neither one of the cause's
  // own nor among the listed ones (both lists are complete by then), so
  // it is done with: one lookup instead of both scans, as a storm's lines
  // mostly are.
  std::uint64_t hash = 0;
  const bool tracked = into.other_processes.size() >= kMaxOtherProcesses &&
                       left_out_processes.size() < kMaxLeftOutProcessesTracked;
  if (tracked && left_out_processes.Contains(hash = ProcessHash(index, ev))) return;
  for (std::size_t i : cause.members) {  // the process of one of the cause's own events
    if (ev.pid == out[i].pid && ev.process == out[i].process) return;
  }
  for (const EventProcess& known : into.other_processes) {
    if (known.pid == ev.pid && known.name == ev.process) return;  // EventProcess's ==, uncopied
  }
  if (into.other_processes.size() < kMaxOtherProcesses) {
    into.other_processes.push_back(EventProcess{ev.pid, std::string(ev.process)});
    return;
  }
  if (left_out_processes.size() >= kMaxLeftOutProcessesTracked) {
    into.other_processes_left_out_is_floor = true;
    return;
  }
  if (left_out_processes.Insert(tracked ? hash : ProcessHash(index, ev))) ++into.other_processes_left_out;
}

// A new separate event, unless its cause already has kEventsPerCause of
// them (then it is counted into the cause's latest) or the scanner holds
// kMaxKernelEvents (then a new cause is left out and counted). Returns the
// new event's index.
std::optional<std::size_t> ScanRules::Append(KernelEvent& ev) {
  CauseKey(ev, buf.cause_key);
  auto it = causes.find(buf.cause_key);
  if (it != causes.end() && (it->second.events >= kEventsPerCause || out.size() >= kMaxKernelEvents)) {
    CountInto(it->second, OccurrenceOf(ev));
    return std::nullopt;
  }
  if (out.size() >= kMaxKernelEvents) {
    left_out_events += ev.count;
    return std::nullopt;
  }
  if (it == causes.end()) it = causes.emplace(buf.cause_key, Cause{}).first;
  ++it->second.events;
  it->second.latest = out.size();
  it->second.members.push_back(out.size());
  out.push_back(std::move(ev));
  return out.size() - 1;
}

// `ev` counted into `prev`, a separate event of the same line, when within
// the fold window of its last occurrence (or when either time is unknown).
bool ScanRules::FoldRepeat(KernelEvent& prev, const FoldOccurrence& ev) {
  auto gap = Gap(prev, ev);
  if (gap && *gap > opts.fold_window_s) return false;
  prev.count += ev.count;
  prev.last_time = ev.time;
  prev.last_monotonic_s = ev.monotonic_s;
  return true;
}

ScanRules::Cause* ScanRules::SaturatedCause(KernelEventKind kind, const KernelEvent& ev,
                                            std::string_view detail) {
  CauseKey(kind, ev.code, ev.pci_bus_id, detail, buf.cause_key);
  auto it = causes.find(buf.cause_key);
  if (it == causes.end()) return nullptr;
  if (it->second.events < kEventsPerCause && out.size() < kMaxKernelEvents) return nullptr;
  return &it->second;
}

void ScanRules::FillBus(KernelEvent& ev) {
  if (ev.pci_bus_id.empty() && ev.gpu_number) {
    if (auto it = bus_of_gpu_number.find(*ev.gpu_number); it != bus_of_gpu_number.end())
      ev.pci_bus_id = it->second;
  }
}

void ScanRules::Fold(KernelEvent& ev) {
  if (!opts.fold_repeats) {  // every line its own event, within kMaxKernelEvents
    if (out.size() < kMaxKernelEvents) {
      out.push_back(std::move(ev));
    } else {
      left_out_events += ev.count;
    }
    return;
  }
  if (ev.kind == KernelEventKind::kOomKill) {
    Append(ev);
    return;
  }
  FoldKey(ev, buf.key);
  auto it = fold_index.find(buf.key);
  if (it != fold_index.end() && FoldRepeat(out[it->second], OccurrenceOf(ev))) return;
  if (auto index = Append(ev)) fold_index.insert_or_assign(buf.key, *index);
}

void ScanRules::Emit(KernelEvent& ev) {
  FillBus(ev);
  if (ev.kind == KernelEventKind::kOomKill) {
    // "X invoked oom-killer" ... "Killed process N (victim)": one event.
    bool killed = ev.detail.rfind("killed", 0) == 0;
    if (killed && oom_invoked && out[*oom_invoked].source.file == ev.source.file &&
        ev.source.line - out[*oom_invoked].source.line <= 2000) {
      KernelEvent& inv = out[*oom_invoked];
      inv.detail = ev.detail;
      inv.pid = ev.pid;
      inv.process = ev.process;
      AddContinuation(inv, ev.message);
      oom_invoked.reset();
      return;
    }
    oom_invoked.reset();
    auto index = Append(ev);
    if (!killed) oom_invoked = index;
    return;
  }
  // Some Xids yield a second event of the same time and place.
  KernelEvent derived;
  bool has_derived = false;
  if (ev.kind == KernelEventKind::kXid && ev.code) {
    if (auto kind = kevents::XidDerivedEvent(*ev.code, ev.message, ev.detail, buf.derived_detail)) {
      derived = ev;
      derived.kind = *kind;
      derived.detail = buf.derived_detail;
      has_derived = true;
    }
  }
  Fold(ev);
  if (has_derived) Fold(derived);
}

void ScanRules::Close() {
  if (!open) return;
  if (CloseShortcut()) {
    buf.spare = std::move(*open);
    open.reset();
    return;
  }
  KernelEvent ev = std::move(*open);
  open.reset();
  if (open_probe_head) kevents::ProbeMessageEvent(ev.continuation, ev.kind, ev.detail);
  if (ev.kind == KernelEventKind::kPcieAer) {
    for (KernelEvent& claimed : aer_burst.Add(std::move(ev), open_nvidia, &opts.aer_owner)) {
      Emit(claimed);
    }
    return;
  }
  Emit(ev);
  buf.spare = std::move(ev);  // its buffers, when it was folded into another
}

bool ScanRules::Continues(const KernelLine& kl, std::string_view nvrm, bool is_nvrm) {
  if (!open) return false;
  if (kl.prefix == LinePrefix::kContinuation) return true;
  if (is_nvrm) {
    if (!open_nvrm) return false;
    if (open_probe_head) return kevents::ProbeMessageContinues(nvrm, open_probe_lines);
    if (!kevents::IsNvrmFollowUp(nvrm, *open)) return false;
    // "GPU4 RPC history" under the Xid of 0000:9b:00.0: GPU4 is that GPU.
    if (auto n = kevents::GpuNumberIn(nvrm); n && !open->pci_bus_id.empty())
      bus_of_gpu_number[*n] = open->pci_bus_id;
    return true;
  }
  if (!kevents::IsOtherFollowUp(kl.message, *open)) return false;
  if (open->kind == KernelEventKind::kPcieAer)
    kevents::AddAerDetailLine(kl.message, kl.ident, *open, open_nvidia);
  return true;
}

void ScanRules::Open(const LineMatch& m, std::string_view message, bool is_nvrm,
                     const SourceRef& ref, std::optional<WallTime> t, std::optional<double> mono) {
  KernelEvent ev = std::move(buf.spare);  // its buffers, not its content
  ResetEvent(ev);
  ev.kind = m.kind;
  ev.code = m.code;
  ev.pci_bus_id.assign(m.pci);
  if (m.pci.empty()) std::tie(ev.pci_not_bus_id, ev.pci_not_bus_id_why) = kevents::KernelPciProblem(message);
  ev.gpu_number = m.gpu_number;
  if (m.gpu_number && !m.pci.empty()) bus_of_gpu_number[*m.gpu_number] = m.pci;
  ev.pid = m.pid;
  ev.process.assign(m.process);
  ev.detail.assign(m.detail);
  CutEvidenceLineInto(m.message.empty() ? message : m.message, ev.message);
  ev.source.file.assign(ref.file);
  ev.source.line = ref.line;
  ev.time = t;
  ev.monotonic_s = mono;
  open = std::move(ev);
  open_nvrm = is_nvrm;
  open_probe_head = m.probe_head;
  open_nvidia = m.nvidia;
  open_probe_lines = 0;
}

void ScanRules::AddLine(std::string_view text, const SourceRef& ref, std::optional<WallTime> time,
                        std::optional<double> monotonic_s, const KernelLine* parsed,
                        std::optional<WallTime> wrapper_time, bool needle_known) {
  if (!needle_known && !LineMayMatter(text)) {
    if (relative || LooksLikeHumanStamp(text)) NoteTime(text);
    Break();
    return;
  }
  // A JSON or logfmt record: its text is the line, its stamps the time.
  // The source's own time (journal, kmsg) first, then the line's stamp,
  // then the wrapper's.
  std::optional<LogRecord> record;
  LineTimeContext ctx = opts.time;
  if (!wrapper_time && MayBeLogRecord(text) && (record = UnwrapLogRecord(text))) {
    text = record->text;
    wrapper_time = record->time;
    if (!monotonic_s) monotonic_s = record->monotonic_s;
  }
  if (wrapper_time) ctx.year = RecordYear(*wrapper_time);  // for a year-less stamp inside
  if (nvsmi.size() < kMaxNvsmiMessages) {
    if (auto smi = MatchNvidiaSmiMessage(text)) {
      smi->line = ref.line;
      nvsmi.push_back(std::move(*smi));
    }
  }
  // The caller's parse holds for the line as given in options().time.
  if (record || wrapper_time) parsed = nullptr;
  KernelLine kl = parsed ? *parsed : ParseLine(text, ctx);
  auto t = TimeOf(kl);
  if (time) t = time;
  if (!t) t = wrapper_time;
  auto mono = monotonic_s ? monotonic_s : kl.monotonic_s;
  std::size_t at = NvrmStart(kl.message);
  bool is_nvrm = at != std::string_view::npos;
  std::string_view nvrm = is_nvrm ? kl.message.substr(at) : std::string_view();
  const bool mentions = is_nvrm || kevents::Has(kl.message, "Xid");
  // Indented NVRM lines (a pasted log, dmesg -T's aligned follow-ups) are
  // judged by what they say, like any NVRM line.
  if (kl.prefix == LinePrefix::kContinuation && is_nvrm) kl.prefix = LinePrefix::kNone;
  if (is_nvrm) kl.message = kl.message.substr(at - 5);  // from "NVRM:" on
  if (Continues(kl, nvrm, is_nvrm)) {
    AddContinuation(*open, kevents::TrimLeft(kl.message));
    if (open_probe_head) ++open_probe_lines;
    if (mentions) ++gpu_lines.decoded;
    return;
  }
  const bool was_open = open.has_value();
  Close();
  std::optional<LineMatch> m =
      kl.prefix != LinePrefix::kContinuation || !was_open
          ? MatchLine(is_nvrm, is_nvrm ? std::string_view() : kl.ident, is_nvrm ? nvrm : kl.message)
          : std::nullopt;
  if (m) {
    Open(*m, kl.message, is_nvrm, ref, t, mono);
    Opened(kl.message, is_nvrm, time || wrapper_time);
  }
  if (mentions) CountGpuLine(m.has_value(), ref, kl.message);
}

void ScanRules::NoteTime(std::string_view text) { TimeOf(ParseKernelLine(text, opts.time)); }

std::vector<KernelEvent> ScanRules::Finish() {
  Close();
  for (KernelEvent& port : aer_burst.Flush()) Emit(port);
  fold_index.clear();
  // A "GPUn" line before the line that pairs n with its bus id.
  for (KernelEvent& e : out) {
    if (!e.pci_bus_id.empty() || !e.gpu_number) continue;
    if (auto it = bus_of_gpu_number.find(*e.gpu_number); it != bus_of_gpu_number.end())
      e.pci_bus_id = it->second;
  }
  return std::move(out);
}

}  // namespace kscan
}  // namespace gpudoctor
