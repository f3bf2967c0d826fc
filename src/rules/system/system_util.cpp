#include "rules/system/system_util.h"

#include <algorithm>

#include "rules/engine/window_stats.h"

namespace gpudoctor {

EvidenceItem NumberEvidence(std::string en, std::string zh, double value, std::string unit) {
  return EvidenceItem{Text{std::move(en), std::move(zh)}, value, std::move(unit), std::nullopt,
                      std::nullopt};
}

EvidenceItem TextEvidence(std::string en, std::string zh) {
  return EvidenceItem{Text{std::move(en), std::move(zh)}, std::nullopt, "", std::nullopt,
                      std::nullopt};
}

EvidenceItem LogLineEvidence(std::string line, SourceRef source, std::optional<WallTime> time) {
  // A log line is quoted as it is in both languages (what the user will grep
  // for); in backquotes in Chinese, where English outside quotes is a mistake.
  return EvidenceItem{Text{line, Backquoted(line)}, std::nullopt, "", std::move(source), time};
}

std::string Backquoted(const std::string& text) {
  std::string s = text;
  std::replace(s.begin(), s.end(), '`', '\'');  // a backquote inside would end the quote
  return "`" + s + "`";
}

std::string GibText(double bytes) { return FormatNumber(bytes / (1024.0 * 1024 * 1024)); }

std::string MibText(double bytes) { return FormatNumber(bytes / (1024.0 * 1024), 2); }

bool GpuHasProcesses(const GpuSeries& gpu) {
  return std::any_of(gpu.readings.begin(), gpu.readings.end(),
                     [](const GpuStatus& g) { return g.processes && !g.processes->empty(); });
}

std::vector<double> UtilizationValues(const GpuSeries& gpu) {
  return ValuesOf(gpu, [](const GpuStatus& g) -> std::optional<double> {
    if (!g.utilization_gpu_percent) return std::nullopt;
    return static_cast<double>(*g.utilization_gpu_percent);
  });
}

std::string GpuLabels(const std::vector<const GpuSeries*>& gpus) {
  std::string out;
  for (const GpuSeries* g : gpus) {
    if (!out.empty()) out += ", ";
    out += GpuLabel(g->latest());
  }
  return out;
}

bool NoNvidiaGpuOnBus(const DiagnosisInput& input) {
  if (!input.pci || !input.pci->gpus.empty()) return false;
  // An unreadable /sys/bus/pci/devices also leaves the list empty: that is
  // not knowing, not knowing there is none.
  return std::none_of(input.pci->sources.begin(), input.pci->sources.end(),
                      [](const SourceStatus& s) { return !s.available; });
}

}  // namespace gpudoctor
