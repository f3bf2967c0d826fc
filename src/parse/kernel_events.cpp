// KernelEventScanner: the production scan (kernel_scan_fast.h) behind the
// public interface; small helpers over extracted events.
#include "parse/kernel_events.h"

#include <utility>

#include "parse/kernel_scan_fast.h"

namespace gpudoctor {

KernelEventScanner::KernelEventScanner(ExtractOptions opts)
    : s_(std::make_unique<kscan::FastScan>(std::move(opts))) {}
KernelEventScanner::~KernelEventScanner() = default;

void KernelEventScanner::AddLine(const LogLine& line) {
  AddText(line.text, line.ref, line.time, line.monotonic_s);
}

void KernelEventScanner::AddText(std::string_view text, const SourceRef& ref,
                                 std::optional<WallTime> time, std::optional<double> monotonic_s) {
  s_->AddLine(text, ref, time, monotonic_s);
}

void KernelEventScanner::AddCandidate(std::string_view text, const SourceRef& ref,
                                      std::size_t needle_at, std::size_t later_needle_at) {
  s_->AddCandidate(text, ref, needle_at, later_needle_at);
}

void KernelEventScanner::AddCandidates(std::string_view text, const std::string& file,
                                       std::size_t first_line, const KernelCandidates& candidates) {
  s_->AddCandidates(text, file, first_line, candidates);
}

void KernelEventScanner::AddRecord(const LogRecord& record, const SourceRef& ref) {
  s_->AddLine(record.text, ref, std::nullopt, record.monotonic_s, nullptr, record.time);
}

void KernelEventScanner::Break() { s_->Break(); }

bool KernelEventScanner::tracks_relative_time() const { return s_->relative_mode(); }

const LineTimeContext& KernelEventScanner::time_context() const { return s_->options().time; }

void KernelEventScanner::NoteTime(std::string_view text) { s_->NoteTime(text); }

std::size_t KernelEventScanner::events_so_far() const { return s_->events_so_far(); }

std::size_t KernelEventScanner::events_left_out() const { return s_->events_left_out(); }

const GpuLineStats& KernelEventScanner::gpu_line_stats() const { return s_->gpu_line_stats(); }

const std::vector<NvsmiMessage>& KernelEventScanner::nvsmi_messages() const {
  return s_->nvsmi_messages();
}

std::vector<KernelEvent> KernelEventScanner::Finish() { return s_->Finish(); }

std::vector<KernelEvent> ExtractKernelEvents(const std::vector<LogLine>& lines,
                                             const ExtractOptions& opts) {
  KernelEventScanner scanner(opts);
  for (const auto& line : lines) scanner.AddLine(line);
  return scanner.Finish();
}

std::map<std::string, std::string> PciToUuid(const std::vector<KernelEvent>& events) {
  std::map<std::string, std::string> map;
  for (const auto& e : events) {
    if (e.kind == KernelEventKind::kGpuUuid && !e.pci_bus_id.empty() && !e.detail.empty()) {
      map[e.pci_bus_id] = e.detail;
    }
  }
  return map;
}

bool IndicatesGpuLost(const KernelEvent& e) {
  return e.kind == KernelEventKind::kFallenOffBus || e.kind == KernelEventKind::kGpuLost ||
         (e.kind == KernelEventKind::kXid && e.code == 79);
}

}  // namespace gpudoctor
