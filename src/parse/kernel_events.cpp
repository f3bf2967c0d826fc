#include "parse/kernel_events.h"

#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "parse/kernel_events_aer.h"
#include "parse/kernel_events_match.h"
#include "parse/kernel_prefilter.h"
#include "parse/log_record.h"

namespace gpudoctor {

using kevents::Has;
using kevents::LineMatch;

namespace kernel_events_detail {

// A set of 64-bit hashes in one flat table (open addressing, linear
// probing): a flood's every line looks one up, and a node-based set costs
// a division and two cache misses each time.
class HashSet {
 public:
  std::size_t size() const { return size_; }
  bool Contains(std::uint64_t h) const {
    if (h == 0) h = 0x9e3779b97f4a7c15ull;
    if (slots_.empty()) return false;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Slot(h); slots_[i] != 0; i = (i + 1) & mask) {
      if (slots_[i] == h) return true;
    }
    return false;
  }
  // True when `h` was not in the set (it is now).
  bool Insert(std::uint64_t h) {
    if (h == 0) h = 0x9e3779b97f4a7c15ull;  // 0 marks an empty slot
    if (2 * (size_ + 1) > slots_.size()) Grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Slot(h); ; i = (i + 1) & mask) {
      if (slots_[i] == h) return false;
      if (slots_[i] == 0) {
        slots_[i] = h;
        ++size_;
        return true;
      }
    }
  }

 private:
  std::size_t Slot(std::uint64_t h) const {
    return static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ull) >> shift_);
  }
  void Grow() {
    std::vector<std::uint64_t> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, 0);
    shift_ = 64 - static_cast<int>(std::bit_width(slots_.size()) - 1);
    const std::size_t mask = slots_.size() - 1;
    for (std::uint64_t h : old) {
      if (h == 0) continue;
      std::size_t i = Slot(h);
      while (slots_[i] != 0) i = (i + 1) & mask;
      slots_[i] = h;
    }
  }
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0;
  int shift_ = 64;
};

// Whether the NVRM text of an Xid line (after "NVRM:") may say what the
// general path reads beyond the template: a GPU number (" GPU4 GSP", as
// GpuNumberIn finds it) or, after an Xid, "PMU has halted" (a follow-up,
// IsNvrmFollowUp). Both hold a 'U': one memchr over the line finds them.
bool XidLineMayNeedGeneralPath(std::string_view nvrm) {
  const char* p = nvrm.data();
  const char* end = p + nvrm.size();
  while ((p = static_cast<const char*>(std::memchr(p, 'U', static_cast<std::size_t>(end - p))))) {
    const std::size_t at = static_cast<std::size_t>(p - nvrm.data());
    // GpuNumberIn reads only a " GPU" followed by a digit ("GPU has
    // fallen off the bus" is none).
    if (at >= 3 && nvrm.substr(at - 3, 3) == " GP" && at + 1 < nvrm.size() &&
        nvrm[at + 1] >= '0' && nvrm[at + 1] <= '9')
      return true;
    if (at >= 2 && nvrm.substr(at - 2, 14) == "PMU has halted") return true;
    ++p;
  }
  return false;
}

// The matchers' answers (MatchNvrm, MatchOther: pure) by the line's text:
// a log repeats its ordinary NVRM and driver lines ("GPU Board Serial
// Number", "GPU at PCI:...", "mlx5_core ...: Port module event") thousands
// of times, and each would run every matcher again. A fixed number of
// slots, each holding its line (long lines are not kept), so memory stays
// bounded.
class MatchMemo {
 public:
  // The answer for this line into `out` when known.
  bool Lookup(bool nvrm, std::string_view ident, std::string_view text,
              std::optional<kevents::LineMatch>& out) const {
    const Slot& s = slots_[SlotOf(nvrm, ident, text)];
    if (!s.used || s.nvrm != nvrm || s.ident != ident || s.text != text) return false;
    out = s.match;
    if (out && s.message_at != std::string_view::npos)
      out->message = text.substr(s.message_at, s.match->message.size());
    return true;
  }
  void Add(bool nvrm, std::string_view ident, std::string_view text,
           const std::optional<kevents::LineMatch>& match) {
    if (text.size() + ident.size() > kMaxBytes) return;
    std::size_t message_at = std::string_view::npos;
    if (match && !match->message.empty()) {
      // A view into the line: kept as its place in it.
      if (match->message.data() < text.data() ||
          match->message.data() + match->message.size() > text.data() + text.size())
        return;
      message_at = static_cast<std::size_t>(match->message.data() - text.data());
    }
    Slot& s = slots_[SlotOf(nvrm, ident, text)];
    s.used = true;
    s.nvrm = nvrm;
    s.ident.assign(ident);
    s.text.assign(text);
    s.match = match;
    s.message_at = message_at;
  }

