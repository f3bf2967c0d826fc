// The GPU's software stack on the host: the parsers of its files (a PCI
// configuration space's ACS capability, /proc/modules, /proc/cpuinfo, CDI
// specs, Docker's daemon.json, containerd's config) and the rules
// stack.peermem, stack.iommu, stack.acs and stack.container_toolkit. The
// file excerpts follow what the kernel and NVIDIA's container toolkit
// (nvidia-ctk) write.
#include <gtest/gtest.h>

#include "parse/gpu_stack.h"
#include "parse/version_numbers.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {
namespace rule_stack_local {

void Put32(std::string& b, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

// A bridge's 4 KiB configuration space: AER at 0x100, then ACS at 0x148
// with `control`. lspci -vvv prints 0x1d as "ACSCtl: SrcValid+ TransBlk-
// ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", the default
// of many server BIOSes.
std::string BridgeConfig(std::uint16_t control) {
  std::string b(4096, '\0');
  Put32(b, 0x100, 0x0001u | (0x2u << 16) | (0x148u << 20));  // AER v2, next 0x148
  Put32(b, 0x148, 0x000du | (0x1u << 16));                   // ACS v1, last
  Put32(b, 0x14c, 0x005fu | (std::uint32_t{control} << 16));
  return b;
}

TEST(StackParsers, AcsControlIsFoundInTheExtendedCapabilities) {
  EXPECT_EQ(AcsControl(BridgeConfig(0x1d)), 0x1d);
  EXPECT_TRUE(AcsRedirectsPeerToPeer(0x1d));
  EXPECT_FALSE(AcsRedirectsPeerToPeer(0x11));  // SrcValid + UpstreamFwd only
  // As a non-root reader sees it: 256 bytes.
  EXPECT_FALSE(AcsControl(BridgeConfig(0x1d).substr(0, 256)).has_value());
  // No ACS; a capability that points at itself; all ones (gone from the bus).
  std::string no_acs(4096, '\0');
  Put32(no_acs, 0x100, 0x0001u | (0x2u << 16));
  EXPECT_FALSE(AcsControl(no_acs).has_value());
  std::string loop(4096, '\0');
  Put32(loop, 0x100, 0x0001u | (0x100u << 20));
  EXPECT_FALSE(AcsControl(loop).has_value());
  EXPECT_FALSE(AcsControl(std::string(4096, '\xff')).has_value());
}

TEST(StackParsers, ModulesCpuinfoAndContainerFiles) {
  auto modules = ModuleNames(
      "nvidia_peermem 16384 0 - Live 0x0000000000000000 (POE)\n"
      "nvidia_uvm 1523712 4 - Live 0x0000000000000000 (POE)\n"
      "nvidia 56344576 213 nvidia_peermem,nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 "
      "(POE)\nib_core 434176 9 nvidia_peermem,rdma_cm, Live 0x0000000000000000\n");
  EXPECT_EQ(modules,
            (std::vector<std::string>{"nvidia_peermem", "nvidia_uvm", "nvidia", "ib_core"}));
  EXPECT_TRUE(
      CpuinfoHasHypervisor("processor\t: 0\nflags\t\t: fpu vme de pse hypervisor lahf_lm\n"));
  EXPECT_FALSE(CpuinfoHasHypervisor("processor\t: 0\nflags\t\t: fpu vme de pse lahf_lm\n"));
  const std::string cdi =
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  mounts:\n"
      "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.535.129.03\n"
      "    containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.535.129.03\n"
      "  - hostPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.129.03\n"
      "  - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.1\n";
  auto versions = CdiDriverVersions(cdi);
  ASSERT_EQ(versions.size(), 1u);
  EXPECT_EQ(versions[0].ToString(), "535.129.03");
  EXPECT_EQ(DockerNamesNvidiaRuntime(
                R"({"runtimes": {"nvidia": {"args": [], "path": "nvidia-container-runtime"}}})"),
            true);
  EXPECT_EQ(DockerNamesNvidiaRuntime(R"({"default-runtime": "nvidia"})"), true);
  EXPECT_EQ(DockerNamesNvidiaRuntime(R"({"log-driver": "json-file"})"), false);
  EXPECT_FALSE(DockerNamesNvidiaRuntime("{not json").has_value());
  EXPECT_TRUE(ContainerdConfigNamesNvidia(
      "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
      "  runtime_type = \"io.containerd.runc.v2\"\n"
      "  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
      "    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"));
  EXPECT_TRUE(ContainerdConfigNamesNvidia(
      "[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n"));
  EXPECT_FALSE(ContainerdConfigNamesNvidia(
      "version = 2\n# [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia]\n"
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n  enable_cdi = false\n"));
}

DiagnosisInput WithStack(GpuStackFacts s, bool gpus = true) {
  DiagnosisInput input;
  input.versions = VersionFacts{};
  s.read = true;
  input.versions->stack = std::move(s);
  input.versions->driver.effective_version = ParseDriverVersion("550.54.15");
  if (gpus) {
    input.pci = PciFacts{};
    PciDevice g;
    g.bus_id = "0000:18:00.0";
    input.pci->gpus.push_back(g);
  }
  return input;
}

bool HasCommand(const Finding& f, const std::string& part) {
  for (const auto& a : f.actions) {
    if (a.command.find(part) != std::string::npos) return true;
  }
  return false;
}

TEST(StackPeermem, RdmaDevicesWithoutPeermemWarn) {
  GpuStackFacts s;
  s.modules = std::vector<std::string>{"nvidia", "nvidia_uvm", "ib_core", "mlx5_ib"};
  s.infiniband_devices = {"mlx5_0", "mlx5_1"};
  auto d = RunRule(kStackPeermemRule, WithStack(s));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stack.peermem");
  EXPECT_EQ(d.findings[0].severity, Severity::kWarning);
  EXPECT_NE(d.findings[0].title.en.find("mlx5_0, mlx5_1"), std::string::npos);
  EXPECT_TRUE(HasCommand(d.findings[0], "modprobe nvidia_peermem"));
  // The open kernel modules: DMA-BUF may stand in, so info.
  auto open = WithStack(s);
  open.versions->driver.kernel_module = KernelModuleVersion{};
  open.versions->driver.kernel_module->open_module = true;
  EXPECT_EQ(RunRule(kStackPeermemRule, open).findings[0].severity, Severity::kInfo);
  // Loaded, or no RDMA device, or no NVIDIA driver: nothing.
  GpuStackFacts loaded = s;
  loaded.modules->push_back("nvidia_peermem");
  EXPECT_TRUE(RunRule(kStackPeermemRule, WithStack(loaded)).findings.empty());
  GpuStackFacts no_ib = s;
  no_ib.infiniband_devices.clear();
  EXPECT_TRUE(RunRule(kStackPeermemRule, WithStack(no_ib)).findings.empty());
  GpuStackFacts unread;
  auto nc = RunRule(kStackPeermemRule, WithStack(unread));
  ASSERT_EQ(nc.not_checked.size(), 1u);
}

TEST(StackIommu, TranslatedDmaOnBareMetalWarnsAndVmsAreLeftAlone) {
  GpuStackFacts s;
  s.virtual_machine = false;
  s.iommu_types = {{"0000:18:00.0", "DMA-FQ"}, {"0000:19:00.0", "identity"}};
  auto d = RunRule(kStackIommuRule, WithStack(s));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stack.iommu");
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{"0000:18:00.0"});
  EXPECT_TRUE(HasCommand(d.findings[0], "iommu=pt"));
  s.virtual_machine = true;
  EXPECT_TRUE(RunRule(kStackIommuRule, WithStack(s)).findings.empty());
  s.virtual_machine = false;
  s.iommu_types = {{"0000:18:00.0", "identity"}};
  EXPECT_TRUE(RunRule(kStackIommuRule, WithStack(s)).findings.empty());
}

TEST(StackAcs, RedirectOnBareMetalWarnsUnreadableIsNotChecked) {
  GpuStackFacts s;
  s.virtual_machine = false;
  s.acs_ports_read = 3;
  s.acs_redirects = {AcsRedirect{"0000:15:01.0", "0000:18:00.0", 0x1d}};
  auto d = RunRule(kStackAcsRule, WithStack(s));
  ASSERT_EQ(d.findings.size(), 1u);
  EXPECT_EQ(d.findings[0].id, "stack.acs");
  EXPECT_EQ(d.findings[0].gpus, std::vector<std::string>{"0000:18:00.0"});
  EXPECT_NE(d.findings[0].evidence[0].text.en.find("ACS Control 0x001d"), std::string::npos)
      << d.findings[0].evidence[0].text.en;
  EXPECT_TRUE(HasCommand(d.findings[0], "ECAP_ACS+0x6.w=0000"));
  s.virtual_machine = true;
  EXPECT_TRUE(RunRule(kStackAcsRule, WithStack(s)).findings.empty());
  GpuStackFacts user;
  user.virtual_machine = false;
  user.acs_unreadable = 3;
  auto nc = RunRule(kStackAcsRule, WithStack(user));
  EXPECT_TRUE(nc.findings.empty());
  ASSERT_EQ(nc.not_checked.size(), 1u);
  EXPECT_NE(nc.not_checked[0].reason.en.find("needs root"), std::string::npos);
  // Bare metal or VM unknown: not judged.
  GpuStackFacts unknown = s;
  unknown.virtual_machine.reset();
  auto vm = RunRule(kStackAcsRule, WithStack(unknown));
  EXPECT_TRUE(vm.findings.empty());
  ASSERT_EQ(vm.not_checked.size(), 1u);
}

TEST(StackContainerToolkit, MissingToolkitUnconfiguredContainerdAndAStaleCdiSpec) {
  GpuStackFacts s;
  s.containers.runtimes = {"docker"};
  auto missing = RunRule(kStackContainerToolkitRule, WithStack(s));
  ASSERT_EQ(missing.findings.size(), 1u);
  EXPECT_EQ(missing.findings[0].id, "stack.container_toolkit");
  EXPECT_NE(missing.findings[0].title.en.find("nvidia-container-toolkit is not"),
            std::string::npos);
  EXPECT_TRUE(HasCommand(missing.findings[0], "--runtime=docker"));
  // No GPU on the node: nothing to say.
  EXPECT_TRUE(RunRule(kStackContainerToolkitRule, WithStack(s, false)).findings.empty());

  GpuStackFacts k8s;
  k8s.containers.runtimes = {"containerd"};
  k8s.containers.kubernetes = true;
  k8s.containers.toolkit = "/usr/bin/nvidia-ctk";
  k8s.containers.containerd_nvidia = false;
  k8s.containers.containerd_config = "/etc/containerd/config.toml";
  auto unconfigured = RunRule(kStackContainerToolkitRule, WithStack(k8s));
  ASSERT_EQ(unconfigured.findings.size(), 1u);
  EXPECT_TRUE(HasCommand(unconfigured.findings[0], "--runtime=containerd"));
  k8s.containers.containerd_nvidia = true;
  EXPECT_TRUE(RunRule(kStackContainerToolkitRule, WithStack(k8s)).findings.empty());

  k8s.containers.cdi_specs = {CdiSpec{"/etc/cdi/nvidia.yaml", {*ParseDriverVersion("535.129.03")}}};
  auto stale = RunRule(kStackContainerToolkitRule, WithStack(k8s));
  ASSERT_EQ(stale.findings.size(), 1u);
  EXPECT_NE(stale.findings[0].evidence[0].text.en.find("driver 535.129.03; the loaded driver is "
                                                       "550.54.15"),
            std::string::npos)
      << stale.findings[0].evidence[0].text.en;
  EXPECT_TRUE(
      HasCommand(stale.findings[0], "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml"));
  k8s.containers.cdi_specs[0].driver_versions = {*ParseDriverVersion("550.54.15")};
  EXPECT_TRUE(RunRule(kStackContainerToolkitRule, WithStack(k8s)).findings.empty());
  // No container runtime at all.
  EXPECT_TRUE(RunRule(kStackContainerToolkitRule, WithStack(GpuStackFacts{})).findings.empty());
}

}  // namespace rule_stack_local
}  // namespace
}  // namespace gpudoctor::testing
