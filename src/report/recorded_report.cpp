#include "report/recorded_report.h"

#include <sys/utsname.h>

#include <algorithm>
#include <tuple>

#include "core/time_format.h"
#include "core/time_window.h"
#include "rules/engine/finding_fold.h"

namespace gpudoctor {
namespace {

Error Invalid(std::string message) { return Error{ErrorCode::kInvalid, std::move(message)}; }

Result<bool> ResolveWindow(const RecordedWindowRequest& o, WallTime now, RecordedReport& r) {
  auto w = ResolveTimeWindow({o.since, o.from, o.to, "1h", o.option_prefix}, now);
  if (!w) return w.error();
  std::tie(r.from, r.to) = *w;
  return true;
}

// Keeps the GPUs the request names (index, bus id or UUID), and the damaged
// parts of those GPUs. A named GPU whose every sample in the window is
// damaged is that error, not "no such GPU".
Result<bool> FilterGpus(StoredWindow& w, const RecordedWindowRequest& o, WallTime from,
                        WallTime to) {
  if (o.gpus.empty()) return true;
  std::vector<GpuSeries> kept;
  std::vector<StoredWindow::DamagedPart> kept_damage;
  for (const auto& text : o.gpus) {
    const StoredWindow::DamagedPart* damage = nullptr;
    for (const auto& d : w.damaged) {
      if (!GpuNamedBy(text, d.index, d.pci_bus_id, d.uuid)) continue;
      if (!damage) damage = &d;
      kept_damage.push_back(d);
    }
    auto match = std::find_if(w.gpus.begin(), w.gpus.end(), [&](const GpuSeries& g) {
      const GpuStatus& s = g.latest();
      return GpuNamedBy(text, s.index, s.pci_bus_id, s.uuid);
    });
    if (match == w.gpus.end() && damage) {
      return Error{ErrorCode::kCorrupt, damage->message + "; no samples of it could be read between " +
                                            FormatRfc3339(from) + " and " + FormatRfc3339(to)};
    }
    if (match == w.gpus.end()) {
      return Invalid(o.option_prefix + "gpu " + text + ": no such GPU recorded in this window");
    }
    kept.push_back(std::move(*match));
    w.gpus.erase(match);
  }
  w.gpus = std::move(kept);
  w.damaged = std::move(kept_damage);
  return true;
}

}  // namespace

bool GpuNamedBy(const std::string& text, unsigned index, const std::string& bus_id,
                const std::string& uuid) {
  std::string bus = NormalizePciBusId(text);
  return std::to_string(index) == text || (!bus.empty() && bus == bus_id) ||
         (!uuid.empty() && uuid == text);
}

ReportContext RecordedReport::Context(WallTime generated_at, Lang lang) const {
  ReportContext report;
  report.input = &input;
  report.diagnosis = &diagnosis;
  report.generated_at = generated_at;
  report.lang = lang;
  report.command = "report";
  report.timeline = &stored.timeline;
  report.summaries = &stored.summaries;
  for (const auto& part : stored.damaged) {
    report.files.push_back(ReportInputFile{store_path, source_kind, false, part.message, {}});
  }
  return report;
}

Result<std::unique_ptr<RecordedReport>> BuildRecordedReport(const RecordedWindowRequest& request,
                                                            WallTime now) {
  auto r = std::make_unique<RecordedReport>();
  if (auto w = ResolveWindow(request, now, *r); !w) return w.error();
  StoreOptions so;
  so.data_dir = request.data_dir;
  so.read_only = true;
  auto store = Store::Open(so);
  if (!store) {
    Error e = store.error();
    if (e.code == ErrorCode::kNotFound) {
      e.message +=
          " (nothing recorded: is `gpudoctor agent` running? For a check now: "
          "gpudoctor diagnose)";
    }
    return e;
  }
  auto stored = (*store)->ReadWindow(r->from, r->to, {});
  if (!stored) return stored.error();
  r->stored = std::move(*stored);
  r->store_path = request.data_dir + "/gpudoctor.db";
  if (auto f = FilterGpus(r->stored, request, r->from, r->to); !f) return f.error();
  const bool nothing =
      r->stored.gpus.empty() && r->stored.events.empty() && r->stored.timeline.findings.empty();
  if (nothing && !r->stored.damaged.empty()) {
    // Everything in the window is damaged: that, not "nothing recorded".
    std::string more = r->stored.damaged.size() > 1
                           ? " (and " + std::to_string(r->stored.damaged.size() - 1) + " more)"
                           : "";
    return Error{ErrorCode::kCorrupt, r->stored.damaged.front().message + more +
                                          "; nothing else was recorded between " +
                                          FormatRfc3339(r->from) + " and " + FormatRfc3339(r->to)};
  }
  if (nothing) {
    return Error{ErrorCode::kNotFound,
                 "nothing recorded in " + request.data_dir + " between " + FormatRfc3339(r->from) +
                     " and " + FormatRfc3339(r->to) +
                     "; is `gpudoctor agent` running? For a check now: gpudoctor diagnose"};
  }
  DiagnosisInput& input = r->input;
  input.config = request.config;
  input.recorded = true;
  input.window_from = r->from;
  input.window_to = r->to;
  input.gpus = std::move(r->stored.gpus);
  input.gpu_readings = !input.gpus.empty();
  input.nvml_loaded = !input.gpus.empty();
  input.kernel = KernelFacts{};
  input.kernel->events = std::move(r->stored.events);
  input.kernel->sources = {SourceStatus{"agent store " + request.data_dir, true, ""}};
  utsname u{};
  if (uname(&u) == 0) {
    input.hostname = u.nodename;
    input.kernel_release = u.release;
  }
  r->diagnosis = Diagnose(input);
  FoldAcrossGpus(r->diagnosis, input);
  return r;
}

}  // namespace gpudoctor