 private:
  // Enough for a few hundred distinct lines (a NIC port's line for each of
  // 256 addresses) with few collisions; at most about 3 MB.
  static constexpr std::size_t kSlots = 4096;
  static constexpr std::size_t kMaxBytes = 512;
  struct Slot {
    bool used = false;
    bool nvrm = false;
    std::string ident, text;
    std::optional<kevents::LineMatch> match;
    std::size_t message_at = std::string_view::npos;
  };
  static std::size_t SlotOf(bool nvrm, std::string_view ident, std::string_view text) {
    std::size_t h = std::hash<std::string_view>{}(text);
    h ^= std::hash<std::string_view>{}(ident) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2) + nvrm;
    return h % kSlots;
  }
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

// What the flood's cheapest path reads from an Xid line before the
// scanner's state matters. `ok` when the line has the shape of a repeat: a
// kernel line (not a record, not relative stamps) whose message is "NVRM:
// Xid (<pci>): <code>, pid=<digits>, name=<name>, <rest>" with a rest of at
// most kMaxEvidenceLineBytes and no words the general path reads beyond it.
struct XidRepeatLine {
  bool ok = false;
  std::optional<WallTime> time;
  std::optional<double> monotonic_s;
  std::string_view prefix;  // "NVRM: Xid (PCI:0000:3b:00): 13, pid="
  std::string_view nvrm;    // the message after "NVRM:"
  std::string_view name, rest;
  std::int64_t pid = 0;
  bool nvsmi = false;  // holds nvidia-smi's words (nvsmi_messages.h)
};

// `lit` at s[i]: a compare of constant length, which the compiler inlines.
template <std::size_t N>
bool LiteralAt(std::string_view s, std::size_t i, const char (&lit)[N]) {
  return i <= s.size() && s.size() - i >= N - 1 && std::memcmp(s.data() + i, lit, N - 1) == 0;
}

// `kl`: the parse of `text` (not a record). needle_at, later_needle_at as
// AddCandidate takes them.
void ReadXidRepeat(std::string_view text, const KernelLine& kl, std::size_t needle_at,
                   std::size_t later_needle_at, XidRepeatLine& out) {
  out.ok = false;
  if (kl.relative_s || kl.prefix == LinePrefix::kDmesgHuman) return;  // TimeOf keeps them
  const std::string_view msg = kl.message;
  if (!LiteralAt(msg, 0, "NVRM: Xid (")) return;
  // The template's bytes, as NoteTemplate takes them: up to the pid.
  std::size_t i = 11;  // "): " after the bus id (a byte loop: it is a few bytes away)
  while (i + 2 < msg.size() && !(msg[i] == ')' && msg[i + 1] == ':' && msg[i + 2] == ' ')) ++i;
  if (i + 2 >= msg.size()) return;
  i += 3;
  const std::size_t code_at = i;
  while (i < msg.size() && msg[i] >= '0' && msg[i] <= '9') ++i;
  if (i == code_at || !LiteralAt(msg, i, ", pid=")) return;
  i += 6;
  out.prefix = msg.substr(0, i);
  // As MatchXid reads them: the pid up to its comma, the name up to ", ".
  std::size_t digits = 0;
  std::int64_t pid = 0;
  while (i < msg.size() && msg[i] >= '0' && msg[i] <= '9' && digits < 18) {
    pid = pid * 10 + (msg[i++] - '0');
    ++digits;
  }
  if (digits == 0 || !LiteralAt(msg, i, ", name=")) return;
  i += 7;
  std::size_t comma = i;  // the name's end: a name is a few bytes
  while (comma + 1 < msg.size() && !(msg[comma] == ',' && msg[comma + 1] == ' ')) ++comma;
  if (comma + 1 >= msg.size()) return;
  out.pid = pid;
  out.name = msg.substr(i, comma - i);
  out.rest = msg.substr(comma + 2);
  if (out.rest.empty() || out.rest.size() > kMaxEvidenceLineBytes) return;
  out.nvrm = msg.substr(5);
  if (XidLineMayNeedGeneralPath(out.nvrm)) return;  // GpuNumberIn, "PMU has halted"
  // nvidia-smi's words hold needles of their own: a line whose only needles
  // are this "NVRM" and its "Xid" holds none of them. The caller's search
  // when it made one (ScanKernelLogBuffer's, which then reads each byte once).
  const auto msg_at = static_cast<std::size_t>(msg.data() - text.data());
  if (needle_at == std::string_view::npos) {
    needle_at = NextKernelNeedle(text);
    if (needle_at == msg_at) later_needle_at = NextKernelNeedle(text, msg_at + 7);
  }
  out.nvsmi = (needle_at != msg_at || later_needle_at != std::string_view::npos) &&
              MatchNvidiaSmiMessage(text).has_value();
  out.time = kl.time;
  out.monotonic_s = kl.monotonic_s;
  out.ok = true;
}

}  // namespace kernel_events_detail

