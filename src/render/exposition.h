// The pieces the /metrics renderers share (render/prometheus_metrics.cpp,
// prometheus_processes.cpp, prometheus_dcgm.cpp): label text, numbers, and
// a writer of metric families in the Prometheus text format or OpenMetrics.
#pragma once

#include <string>
#include <string_view>

#include "render/agent_snapshot.h"
#include "render/prometheus_metrics.h"

namespace gpudoctor {

// A number as the exposition formats write it (NaN, +Inf, -Inf, shortest
// round-trip decimal otherwise).
std::string ExpositionNumber(double v);
// name="value", the value escaped.
std::string PromLabel(std::string_view name, std::string_view value);
// Two comma-separated label lists joined; either may be empty.
std::string JoinLabels(const std::string& a, const std::string& b);

// The identity labels of a GPU in gpudoctor's names: gpu, uuid, pci_bus_id, model.
std::string GpuLabelText(const MetricGpuLabels& l);
// The labels the agent knew the GPU by (kept across a lost GPU), else its own.
const MetricGpuLabels& LabelsOf(const AgentLiveSnapshot& s, const GpuStatus& g,
                                MetricGpuLabels& scratch);

// The Kubernetes pod of every process on the GPU, when all of them run in
// one pod whose name is known; null otherwise. With `gpu_instance_id`: of
// every process in that MIG GPU instance (as NVML's process record names
// it), null when none runs there.
const GpuProcess* SinglePodOf(const GpuStatus& g,
                              std::optional<unsigned> gpu_instance_id = std::nullopt);

// The `container` label of a process: the container's name where the
// kubelet names it, else the runtime's 12-digit id; empty outside one.
const std::string& ContainerLabelOf(const GpuProcess& p);

// Writes families one after the other: HELP and TYPE, then the samples.
class Exposition {
 public:
  explicit Exposition(ExpositionFormat format) : format_(format) { out_.reserve(64 * 1024); }

  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(const std::string& labels, double value, std::string_view suffix = "");
  std::string Finish();

 private:
  ExpositionFormat format_;
  std::string name_;
  std::string out_;
};

}  // namespace gpudoctor
