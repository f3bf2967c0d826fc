#include "parse/kernel_scan_fast.h"

#include <cstring>

#include "parse/kernel_prefilter.h"
#include "parse/log_record.h"
#include "parse/nvsmi_messages.h"

namespace gpudoctor::kscan {

namespace {

// `lit` at s[i]: a compare of constant length, which the compiler inlines.
template <std::size_t N>
bool LiteralAt(std::string_view s, std::size_t i, const char (&lit)[N]) {
  return i <= s.size() && s.size() - i >= N - 1 && std::memcmp(s.data() + i, lit, N - 1) == 0;
}

// Whether the NVRM text of an Xid line (after "NVRM:") may say what the
// rules read beyond the template: a GPU number (" GPU4 GSP", as
// GpuNumberIn finds it) or, after an Xid, "PMU has halted" (a follow-up,
// IsNvrmFollowUp). Both hold a 'U': one memchr over the line finds them.
bool XidLineMayNeedGeneralPath(std::string_view nvrm) {
  const char* p = nvrm.data();
  const char* end = p + nvrm.size();
  while ((p = static_cast<const char*>(std::memchr(p, 'U', static_cast<std::size_t>(end - p))))) {
    const std::size_t at = static_cast<std::size_t>(p - nvrm.data());
    // GpuNumberIn reads only a " GPU" followed by a digit ("GPU has
    // fallen off the bus" is none).
    if (at >= 3 && LiteralAt(nvrm, at - 3, " GP") && at + 1 < nvrm.size() &&
        nvrm[at + 1] >= '0' && nvrm[at + 1] <= '9')
      return true;
    if (at >= 2 && LiteralAt(nvrm, at - 2, "PMU has halted")) return true;
    ++p;
  }
  return false;
}

}  // namespace

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
  // As the catalog's Xid row (ReadXid) reads them: the pid up to its comma,
  // the name up to ", ".
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

std::optional<kevents::LineMatch> FastScan::MatchLine(bool nvrm, std::string_view ident,
                                                      std::string_view text) {
  std::optional<kevents::LineMatch> m;
  if (!match_memo_.Lookup(nvrm, ident, text, m)) {
    m = nvrm ? kevents::MatchNvrm(text) : kevents::MatchOther(text, ident);
    match_memo_.Add(nvrm, ident, text, m);
  }
  return m;
}

bool FastScan::CloseShortcut() {
  if (open_own_) {  // a repeat line's, counted when it was read (TryRepeat)
    open_own_ = open_derived_ = nullptr;
    open_template_ = nullptr;
    return true;
  }
  return !open_probe_head && open->kind != KernelEventKind::kPcieAer && TryFoldSaturated(*open);
}

// Fold for an occurrence of a saturated cause, without building keys: the
// fold index holds, for each line of the cause, its latest separate event,
// and a repeat too far from that one is counted into the cause (Append).
void FastScan::FoldSaturated(Cause& cause, const FoldOccurrence& ev) {
  for (auto it = cause.members.rbegin(); it != cause.members.rend(); ++it) {
    if (!SameLine(out[*it], ev)) continue;
    if (FoldRepeat(out[*it], ev)) return;
    break;
  }
  CountInto(cause, ev);
}

// What Emit does, for an event (not an OOM kill) whose causes, its own and
// the one it derives (Xid 79, 119, 154), are all saturated: the flood's
// path, which copies nothing. False (nothing done) otherwise.
bool FastScan::TryFoldSaturated(KernelEvent& ev) {
  if (!opts.fold_repeats || ev.kind == KernelEventKind::kOomKill) return false;
  FillBus(ev);
  Cause* own = SaturatedCause(ev.kind, ev, ev.detail);
  if (!own) return false;
  Cause* derived = nullptr;
  if (ev.kind == KernelEventKind::kXid && ev.code) {
    auto kind = kevents::XidDerivedEvent(*ev.code, ev.message, ev.detail, buf.derived_detail);
    if (kind && !(derived = SaturatedCause(*kind, ev, buf.derived_detail))) return false;
  }
  const FoldOccurrence occurrence = OccurrenceOf(ev);
  FoldSaturated(*own, occurrence);
  if (derived) FoldSaturated(*derived, occurrence);
  return true;
}

void FastScan::Opened(std::string_view message, bool nvrm, bool timed) {
  if (nvrm && open->kind == KernelEventKind::kXid && opts.fold_repeats && !timed)
    NoteTemplate(message);
}

// After the rules opened an Xid event from `message` ("NVRM: Xid
// (...): N, pid=..."): its template, when its causes are saturated.
void FastScan::NoteTemplate(std::string_view message) {
  const KernelEvent& ev = *open;
  if (templates_.size() >= kMaxXidTemplates || !ev.code ||
      !kevents::XidCausesFixedByHeader(*ev.code) || ev.pci_bus_id.empty() || ev.gpu_number ||
      message.substr(0, 11) != "NVRM: Xid (")
    return;
  std::size_t at = message.find("): ");
  if (at == std::string_view::npos) return;
  at += 3;
  std::size_t end = at;
  while (end < message.size() && message[end] >= '0' && message[end] <= '9') ++end;
  if (end == at || message.substr(end, 6) != ", pid=") return;
  std::string_view prefix = message.substr(0, end + 6);
  for (const XidTemplate& t : templates_) {
    if (t.prefix == prefix) return;
  }
  Cause* own = SaturatedCause(KernelEventKind::kXid, ev, ev.detail);
  if (!own) return;
  Cause* derived = nullptr;
  if (auto kind = kevents::XidDerivedEvent(*ev.code, ev.message, ev.detail, buf.derived_detail);
      kind && !(derived = SaturatedCause(*kind, ev, buf.derived_detail)))
    return;
  templates_.push_back(XidTemplate{std::string(prefix), *ev.code, ev.pci_bus_id, ev.detail, own, derived});
}

// AddLine for a line of a template's cause, as ReadXidRepeat read it: the
// same events, the same counts. False (nothing done) when the line is not
// one, or when anything about it asks for the rules' AddLine (a follow-up of
// the open event, a GPU number, a message to cut, a record, nvidia-smi's
// words).
bool FastScan::TryRepeat(const XidRepeatLine& x) {
  if (templates_.empty() || relative_mode() || !x.ok) return false;
  const XidTemplate* tp = nullptr;
  for (const XidTemplate& t : templates_) {
    if (t.prefix == x.prefix) {
      tp = &t;
      break;
    }
  }
  if (!tp) return false;
  if (x.nvsmi && nvsmi.size() < kMaxNvsmiMessages) return false;
  if (open && open_nvrm && !open_own_ &&
      (open_probe_head || kevents::IsNvrmFollowUp(x.nvrm, *open)))
    return false;

  if (open && open_own_) {
    // The open event is a repeat line's too (only "PMU has halted", ruled
    // out above, follows one): reused in place.
    open->continuation.clear();
    open->continuation_left_out = 0;
  } else {
    Close();
    KernelEvent ev = std::move(buf.spare);  // its buffers, not its content
    ResetEvent(ev);
    open = std::move(ev);
    open_template_ = nullptr;
  }
  // The line is counted now, from views into it, as Close would count its
  // event: what may follow it (continuation lines) is not what a saturated
  // cause keeps, and nothing else is counted in between. The open event
  // holds only what Continues reads of it (kind, code, GPU, detail), for
  // the lines that may follow.
  const FoldOccurrence occurrence{x.pid,        x.name == "<unknown>" ? std::string_view() : x.name,
                                  x.rest,       x.time,
                                  std::nullopt, x.monotonic_s,
                                  std::nullopt, 1};
  FoldSaturated(*tp->own, occurrence);
  if (tp->derived) FoldSaturated(*tp->derived, occurrence);
  if (open_template_ != tp) {
    KernelEvent& ev = *open;
    ev.code = tp->code;
    ev.pci_bus_id.assign(tp->pci);
    ev.detail.assign(tp->detail);
    open_template_ = tp;
  }
  open_nvrm = true;
  open_probe_head = false;
  open_nvidia = true;
  open_probe_lines = 0;
  open_own_ = tp->own;
  open_derived_ = tp->derived;
  ++gpu_lines.decoded;
  return true;
}

void FastScan::AddCandidate(std::string_view text, const SourceRef& ref, std::size_t needle_at,
                            std::size_t later_needle_at) {
  if (opts.fold_repeats && !templates_.empty() && !relative_mode() && !MayBeLogRecord(text)) {
    ReadXidRepeat(text, line_parser_.Parse(text, opts.time), needle_at, later_needle_at, repeat_);
    if (TryRepeat(repeat_)) return;
  }
  AddLine(text, ref, std::nullopt, std::nullopt, nullptr, std::nullopt, /*needle_known=*/true);
}

void FastScan::AddCandidates(std::string_view text, const std::string& file,
                             std::size_t first_line, const KernelCandidates& candidates) {
  SourceRef ref{file, 0};
  for (const KernelCandidate& c : candidates.lines) {
    if (c.break_before) Break();
    ref.line = first_line + c.line;
    const std::string_view line = text.substr(c.start, c.size);
    if (opts.fold_repeats && c.parsed && !templates_.empty() && !relative_mode()) {
      ReadXidRepeat(line, c.parse, c.needle_at, c.later_needle_at, repeat_);
      if (TryRepeat(repeat_)) continue;
    }
    AddLine(line, ref, std::nullopt, std::nullopt, c.parsed ? &c.parse : nullptr, std::nullopt,
            /*needle_known=*/true);
  }
  if (candidates.break_at_end) Break();
}

}  // namespace gpudoctor::kscan