using kernel_events_detail::XidRepeatLine;

namespace {

// An occurrence as the fold reads it: an event's, or a repeat line's read
// in place (its process and message views into the line).
struct FoldOccurrence {
  std::optional<std::int64_t> pid;
  std::string_view process, message;
  std::optional<WallTime> time, last_time;
  std::optional<double> monotonic_s, last_monotonic_s;
  std::size_t count = 1;
};

FoldOccurrence OccurrenceOf(const KernelEvent& e) {
  return FoldOccurrence{e.pid,       e.process,   e.message,          e.time,
                    e.last_time, e.monotonic_s, e.last_monotonic_s, e.count};
}

}  // namespace

struct KernelEventScanner::State {
  ExtractOptions opts;
  std::vector<KernelEvent> out;
  std::unordered_map<std::string, std::size_t> fold_index;  // fold key -> index in out
  // Per cause (kind, code, GPU, detail): its separate events so far and the
  // latest, into which a flood's further variants are counted.
  struct Cause {
    std::size_t events = 0;
    std::size_t latest = 0;
    std::vector<std::size_t> members;  // its separate events (at most kEventsPerCause)
  };
  std::unordered_map<std::string, Cause> causes;
  kernel_events_detail::HashSet left_out_processes;  // (event, pid, name) hashes counted
  std::size_t events_left_out = 0;
  std::string key, cause_key, derived_detail;  // reused buffers
  // The last closed event, kept for its buffers: a flood's lines reuse them
  // instead of allocating strings per line.
  KernelEvent spare;

  std::optional<KernelEvent> open;  // the event whose next lines may follow
  bool open_nvrm = false;
  bool open_probe_head = false;
  bool open_nvidia = true;
  int open_probe_lines = 0;

  bool relative_mode = false;              // dmesg -H seen
  std::optional<WallTime> last_wall;       // running time for relative stamps
  std::optional<std::size_t> oom_invoked;  // "X invoked oom-killer" waiting for its victim
  kevents::AerBurst aer_burst;             // which port AER events are a GPU's
  std::map<int, std::string> bus_of_gpu_number;  // "GPU4" -> bus id, as lines pair them
  GpuLineStats gpu_lines;
  std::vector<NvsmiMessage> nvsmi_messages;
  std::optional<WallTime> record_time;  // AddRecord's, for the AddText it calls
  bool needle_found = false;            // AddCandidate's, for the AddText it calls
  KernelLineParser line_parser;         // with the flood's cheap path
  kernel_events_detail::MatchMemo match_memo;  // the flood's cheap path's

  // The flood's cheapest path: an Xid line whose constant bytes up to its
  // pid ("NVRM: Xid (PCI:0000:3b:00): 13, pid=") are those of a cause that
  // already has all its separate events (and, for Xid 79, its derived
  // cause too) is read by comparing those bytes; only the stamp, pid, name
  // and message are taken from it. Causes stay saturated once they are,
  // so a template stays valid. Not for Xid 119 and 154, whose derived
  // cause depends on the message.
  struct XidTemplate {
    std::string prefix;
    int code = 0;
    std::string pci, detail;
    Cause* own = nullptr;
    Cause* derived = nullptr;  // Xid 79's fallen-off-the-bus cause
  };
  static constexpr std::size_t kMaxXidTemplates = 16;
  std::vector<XidTemplate> templates;
  // The open event's saturated causes when TryRepeat opened it, and its
  // template (whose code, GPU and detail it holds).
  Cause* open_own = nullptr;
  Cause* open_derived = nullptr;
  const XidTemplate* open_template = nullptr;

