#include "parse/kernel_events.h"

#include <map>
#include <unordered_map>
#include <utility>

#include "parse/kernel_events_aer.h"
#include "parse/kernel_events_match.h"
#include "parse/kernel_prefilter.h"
#include "parse/log_record.h"

namespace gpudoctor {

using kevents::Has;
using kevents::LineMatch;

struct KernelEventScanner::State {
  ExtractOptions opts;
  std::vector<KernelEvent> out;
  std::unordered_map<std::string, std::size_t> fold_index;  // fold key -> index in out

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
  void Emit(KernelEvent ev);
  void Fold(KernelEvent ev);
  bool Continues(const KernelLine& kl, std::string_view nvrm, bool is_nvrm);
  void Open(const LineMatch& m, std::string_view message, bool is_nvrm, const SourceRef& ref,
            std::optional<WallTime> t, std::optional<double> mono);
  std::optional<WallTime> TimeOf(const KernelLine& kl);
};

namespace {

std::string FoldKey(const KernelEvent& e) {
  std::string key = KernelEventKindName(e.kind);
  key += '|' + std::to_string(e.code.value_or(-1)) + '|' + e.pci_bus_id + '|' +
         std::to_string(e.pid.value_or(-1)) + '|' + e.process + '|' + e.detail + '|' + e.message;
  return key;
}

// Seconds between the last occurrence of `prev` and `next`, when both known.
std::optional<double> Gap(const KernelEvent& prev, const KernelEvent& next) {
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

}  // namespace

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

void KernelEventScanner::State::Fold(KernelEvent ev) {
  if (!opts.fold_repeats || ev.kind == KernelEventKind::kOomKill) {
    out.push_back(std::move(ev));
    return;
  }
  std::string key = FoldKey(ev);
  auto it = fold_index.find(key);
  if (it != fold_index.end()) {
    KernelEvent& prev = out[it->second];
    auto gap = Gap(prev, ev);
    if (!gap || *gap <= opts.fold_window_s) {
      prev.count += ev.count;
      prev.last_time = ev.time;
      prev.last_monotonic_s = ev.monotonic_s;
      return;
    }
  }
  fold_index[key] = out.size();
  out.push_back(std::move(ev));
}

void KernelEventScanner::State::Emit(KernelEvent ev) {
  if (ev.pci_bus_id.empty() && ev.gpu_number) {
    if (auto it = bus_of_gpu_number.find(*ev.gpu_number); it != bus_of_gpu_number.end())
      ev.pci_bus_id = it->second;
  }
  if (ev.kind == KernelEventKind::kOomKill) {
    // "X invoked oom-killer" ... "Killed process N (victim)": one event.
    bool killed = ev.detail.rfind("killed", 0) == 0;
    if (killed && oom_invoked && out[*oom_invoked].source.file == ev.source.file &&
        ev.source.line - out[*oom_invoked].source.line <= 2000) {
      KernelEvent& inv = out[*oom_invoked];
      inv.detail = ev.detail;
      inv.pid = ev.pid;
      inv.process = ev.process;
      inv.continuation.push_back(ev.message);
      oom_invoked.reset();
      return;
    }
    oom_invoked.reset();
    if (!killed) oom_invoked = out.size();
    out.push_back(std::move(ev));
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
  Fold(std::move(ev));
  if (has_derived) Fold(std::move(derived));
}

void KernelEventScanner::State::Close() {
  if (!open) return;
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
      Emit(std::move(claimed));
    }
    return;
  }
  Emit(std::move(ev));
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
  KernelEvent ev;
  ev.kind = m.kind;
  ev.code = m.code;
  ev.pci_bus_id = m.pci;
  ev.gpu_number = m.gpu_number;
  if (m.gpu_number && !m.pci.empty()) bus_of_gpu_number[*m.gpu_number] = m.pci;
  ev.pid = m.pid;
  ev.process = m.process;
  ev.detail = m.detail;
  ev.message = m.message.empty() ? std::string(message) : m.message;
  ev.source = ref;
  ev.time = t;
  ev.monotonic_s = mono;
  open = std::move(ev);
  open_nvrm = is_nvrm;
  open_probe_head = m.probe_head;
  open_nvidia = m.nvidia;
  open_probe_lines = 0;
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
  std::optional<WallTime> wrapper_time = std::exchange(s_->record_time, std::nullopt);
  if (!LineMayMatter(text)) {
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
  KernelLine kl = ParseKernelLine(text, ctx);
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
    s_->open->continuation.emplace_back(kevents::TrimLeft(kl.message));
    if (s_->open_probe_head) ++s_->open_probe_lines;
    if (mentions) ++s_->gpu_lines.decoded;
    return;
  }
  const bool was_open = s_->open.has_value();
  s_->Close();
  std::optional<kevents::LineMatch> m;
  if (kl.prefix != LinePrefix::kContinuation || !was_open) {
    m = is_nvrm ? kevents::MatchNvrm(nvrm) : kevents::MatchOther(kl.message, kl.ident);
  }
  if (m) s_->Open(*m, kl.message, is_nvrm, ref, t, mono);
  if (mentions) s_->CountGpuLine(m.has_value(), ref, kl.message);
}

void KernelEventScanner::AddRecord(const LogRecord& record, const SourceRef& ref) {
  s_->record_time = record.time;
  AddText(record.text, ref, std::nullopt, record.monotonic_s);
}

void KernelEventScanner::Break() { s_->Close(); }

bool KernelEventScanner::tracks_relative_time() const { return s_->relative_mode; }

void KernelEventScanner::NoteTime(std::string_view text) {
  s_->TimeOf(ParseKernelLine(text, s_->opts.time));
}

std::size_t KernelEventScanner::events_so_far() const { return s_->out.size(); }

const GpuLineStats& KernelEventScanner::gpu_line_stats() const { return s_->gpu_lines; }

const std::vector<NvsmiMessage>& KernelEventScanner::nvsmi_messages() const {
  return s_->nvsmi_messages;
}

std::vector<KernelEvent> KernelEventScanner::Finish() {
  s_->Close();
  for (KernelEvent& port : s_->aer_burst.Flush()) s_->Emit(std::move(port));
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
