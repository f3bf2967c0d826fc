#include "collect/evidence.h"

#include "collect/gpu_bus_ids.h"
#include "collect/gpu_stack.h"

#include <future>

#include "collect/process_owners.h"
#include "collect/service_state.h"
#include "parse/version_numbers.h"

namespace gpudoctor {
namespace {

HostGpuSummary Summarize(const SystemStatus& nvml) {
  HostGpuSummary summary;
  if (!nvml.nvml_loaded) return summary;
  summary.gpu_count = static_cast<unsigned>(nvml.gpus.size());
  std::uint64_t total = 0;
  for (const auto& g : nvml.gpus) total += static_cast<std::uint64_t>(g.memory_total_bytes.value_or(0));
  if (total > 0) summary.gpu_memory_total_bytes = total;
  return summary;
}

VersionInputs MakeVersionInputs(const SystemStatus& nvml, const PciFacts& pci,
                                const EvidenceOptions& options, ServiceStateReader* services) {
  VersionInputs in;
  if (nvml.driver_version) {
    if (auto v = ParseDriverVersion(*nvml.driver_version)) in.nvml_driver = *v;
  }
  if (nvml.cuda_driver_version) in.nvml_cuda = CudaFromEncoded(static_cast<int>(*nvml.cuda_driver_version));
  if (pci.sources.empty() || pci.sources.front().available) {
    in.nvswitch_present = !pci.nvswitches.empty();
  }
  in.python_envs = options.python_envs;
  in.services = services;
  in.run_programs = options.ctx.root == "/";
  return in;
}

}  // namespace

Evidence CollectEvidence(NvmlSession& nvml_session, const EvidenceOptions& options) {
  SystemStatus reading = nvml_session.Sample();
  MissingBusIds().Fill(options.ctx, reading);
  return CollectEvidence(reading, options);
}

Evidence CollectEvidence(const SystemStatus& nvml_reading, const EvidenceOptions& options) {
  const CollectContext& ctx = options.ctx;
  Evidence ev;
  ev.collected_at = ctx.now;
  ev.root = ctx.root.string();
  // Network rates and pings take their own window; run them alongside.
  auto network = std::async(std::launch::async, [&] {
    return CollectNetwork(ctx, options.sample_window, options.ping_targets);
  });
  ev.nvml = nvml_reading;
  ev.pci = ReadPciDevices(ctx);
  if (ev.nvml.nvml_loaded) {
    std::vector<std::string> bus_ids;
    for (const auto& g : ev.nvml.gpus) bus_ids.push_back(g.pci_bus_id);
    ev.dropped_gpus = FindDroppedGpus(ev.pci.gpus, bus_ids, options.expected_gpus);
  }
  std::vector<std::uint32_t> pids;
  for (const auto& g : ev.nvml.gpus) {
    if (!g.processes) continue;
    for (const auto& proc : *g.processes) pids.push_back(proc.pid);
  }
  ev.gpu_processes = DescribeProcesses(ctx, pids);
  ApplyProcessOwners(ev.gpu_processes, ev.nvml);
  NameKubeOwners(ctx, ev.nvml);
  ev.host = CollectHost(ctx, options.sample_window, Summarize(ev.nvml), 5, options.dataset_mounts);
  std::unique_ptr<ServiceStateReader> services;
  if (ctx.root == "/") services = MakeSystemdServiceStateReader();
  ev.versions = CollectVersionFacts(ctx, MakeVersionInputs(ev.nvml, ev.pci, options, services.get()));
  ev.versions.stack = ReadGpuStack(ctx, ev.pci);
  KernelFactsOptions kernel_options = options.kernel;
  kernel_options.aer_owner = AerOwnerOfBus(ev.pci);
  ev.kernel = CollectKernelFacts(ctx, kernel_options);
  ev.network = network.get();
  AssignNearestGpus(ev.network.rdma, ev.pci);
  if (ev.network.rdma_before) AssignNearestGpus(*ev.network.rdma_before, ev.pci);
  return ev;
}

}  // namespace gpudoctor