  void CountGpuLine(bool decoded, const SourceRef& ref, std::string_view message) {
    if (decoded) {
      ++gpu_lines.decoded;
      return;
    }
    if (gpu_lines.undecoded++ == 0) {
      gpu_lines.first_undecoded = ref;
      gpu_lines.first_undecoded_text = std::string(message.substr(0, 300));
    }
  }

  void Close();
  // Both may move from `ev` (when it becomes an event of its own).
  void Emit(KernelEvent& ev);
  void Fold(KernelEvent& ev);
  bool FoldRepeat(KernelEvent& prev, const FoldOccurrence& ev);
  void FillBus(KernelEvent& ev);
  Cause* SaturatedCause(KernelEventKind kind, const KernelEvent& ev, std::string_view detail);
  void FoldSaturated(Cause& cause, const FoldOccurrence& ev);
  bool TryFoldSaturated(KernelEvent& ev);
  std::optional<std::size_t> Append(KernelEvent& ev);
  void CountInto(const Cause& cause, const FoldOccurrence& ev);
  bool Continues(const KernelLine& kl, std::string_view nvrm, bool is_nvrm);
  void Open(const LineMatch& m, std::string_view message, bool is_nvrm, const SourceRef& ref,
            std::optional<WallTime> t, std::optional<double> mono);
  std::optional<WallTime> TimeOf(const KernelLine& kl);
  bool TryRepeat(const XidRepeatLine& x);
  XidRepeatLine repeat;  // AddCandidate's reading, reused
  void NoteTemplate(std::string_view message);
};

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

// Whether `prev` and `next` have the same fold key (FoldKey) given the same cause.
bool SameLine(const KernelEvent& prev, const FoldOccurrence& next) {
  return prev.pid.value_or(-1) == next.pid.value_or(-1) && prev.process == next.process &&
         prev.message == next.message;
}

// Clears `ev` for reuse, keeping the capacity of its strings and vectors.
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

void CutEvidenceLineInto(std::string_view line, std::string& out) {
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
  CutEvidenceLineInto(line, out);
  return out;
}

