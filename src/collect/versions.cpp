#include "collect/versions.h"

namespace gpudoctor {

VersionFacts CollectVersionFacts(const CollectContext& ctx, const VersionInputs& inputs) {
  VersionFacts facts;
  facts.driver =
      CollectDriverVersions(ctx, DriverCollectOptions{inputs.nvml_driver, inputs.services});
  const std::optional<DriverVersion> driver = facts.driver.effective_version;

  CudaCollectOptions cuda;
  cuda.driver = driver;
  cuda.driver_cuda = inputs.nvml_cuda;
  cuda.run_nvcc = inputs.run_programs;
  facts.cuda = CollectCudaVersions(ctx, cuda);

  FrameworkCollectOptions fw;
  fw.driver = driver;
  fw.driver_cuda = inputs.nvml_cuda;
  fw.python_envs = inputs.python_envs;
  facts.frameworks = CollectFrameworks(ctx, fw);

  FabricManagerOptions fm;
  fm.driver = driver;
  fm.services = inputs.services;
  fm.run_binary = inputs.run_programs;
  if (inputs.nvswitch_present) {
    fm.nvswitch_present = *inputs.nvswitch_present;
  } else {
    auto count = CountNvSwitchesInSysfs(ctx);
    fm.nvswitch_present = count.ok() && *count > 0;
    facts.fabric_manager.sources.push_back(StatusOf("/sys/bus/pci/devices", count));
  }
  auto sources = std::move(facts.fabric_manager.sources);
  facts.fabric_manager = CollectFabricManager(ctx, fm);
  facts.fabric_manager.sources.insert(facts.fabric_manager.sources.begin(), sources.begin(),
                                      sources.end());
  return facts;
}

}  // namespace gpudoctor
