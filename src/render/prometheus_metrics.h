// The agent's /metrics: Prometheus text exposition (version 0.0.4) or
// OpenMetrics 1.0 of an AgentLiveSnapshot. Pure: the snapshot in, the text out.
// Names are gpudoctor_* in base units; every series of a GPU carries the
// labels gpu (index), uuid, pci_bus_id and model, and the series read from
// the latest sample also pod and namespace while a single Kubernetes pod
// runs every process on the GPU. gpudoctor_process_* series describe the
// processes holding the most memory on each GPU. With MetricNames::kDcgm the
// GPU readings are served in dcgm-exporter's names, units and labels instead
// (render/prometheus_dcgm.h), with kBoth in both.
#pragma once

#include <string>
#include <string_view>

#include "core/metric_names.h"
#include "render/agent_snapshot.h"

namespace gpudoctor {

enum class ExpositionFormat { kPrometheusText, kOpenMetrics };

// OpenMetrics when the Accept header asks for application/openmetrics-text,
// the Prometheus text format otherwise.
ExpositionFormat ChooseExposition(std::string_view accept_header);
const char* ExpositionContentType(ExpositionFormat format);

// A label value with backslash, double quote and newline escaped, and every
// sequence that is not UTF-8 made U+FFFD (core/utf8.h): valid exposition
// whatever the value holds.
std::string EscapeLabelValue(std::string_view value);

struct MetricsRenderOptions {
  MetricNames names = MetricNames::kGpudoctor;
  unsigned top_processes = kDefaultTopProcesses;  // per GPU; 0: no per-process series
  std::string hostname;                           // dcgm-exporter's Hostname label
};

std::string RenderPrometheusMetrics(const AgentLiveSnapshot& snapshot, ExpositionFormat format,
                                    const MetricsRenderOptions& options = {});

}  // namespace gpudoctor
