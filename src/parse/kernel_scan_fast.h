// The production kernel-log scan: the rules of kernel_scan_rules.h with
// what makes a flood cheap, none of which changes an event:
//  - memos of the lines' parse (KernelLineParser: a flood's lines share
//    their syslog header) and of the catalog's answers (kernel_match_memo.h);
//  - a shortcut for an event whose causes (its own and the one an Xid 79
//    or 119 or 154 derives) already have all their separate events: it is
//    counted into them without building keys or copying it;
//  - templates of saturated Xid causes: a line whose bytes up to its pid
//    ("NVRM: Xid (PCI:0000:3b:00): 13, pid=") are a template's is counted
//    from views into the line, without the rules' AddLine at all.
// The tests compare every field of every event with the reference, which
// feeds the rules line by line with none of this
// (tests/support/kernel_scan_reference.h). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/kernel_line.h"
#include "parse/kernel_match_memo.h"
#include "parse/kernel_scan_rules.h"

namespace gpudoctor::kscan {

// What a template's line is read as before the scanner's state matters.
// `ok` when the line has the shape of a repeat: a kernel line (not a
// record, not relative stamps) whose message is "NVRM: Xid (<pci>): <code>,
// pid=<digits>, name=<name>, <rest>" with a rest of at most
// kMaxEvidenceLineBytes and nothing the rules read beyond that shape.
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

// `kl`: the parse of `text` (not a record). needle_at, later_needle_at as
// KernelEventScanner::AddCandidate takes them.
void ReadXidRepeat(std::string_view text, const KernelLine& kl, std::size_t needle_at,
                   std::size_t later_needle_at, XidRepeatLine& out);

class FastScan final : public ScanRules {
 public:
  using ScanRules::ScanRules;

  // As KernelEventScanner's (kernel_events.h).
  void AddCandidate(std::string_view text, const SourceRef& ref, std::size_t needle_at,
                    std::size_t later_needle_at);
  void AddCandidates(std::string_view text, const std::string& file, std::size_t first_line,
                     const KernelCandidates& candidates);

 private:
  KernelLine ParseLine(std::string_view text, const LineTimeContext& ctx) override {
    return line_parser_.Parse(text, ctx);
  }
  std::optional<kevents::LineMatch> MatchLine(bool nvrm, std::string_view ident,
                                              std::string_view text) override;
  bool CloseShortcut() override;
  void Opened(std::string_view message, bool nvrm, bool timed) override;

  // A saturated Xid cause's constant bytes, up to the pid. Causes stay
  // saturated once they are, so a template stays valid. None for an Xid
  // whose causes depend on the message (XidCausesFixedByHeader).
  struct XidTemplate {
    std::string prefix;
    int code = 0;
    std::string pci, detail;
    Cause* own = nullptr;
    Cause* derived = nullptr;  // the cause of its derived event (XidDerivedEvent), if any
  };
  static constexpr std::size_t kMaxXidTemplates = 16;

  // The fold for an occurrence of a saturated cause, without keys.
  void FoldSaturated(Cause& cause, const FoldOccurrence& ev);
  bool TryFoldSaturated(KernelEvent& ev);
  void NoteTemplate(std::string_view message);
  bool TryRepeat(const XidRepeatLine& x);

  KernelLineParser line_parser_;
  MatchMemo match_memo_;
  std::vector<XidTemplate> templates_;
  // The open event's saturated causes when TryRepeat opened it (it is
  // counted already), and its template (whose code, GPU and detail it holds).
  Cause* open_own_ = nullptr;
  Cause* open_derived_ = nullptr;
  const XidTemplate* open_template_ = nullptr;
  XidRepeatLine repeat_;  // reused
};

}  // namespace gpudoctor::kscan