std::optional<WallTime> KernelEventScanner::State::TimeOf(const KernelLine& kl) {
  if (kl.prefix == LinePrefix::kDmesgHuman) {
    relative_mode = true;
    last_wall = kl.time;
  } else if (kl.relative_s) {
    relative_mode = true;
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
void KernelEventScanner::State::CountInto(const Cause& cause, const FoldOccurrence& ev) {
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
std::optional<std::size_t> KernelEventScanner::State::Append(KernelEvent& ev) {
  CauseKey(ev, cause_key);
  auto it = causes.find(cause_key);
  if (it != causes.end() && (it->second.events >= kEventsPerCause || out.size() >= kMaxKernelEvents)) {
    CountInto(it->second, OccurrenceOf(ev));
    return std::nullopt;
  }
  if (out.size() >= kMaxKernelEvents) {
    events_left_out += ev.count;
    return std::nullopt;
  }
  if (it == causes.end()) it = causes.emplace(cause_key, Cause{}).first;
  ++it->second.events;
  it->second.latest = out.size();
  it->second.members.push_back(out.size());
  out.push_back(std::move(ev));
  return out.size() - 1;
}

// `ev` counted into `prev`, a separate event of the same line, when within
// the fold window of its last occurrence (or when either time is unknown).
bool KernelEventScanner::State::FoldRepeat(KernelEvent& prev, const FoldOccurrence& ev) {
  auto gap = Gap(prev, ev);
  if (gap && *gap > opts.fold_window_s) return false;
  prev.count += ev.count;
  prev.last_time = ev.time;
  prev.last_monotonic_s = ev.monotonic_s;
  return true;
}

// The cause (kind, ev's code and GPU, detail) when it already has all the
// separate events it may have (Append would count a new one into its
// latest), else null.
KernelEventScanner::State::Cause* KernelEventScanner::State::SaturatedCause(
    KernelEventKind kind, const KernelEvent& ev, std::string_view detail) {
  CauseKey(kind, ev.code, ev.pci_bus_id, detail, cause_key);
  auto it = causes.find(cause_key);
  if (it == causes.end()) return nullptr;
  if (it->second.events < kEventsPerCause && out.size() < kMaxKernelEvents) return nullptr;
  return &it->second;
}

// Fold for an occurrence of a saturated cause, without building keys: the
// fold index holds, for each line of the cause, its latest separate event,
// and a repeat too far from that one is counted into the cause (Append).
void KernelEventScanner::State::FoldSaturated(Cause& cause, const FoldOccurrence& ev) {
  for (auto it = cause.members.rbegin(); it != cause.members.rend(); ++it) {
    if (!SameLine(out[*it], ev)) continue;
    if (FoldRepeat(out[*it], ev)) return;
    break;
  }
  CountInto(cause, ev);
}

// The bus id of a GSP line's "GPUn", when a line paired them.
void KernelEventScanner::State::FillBus(KernelEvent& ev) {
  if (ev.pci_bus_id.empty() && ev.gpu_number) {
    if (auto it = bus_of_gpu_number.find(*ev.gpu_number); it != bus_of_gpu_number.end())
      ev.pci_bus_id = it->second;
  }
}

// What Emit does, for an event (not an OOM kill) whose causes, its own and
// the one it derives (Xid 79, 119, 154), are all saturated: the flood's
// path, which copies nothing. False (nothing done) otherwise.
bool KernelEventScanner::State::TryFoldSaturated(KernelEvent& ev) {
  if (!opts.flood_fast_path || !opts.fold_repeats || ev.kind == KernelEventKind::kOomKill)
    return false;
  FillBus(ev);
  Cause* own = SaturatedCause(ev.kind, ev, ev.detail);
  if (!own) return false;
  Cause* derived = nullptr;
  if (ev.kind == KernelEventKind::kXid && ev.code) {
    KernelEventKind kind = KernelEventKind::kXid;
    if (*ev.code == 79) {
      kind = KernelEventKind::kFallenOffBus;
      derived_detail = "Xid 79";
    } else if (*ev.code == 154) {
      kind = KernelEventKind::kRecoveryAction;
      derived_detail = ev.detail;
    } else if (*ev.code == 119 && Has(ev.message, "RPC")) {
      kind = KernelEventKind::kGspTimeout;
      derived_detail = kevents::RpcFunctionOf(ev.message);
    }
    if (kind != KernelEventKind::kXid && !(derived = SaturatedCause(kind, ev, derived_detail)))
      return false;
  }
  const FoldOccurrence occurrence = OccurrenceOf(ev);
  FoldSaturated(*own, occurrence);
  if (derived) FoldSaturated(*derived, occurrence);
  return true;
}

void KernelEventScanner::State::Fold(KernelEvent& ev) {
  if (!opts.fold_repeats) {  // every line its own event, within kMaxKernelEvents
    if (out.size() < kMaxKernelEvents) {
      out.push_back(std::move(ev));
    } else {
      events_left_out += ev.count;
    }
    return;
  }
  if (ev.kind == KernelEventKind::kOomKill) {
    Append(ev);
    return;
  }
  FoldKey(ev, key);
  auto it = fold_index.find(key);
  if (it != fold_index.end() && FoldRepeat(out[it->second], OccurrenceOf(ev))) return;
  if (auto index = Append(ev)) fold_index.insert_or_assign(key, *index);
}

void KernelEventScanner::State::Emit(KernelEvent& ev) {
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
  const bool is_xid = ev.kind == KernelEventKind::kXid && ev.code;
  KernelEvent derived;
  bool has_derived = false;
  if (is_xid &&
      (*ev.code == 79 || *ev.code == 154 || (*ev.code == 119 && Has(ev.message, "RPC")))) {
    derived = ev;
    has_derived = true;
    if (*ev.code == 79) {
      derived.kind = KernelEventKind::kFallenOffBus;
      derived.detail = "Xid 79";
    } else if (*ev.code == 154) {
      derived.kind = KernelEventKind::kRecoveryAction;
    } else {
      derived.kind = KernelEventKind::kGspTimeout;
      derived.detail = kevents::RpcFunctionOf(ev.message);
    }
  }
  Fold(ev);
  if (has_derived) Fold(derived);
}

void KernelEventScanner::State::Close() {
  if (!open) return;
  if (open_own) {  // a repeat line's, counted when it was read (TryRepeat)
    open_own = open_derived = nullptr;
    open_template = nullptr;
    spare = std::move(*open);
    open.reset();
    return;
  }
  if (!open_probe_head && open->kind != KernelEventKind::kPcieAer && TryFoldSaturated(*open)) {
    spare = std::move(*open);
    open.reset();
    return;
  }
  KernelEvent ev = std::move(*open);
  open.reset();
  if (open_probe_head) {
    bool lost = false, unsupported = false;
    for (const auto& c : ev.continuation) {
      lost = lost || Has(c, "fallen off the bus");
      unsupported = unsupported || Has(c, "not supported");
    }
    ev.kind = lost ? KernelEventKind::kFallenOffBus : KernelEventKind::kProbeFailed;
    ev.detail = lost ? "probe" : (unsupported ? "unsupported GPU" : "probe");
  }
  if (ev.kind == KernelEventKind::kPcieAer) {
    for (KernelEvent& claimed : aer_burst.Add(std::move(ev), open_nvidia, &opts.aer_owner)) {
      Emit(claimed);
    }
    return;
  }
  Emit(ev);
  spare = std::move(ev);  // its buffers, when it was folded into another
}

bool KernelEventScanner::State::Continues(const KernelLine& kl, std::string_view nvrm,
                                          bool is_nvrm) {
  if (!open) return false;
  if (kl.prefix == LinePrefix::kContinuation) return true;
  if (is_nvrm) {
    if (!open_nvrm) return false;
    if (open_probe_head) {
      return open_probe_lines < 8 &&
             (Has(nvrm, "fallen off the bus and") || !kevents::MatchNvrm(nvrm));
    }
    if (!kevents::IsNvrmFollowUp(nvrm, *open)) return false;
    // "GPU4 RPC history" under the Xid of 0000:9b:00.0: GPU4 is that GPU.
    if (auto n = kevents::GpuNumberIn(nvrm); n && !open->pci_bus_id.empty())
      bus_of_gpu_number[*n] = open->pci_bus_id;
    return true;
  }
  if (!kevents::IsOtherFollowUp(kl.message, *open)) return false;
  if (open->kind == KernelEventKind::kPcieAer) {
    open_nvidia = open_nvidia || kevents::IsNvidiaAerLine(kl.message);
    auto m = kevents::MatchOther(kl.message, kl.ident);
    if (open->detail.empty() && m && !m->detail.empty()) open->detail = m->detail;
    if (kevents::IsSurpriseDownLine(kl.message) && !Has(open->detail, kevents::kAerSurpriseDown))
      open->detail += kevents::kAerSurpriseDown;
  }
  return true;
}

void KernelEventScanner::State::Open(const LineMatch& m, std::string_view message, bool is_nvrm,
                                     const SourceRef& ref, std::optional<WallTime> t,
                                     std::optional<double> mono) {
  KernelEvent ev = std::move(spare);  // its buffers, not its content
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
  open_own = open_derived = nullptr;
  open_template = nullptr;
}

// After the general path opened an Xid event from `message` ("NVRM: Xid
// (...): N, pid=..."): its template, when its causes are saturated.
void KernelEventScanner::State::NoteTemplate(std::string_view message) {
  const KernelEvent& ev = *open;
  if (templates.size() >= kMaxXidTemplates || !ev.code || *ev.code == 119 || *ev.code == 154 ||
      ev.pci_bus_id.empty() || ev.gpu_number || message.substr(0, 11) != "NVRM: Xid (")
    return;
  std::size_t at = message.find("): ");
  if (at == std::string_view::npos) return;
  at += 3;
  std::size_t end = at;
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
  if (end == at || message.substr(end, 6) != ", pid=") return;
  std::string_view prefix = message.substr(0, end + 6);
  for (const XidTemplate& t : templates) {
    if (t.prefix == prefix) return;
  }
  Cause* own = SaturatedCause(KernelEventKind::kXid, ev, ev.detail);
  if (!own) return;
  Cause* derived = nullptr;
  if (*ev.code == 79 && !(derived = SaturatedCause(KernelEventKind::kFallenOffBus, ev, "Xid 79")))
    return;
  templates.push_back(XidTemplate{std::string(prefix), *ev.code, ev.pci_bus_id, ev.detail, own, derived});
}

// AddText for a line of a template's cause, as ReadXidRepeat read it: the
// same events, the same counts. False (nothing done) when the line is not
// one, or when anything about it asks for the general path (a follow-up of
// the open event, a GPU number, a message to cut, a record, nvidia-smi's
// words).
bool KernelEventScanner::State::TryRepeat(const XidRepeatLine& x) {
  if (templates.empty() || relative_mode || record_time || !x.ok) return false;
  const XidTemplate* tp = nullptr;
  for (const XidTemplate& t : templates) {
    if (t.prefix == x.prefix) {
      tp = &t;
      break;
    }
  }
  if (!tp) return false;
  if (x.nvsmi && nvsmi_messages.size() < kMaxNvsmiMessages) return false;
  if (open && open_nvrm && !open_own &&
      (open_probe_head || kevents::IsNvrmFollowUp(x.nvrm, *open)))
    return false;

  if (open && open_own) {
    // The open event is a repeat line's too (only "PMU has halted", ruled
    // out above, follows one): reused in place.
    open->continuation.clear();
    open->continuation_left_out = 0;
  } else {
    Close();
    KernelEvent ev = std::move(spare);  // its buffers, not its content
    ResetEvent(ev);
    open = std::move(ev);
    open_template = nullptr;
  }
  // The line is counted now, from views into it, as Close would count its
  // event: what may follow it (continuation lines) is not what a saturated
  // cause keeps, and nothing else is counted in between. The open event
  // holds only what Continues reads of it (kind, code, GPU, detail), for
  // the lines that may follow.
  const FoldOccurrence occurrence{x.pid,       x.name == "<unknown>" ? std::string_view() : x.name,
                              x.rest,      x.time,
                              std::nullopt, x.monotonic_s,
                              std::nullopt, 1};
  FoldSaturated(*tp->own, occurrence);
  if (tp->derived) FoldSaturated(*tp->derived, occurrence);
  if (open_template != tp) {
    KernelEvent& ev = *open;
    ev.code = tp->code;
    ev.pci_bus_id.assign(tp->pci);
    ev.detail.assign(tp->detail);
    open_template = tp;
  }
  open_nvrm = true;
  open_probe_head = false;
  open_nvidia = true;
  open_probe_lines = 0;
  open_own = tp->own;
  open_derived = tp->derived;
  ++gpu_lines.decoded;
  return true;
}

KernelEventScanner::KernelEventScanner(ExtractOptions opts) : s_(std::make_unique<State>()) {
  s_->opts = opts;
  if (s_->opts.time.year <= 0) {  // year-less stamps: assume the current year
    auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
    s_->opts.time.year = static_cast<int>(std::chrono::year_month_day(today).year());
  }
}
KernelEventScanner::~KernelEventScanner() = default;

void KernelEventScanner::AddLine(const LogLine& line) {
  AddText(line.text, line.ref, line.time, line.monotonic_s);
}

void KernelEventScanner::AddText(std::string_view text, const SourceRef& ref,
                                 std::optional<WallTime> time, std::optional<double> monotonic_s) {
  AddParsed(text, ref, time, monotonic_s, nullptr);
}

void KernelEventScanner::AddParsed(std::string_view text, const SourceRef& ref,
                                   std::optional<WallTime> time, std::optional<double> monotonic_s,
                                   const KernelLine* parsed) {
  std::optional<WallTime> wrapper_time = std::exchange(s_->record_time, std::nullopt);
  if (!std::exchange(s_->needle_found, false) && !LineMayMatter(text)) {
    if (s_->relative_mode || LooksLikeHumanStamp(text)) NoteTime(text);
    Break();
    return;
  }
  // A JSON or logfmt record: its text is the line, its stamps the time.
  // The source's own time (journal, kmsg) first, then the line's stamp,
  // then the wrapper's.
  std::optional<LogRecord> record;
  LineTimeContext ctx = s_->opts.time;
  if (!wrapper_time && MayBeLogRecord(text) && (record = UnwrapLogRecord(text))) {
    text = record->text;
    wrapper_time = record->time;
    if (!monotonic_s) monotonic_s = record->monotonic_s;
  }
  if (wrapper_time) ctx.year = RecordYear(*wrapper_time);  // for a year-less stamp inside
  if (s_->nvsmi_messages.size() < kMaxNvsmiMessages) {
    if (auto smi = MatchNvidiaSmiMessage(text)) {
      smi->line = ref.line;
      s_->nvsmi_messages.push_back(std::move(*smi));
    }
  }
  // The caller's parse holds for the line as given in the scanner's context.
  if (record || wrapper_time) parsed = nullptr;
  KernelLine kl = parsed                    ? *parsed
                  : s_->opts.flood_fast_path ? s_->line_parser.Parse(text, ctx)
                                             : ParseKernelLine(text, ctx);
  auto t = s_->TimeOf(kl);
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
  if (s_->Continues(kl, nvrm, is_nvrm)) {
    AddContinuation(*s_->open, kevents::TrimLeft(kl.message));
    if (s_->open_probe_head) ++s_->open_probe_lines;
    if (mentions) ++s_->gpu_lines.decoded;
    return;
  }
  const bool was_open = s_->open.has_value();
  s_->Close();
  std::optional<kevents::LineMatch> m;
  if (kl.prefix != LinePrefix::kContinuation || !was_open) {
    const bool memo = s_->opts.flood_fast_path;
    const std::string_view memo_ident = is_nvrm ? std::string_view() : kl.ident;
    const std::string_view memo_text = is_nvrm ? nvrm : kl.message;
    if (!memo || !s_->match_memo.Lookup(is_nvrm, memo_ident, memo_text, m)) {
      m = is_nvrm ? kevents::MatchNvrm(nvrm) : kevents::MatchOther(kl.message, kl.ident);
      if (memo) s_->match_memo.Add(is_nvrm, memo_ident, memo_text, m);
    }
  }
  if (m) {
    s_->Open(*m, kl.message, is_nvrm, ref, t, mono);
    if (is_nvrm && m->kind == KernelEventKind::kXid && s_->opts.flood_fast_path &&
        s_->opts.fold_repeats && !wrapper_time && !time)
      s_->NoteTemplate(kl.message);
  }
  if (mentions) s_->CountGpuLine(m.has_value(), ref, kl.message);
}

void KernelEventScanner::AddCandidate(std::string_view text, const SourceRef& ref,
                                      std::size_t needle_at, std::size_t later_needle_at) {
  if (s_->opts.flood_fast_path && s_->opts.fold_repeats && !s_->templates.empty() &&
      !s_->relative_mode) {
    if (!MayBeLogRecord(text)) {
      kernel_events_detail::ReadXidRepeat(text, s_->line_parser.Parse(text, s_->opts.time),
                                          needle_at, later_needle_at, s_->repeat);
      if (s_->TryRepeat(s_->repeat)) return;
    }
  }
  s_->needle_found = true;
  AddText(text, ref);
}

void KernelEventScanner::AddCandidates(std::string_view text, const std::string& file,
                                       std::size_t first_line, const KernelCandidates& candidates) {
  SourceRef ref{file, 0};
  const bool fast = s_->opts.flood_fast_path && s_->opts.fold_repeats;
  for (const KernelCandidate& c : candidates.lines) {
    if (c.break_before) Break();
    ref.line = first_line + c.line;
    const std::string_view line = text.substr(c.start, c.size);
    if (fast && c.parsed && !s_->templates.empty() && !s_->relative_mode) {
      kernel_events_detail::ReadXidRepeat(line, c.parse, c.needle_at, c.later_needle_at,
                                          s_->repeat);
      if (s_->TryRepeat(s_->repeat)) continue;
    }
    s_->needle_found = true;
    // The general path (no flood path) parses each line afresh.
    AddParsed(line, ref, std::nullopt, std::nullopt, c.parsed && fast ? &c.parse : nullptr);
  }
  if (candidates.break_at_end) Break();
}

void KernelEventScanner::AddRecord(const LogRecord& record, const SourceRef& ref) {
  s_->record_time = record.time;
  AddText(record.text, ref, std::nullopt, record.monotonic_s);
}

void KernelEventScanner::Break() { s_->Close(); }

bool KernelEventScanner::tracks_relative_time() const { return s_->relative_mode; }

const LineTimeContext& KernelEventScanner::time_context() const { return s_->opts.time; }

void KernelEventScanner::NoteTime(std::string_view text) {
  s_->TimeOf(ParseKernelLine(text, s_->opts.time));
}

std::size_t KernelEventScanner::events_so_far() const { return s_->out.size(); }

std::size_t KernelEventScanner::events_left_out() const { return s_->events_left_out; }

const GpuLineStats& KernelEventScanner::gpu_line_stats() const { return s_->gpu_lines; }

const std::vector<NvsmiMessage>& KernelEventScanner::nvsmi_messages() const {
  return s_->nvsmi_messages;
}

std::vector<KernelEvent> KernelEventScanner::Finish() {
  s_->Close();
  for (KernelEvent& port : s_->aer_burst.Flush()) s_->Emit(port);
  s_->fold_index.clear();
  // A "GPUn" line before the line that pairs n with its bus id.
  for (KernelEvent& e : s_->out) {
    if (!e.pci_bus_id.empty() || !e.gpu_number) continue;
    if (auto it = s_->bus_of_gpu_number.find(*e.gpu_number); it != s_->bus_of_gpu_number.end())
      e.pci_bus_id = it->second;
  }
  return std::move(s_->out);
}

}  // namespace gpudoctor
