#include "render/prometheus_processes.h"

#include <algorithm>
#include <optional>

namespace gpudoctor {
namespace {

struct ProcessFamily {
  const char* name;
  const char* help;
  std::optional<double> (*get)(const GpuProcess&);
};

std::optional<double> ProcessPercentRatio(const std::optional<std::int64_t>& percent) {
  return percent ? std::optional<double>(static_cast<double>(*percent) * 0.01) : std::nullopt;
}

const ProcessFamily kProcessFamilies[] = {
    {"gpudoctor_process_gpu_memory_bytes", "GPU memory the process holds",
     [](const GpuProcess& p) {
       return p.used_memory_bytes ? std::optional<double>(static_cast<double>(*p.used_memory_bytes))
                                  : std::nullopt;
     }},
    {"gpudoctor_process_sm_utilization_ratio",
     "Share of the driver's last sample period the process's kernels ran on the SMs (0-1)",
     [](const GpuProcess& p) { return ProcessPercentRatio(p.sm_util_percent); }},
    {"gpudoctor_process_memory_utilization_ratio",
     "Share of the driver's last sample period the process read or wrote GPU memory (0-1)",
     [](const GpuProcess& p) { return ProcessPercentRatio(p.memory_util_percent); }},
};

std::string ProcessLabelText(const GpuProcess& p) {
  return PromLabel("pid", std::to_string(p.pid)) + "," + PromLabel("process", p.name) + "," +
         PromLabel("container", ContainerLabelOf(p)) + "," + PromLabel("container_id", p.container_id) +
         "," + PromLabel("pod", p.pod_name) + "," +
         PromLabel("namespace", p.pod_namespace);
}

}  // namespace

std::vector<const GpuProcess*> TopProcessesByMemory(const GpuStatus& g, unsigned n) {
  std::vector<const GpuProcess*> out;
  if (!g.processes) return out;
  for (const auto& p : *g.processes) out.push_back(&p);
  std::sort(out.begin(), out.end(), [](const GpuProcess* a, const GpuProcess* b) {
    const std::int64_t ma = a->used_memory_bytes.value_or(-1);
    const std::int64_t mb = b->used_memory_bytes.value_or(-1);
    return ma != mb ? ma > mb : a->pid < b->pid;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

void WriteProcessMetrics(const AgentLiveSnapshot& s, unsigned top_n, Exposition& e) {
  if (top_n == 0) return;
  MetricGpuLabels scratch;
  for (const auto& family : kProcessFamilies) {
    e.Family(family.name, "gauge", family.help);
    for (const auto& g : s.status.gpus) {
      const std::string gpu = GpuLabelText(LabelsOf(s, g, scratch));
      for (const GpuProcess* p : TopProcessesByMemory(g, top_n)) {
        if (auto v = family.get(*p)) e.Sample(JoinLabels(gpu, ProcessLabelText(*p)), *v);
      }
    }
  }
}

}  // namespace gpudoctor
