// End-to-end: the GPU's software stack through `diagnose --root` over a
// captured tree: InfiniBand devices without nvidia_peermem, the GPU's IOMMU
// group translating DMA on bare metal, Docker installed without NVIDIA's
// container toolkit, and a CDI spec left from an older driver. Then the
// same tree set right gives none of these findings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace gpu_stack_e2e_local {

using nlohmann::json;

std::set<std::string> Ids(const json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

json Diagnose(const TempDir& root) {
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "500ms",
                         "--format", "json", "--lang", "en"},
                        std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json");
  EXPECT_TRUE(r.exit_code >= 0 && r.exit_code <= 2) << r.err;
  return json::parse(r.out);
}

TEST(GpuStackE2E, ABrokenStackAndThenTheSameNodeSetRight) {
  TempDir root;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});
  root.Write("proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme de pse tsc msr pae lahf_lm\n");
  root.Write("proc/modules",
             "nvidia_uvm 1523712 4 - Live 0x0000000000000000 (POE)\n"
             "nvidia 56344576 213 nvidia_uvm, Live 0x0000000000000000 (POE)\n"
             "mlx5_ib 405504 0 - Live 0x0000000000000000\n");
  root.Write("sys/class/infiniband/mlx5_0/node_type", "1: CA\n");
  root.Write("sys/bus/pci/devices/0000:18:00.0/iommu_group/type", "DMA-FQ\n");
  root.Write("sys/bus/pci/devices/0000:19:00.0/iommu_group/type", "DMA-FQ\n");
  root.Write("usr/bin/dockerd", "");
  root.Write("etc/cdi/nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  mounts:\n"
             "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.535.129.03\n");
  json broken = Diagnose(root);
  auto ids = Ids(broken);
  EXPECT_TRUE(ids.count("stack.peermem")) << broken["findings"].dump(2);
  EXPECT_TRUE(ids.count("stack.iommu"));
  ASSERT_TRUE(ids.count("stack.container_toolkit"));
  for (const auto& f : broken["findings"]) {
    if (f["id"] != "stack.container_toolkit") continue;
    EXPECT_NE(f.dump().find("driver 535.129.03; the loaded driver is 550.90.07"), std::string::npos)
        << f.dump(2);
  }

  root.Write("proc/modules",
             "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)\n"
             "nvidia 56344576 213 nvidia_peermem, Live 0x0000000000000000 (POE)\n");
  root.Write("sys/bus/pci/devices/0000:18:00.0/iommu_group/type", "identity\n");
  root.Write("sys/bus/pci/devices/0000:19:00.0/iommu_group/type", "identity\n");
  root.Write("usr/bin/nvidia-container-runtime-hook", "");
  root.Write("etc/cdi/nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  mounts:\n"
             "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.550.90.07\n");
  json fixed = Diagnose(root);
  auto fixed_ids = Ids(fixed);
  for (const char* id : {"stack.peermem", "stack.iommu", "stack.container_toolkit"}) {
    EXPECT_FALSE(fixed_ids.count(id)) << id << fixed["findings"].dump(2);
  }
}

}  // namespace gpu_stack_e2e_local
}  // namespace
}  // namespace gpudoctor::test
