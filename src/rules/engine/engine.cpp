#include "rules/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "knowledge/severity_policy.h"
#include "rules/engine/recovery.h"
#include "rules/engine/registry.h"

namespace gpudoctor {
namespace {

// Joins the reasons of the sources that could not be read.
std::string UnavailableSources(const std::vector<SourceStatus>& sources) {
  std::string out;
  for (const auto& s : sources) {
    if (s.available) continue;
    if (!out.empty()) out += "; ";
    out += s.source + ": " + s.why;
  }
  return out;
}

// The user's [severity] overrides: a finding whose Xid codes all have one
// takes the highest of them (a finding that also names codes without one
// keeps the rule's level, which the other codes justify).
void ApplyXidOverrides(Finding& f, const Config& config) {
  const SeverityOverrides& overrides = config.severity;
  if (f.xids.empty() || overrides.xid.empty()) return;
  std::optional<XidSeverity> level;
  std::string keys;
  for (int code : f.xids) {
    auto one = XidOverride(code, overrides);
    if (!one) return;
    level = level ? std::max(*level, *one) : *one;
    keys += fmt::format("{}xid.{} = \"{}\"", keys.empty() ? "" : ", ", code, XidSeverityName(*one));
  }
  f.severity = *level == XidSeverity::kCritical  ? Severity::kCritical
               : *level == XidSeverity::kWarning ? Severity::kWarning
                                                 : Severity::kInfo;
  f.evidence.push_back(EvidenceItem{
      Text{fmt::format("level set by the config file {} ([severity] {})", config.source, keys),
           fmt::format("级别由配置文件 {} 设定（[severity] {}）", config.source, keys)},
      std::nullopt, "", std::nullopt, std::nullopt});
}

bool AnyAvailable(const std::vector<SourceStatus>& sources) {
  return std::any_of(sources.begin(), sources.end(), [](const auto& s) { return s.available; });
}

Text LiveOnly(const char* what_en, const char* what_zh) {
  return Text{std::string("no ") + what_en + " in the analysed files (only a live diagnose reads it)",
              std::string("分析的文件中没有") + what_zh + "（只有在本机运行 diagnose 时才会读取）"};
}

Text KernelLogMissing(const DiagnosisInput& input) {
  if (!input.kernel) {
    if (input.live) return Text{"the kernel log was not read", "未读取内核日志"};
    return Text{"no kernel log or journal among the analysed files",
                "分析的文件中没有内核日志或 journal"};
  }
  if (input.kernel->sources.empty() || AnyAvailable(input.kernel->sources)) return {};
  std::string why = UnavailableSources(input.kernel->sources);
  return Text{"the kernel log could not be read (" + why + ")",
              "无法读取内核日志（" + why + "）"};
}

}  // namespace

Text MissingEvidence(const DiagnosisInput& input, unsigned need) {
  if ((need & kNeedsGpuReadings) != 0 && !input.gpu_readings) {
    if (input.live) return Text{"no GPU reading was taken", "未能读取 GPU 数据"};
    if (input.recorded) {
      return Text{"no GPU samples could be read from the store for this window",
                  "无法从存储中读取该时间窗口的 GPU 采样"};
    }
    return Text{"no GPU readings (nvidia-smi -q / -q -x output) among the analysed files",
                "分析的文件中没有 GPU 读数（nvidia-smi -q 或 -q -x 的输出）"};
  }
  if ((need & kNeedsGpuReadings) != 0 && !input.nvml_loaded && input.gpus.empty()) {
    return Text{"NVML could not be used: " + input.nvml_error,
                "无法使用 NVML：" + input.nvml_error};
  }
  const bool nvml_xids = input.kernel && input.kernel->nvml_xid_events;
  if ((need & kNeedsKernelLog) != 0 || ((need & kNeedsXidEvents) != 0 && !nvml_xids)) {
    Text missing = KernelLogMissing(input);
    if (!missing.en.empty()) return missing;
  }
  if ((need & kNeedsHost) != 0 && !input.host) return LiveOnly("host CPU and memory readings", "主机 CPU 和内存读数");
  if ((need & kNeedsPci) != 0) {
    if (!input.pci) return LiveOnly("PCI device list (sysfs)", "PCI 设备列表（sysfs）");
    if (!input.pci->sources.empty() && !AnyAvailable(input.pci->sources)) {
      std::string why = UnavailableSources(input.pci->sources);
      return Text{"the PCI devices could not be read (" + why + ")",
                  "无法读取 PCI 设备（" + why + "）"};
    }
  }
  if ((need & kNeedsVersions) != 0 && !input.versions) {
    return LiveOnly("installed driver, CUDA and framework versions", "已安装的驱动、CUDA 和框架版本信息");
  }
  if ((need & kNeedsNetwork) != 0 && !input.network) return LiveOnly("network readings", "网络读数");
  if ((need & kNeedsActive) != 0 && !input.active) {
    return Text{"no active test was run (gpudoctor stress)", "未运行主动测试（gpudoctor stress）"};
  }
  return {};
}

Diagnosis Diagnose(const DiagnosisInput& input, const std::vector<const Rule*>& rules) {
  Diagnosis d;
  std::vector<std::pair<std::size_t, Finding>> ordered;  // rule position, finding
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& rule = *rules[i];
    if ((rule.needs & kNeedsActive) != 0 && !input.active) continue;
    Text missing = MissingEvidence(input, rule.needs);
    if (!missing.en.empty()) {
      d.not_checked.push_back(NotChecked{std::string(rule.id), std::move(missing)});
      continue;
    }
    RuleOutput out(rule.id, rule.category);
    try {
      rule.evaluate(input, out);
    } catch (const std::exception& e) {
      d.not_checked.push_back(NotChecked{std::string(rule.id),
                                         Text{std::string("internal error: ") + e.what(),
                                              std::string("内部错误：") + e.what()}});
      continue;
    }
    d.rules_run.emplace_back(rule.id);
    for (auto& f : out.findings()) {
      std::sort(f.xids.begin(), f.xids.end());
      f.xids.erase(std::unique(f.xids.begin(), f.xids.end()), f.xids.end());
      ApplyXidOverrides(f, input.config);
      AssignRecovery(f, input);
      ordered.emplace_back(i, std::move(f));
    }
    for (auto& n : out.not_checked()) d.not_checked.push_back(std::move(n));
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
    if (a.second.severity != b.second.severity) return a.second.severity > b.second.severity;
    return a.first < b.first;
  });
  for (auto& [pos, f] : ordered) {
    d.verdict = std::max(d.verdict, f.severity);
    d.findings.push_back(std::move(f));
  }
  for (const GpuSeries& series : input.gpus) {
    const GpuStatus& g = series.latest();
    d.gpus.push_back(GpuVerdict{series.key,
                                g.index,
                                g.pci_bus_id,
                                g.uuid,
                                g.name,
                                GpuStateName(g.state),
                                Severity::kOk,
                                {},
                                {}});
  }
  RecomputeGpuVerdicts(d);
  return d;
}

void RecomputeGpuVerdicts(Diagnosis& d) {
  d.recommended = StrictestRecovery(d);
  for (GpuVerdict& v : d.gpus) {
    v.verdict = Severity::kOk;
    v.recommended = StrictestRecovery(d, v.key);
    v.finding_ids.clear();
    for (const Finding& f : d.findings) {
      if (std::find(f.gpus.begin(), f.gpus.end(), v.key) == f.gpus.end()) continue;
      v.verdict = std::max(v.verdict, f.severity);
      if (std::find(v.finding_ids.begin(), v.finding_ids.end(), f.id) == v.finding_ids.end()) {
        v.finding_ids.push_back(f.id);
      }
    }
  }
}

Diagnosis Diagnose(const DiagnosisInput& input) { return Diagnose(input, AllRules()); }

int ExitCodeFor(Severity verdict) {
  switch (verdict) {
    case Severity::kOk:
    case Severity::kInfo: return 0;
    case Severity::kWarning: return 1;
    case Severity::kCritical: return 2;
  }
  return 0;
}

}  // namespace gpudoctor
