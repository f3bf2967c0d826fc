#include "parse/cgroup.h"

#include <gtest/gtest.h>

#include "collect/cgroup_limits.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

const std::string kHex64 = "4f1c2b3a5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7a8";

TEST(CgroupParse, ProcCgroupV1AndV2) {
  auto lines = ParseProcCgroup(
      "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n0::/user.slice\n");
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ(CgroupPathFor(*lines, "cpuacct"), "/docker/abc");
  EXPECT_EQ(CgroupPathFor(*lines, "memory"), "/docker/abc");
  EXPECT_EQ(CgroupPathFor(*lines, ""), "/user.slice");
  EXPECT_EQ(CgroupPathFor(*lines, "pids"), std::nullopt);
  EXPECT_FALSE(ParseProcCgroup("garbage\n").ok());
}

TEST(CgroupParse, CpuMax) {
  auto unlimited = ParseCpuMax("max 100000\n");
  ASSERT_TRUE(unlimited.ok());
  EXPECT_EQ(unlimited->Cores(), std::nullopt);
  auto two = ParseCpuMax("200000 100000\n");
  ASSERT_TRUE(two.ok());
  EXPECT_DOUBLE_EQ(*two->Cores(), 2.0);
  auto half = ParseCpuMax("50000 100000");
  EXPECT_DOUBLE_EQ(*half->Cores(), 0.5);
  EXPECT_FALSE(ParseCpuMax("lots 100000").ok());
  EXPECT_FALSE(ParseCpuMax("100 0").ok());
}

TEST(CgroupParse, CfsQuota) {
  EXPECT_EQ(ParseCfsQuota("-1\n", "100000\n")->Cores(), std::nullopt);
  EXPECT_DOUBLE_EQ(*ParseCfsQuota("400000", "100000")->Cores(), 4.0);
  EXPECT_FALSE(ParseCfsQuota("x", "100000").ok());
}

TEST(CgroupParse, MemoryLimit) {
  EXPECT_EQ(*ParseMemoryLimit("max\n"), std::nullopt);
  EXPECT_EQ(*ParseMemoryLimit("9223372036854771712\n"), std::nullopt);  // v1 "no limit"
  EXPECT_EQ(*ParseMemoryLimit("8589934592\n"), 8589934592ull);
  EXPECT_FALSE(ParseMemoryLimit("8G").ok());
}

TEST(CgroupParse, ContainerFromPath) {
  struct Case {
    std::string path;
    std::string runtime, id, pod;
  } cases[] = {
      {"/system.slice/docker-" + kHex64 + ".scope", "docker", kHex64.substr(0, 12), ""},
      {"/docker/" + kHex64, "docker", kHex64.substr(0, 12), ""},
      {"/kubepods.slice/kubepods-burstable.slice/"
       "kubepods-burstable-pod1b2c3d4e_5f6a_7b8c_9d0e_1f2a3b4c5d6e.slice/cri-containerd-" +
           kHex64 + ".scope",
       "containerd", kHex64.substr(0, 12), "1b2c3d4e-5f6a-7b8c-9d0e-1f2a3b4c5d6e"},
      {"/kubepods/besteffort/pod1b2c3d4e-5f6a-7b8c-9d0e-1f2a3b4c5d6e/" + kHex64, "",
       kHex64.substr(0, 12), "1b2c3d4e-5f6a-7b8c-9d0e-1f2a3b4c5d6e"},
  };
  for (const auto& c : cases) {
    auto ref = ContainerFromCgroupPath(c.path);
    ASSERT_TRUE(ref.has_value()) << c.path;
    EXPECT_EQ(ref->runtime, c.runtime) << c.path;
    EXPECT_EQ(ref->container_id, c.id) << c.path;
    EXPECT_EQ(ref->pod_uid, c.pod) << c.path;
  }
  EXPECT_FALSE(ContainerFromCgroupPath("/user.slice/user-1000.slice/session-3.scope").has_value());
  EXPECT_FALSE(ContainerFromCgroupPath("/").has_value());
}

TEST(CgroupLimits, V2LimitsFromAncestorAndLeaf) {
  test::TempDir root;
  root.Write("proc/self/cgroup", "0::/kubepods.slice/pod.slice/ctr.scope\n");
  root.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  root.Write("sys/fs/cgroup/kubepods.slice/cpu.max", "max 100000\n");
  root.Write("sys/fs/cgroup/kubepods.slice/pod.slice/cpu.max", "250000 100000\n");
  root.Write("sys/fs/cgroup/kubepods.slice/pod.slice/ctr.scope/cpu.max", "max 100000\n");
  root.Write("sys/fs/cgroup/kubepods.slice/pod.slice/memory.max", "max\n");
  root.Write("sys/fs/cgroup/kubepods.slice/pod.slice/ctr.scope/memory.max", "4294967296\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto limits = ReadCgroupLimits(ctx);
  EXPECT_EQ(limits.version, "v2");
  ASSERT_TRUE(limits.cpu_quota_cores.has_value());
  EXPECT_DOUBLE_EQ(*limits.cpu_quota_cores, 2.5);
  EXPECT_EQ(limits.cpu_quota_file, "/sys/fs/cgroup/kubepods.slice/pod.slice/cpu.max");
  EXPECT_EQ(limits.memory_limit_bytes, 4294967296ull);
}

TEST(CgroupLimits, V2InsideCgroupNamespace) {
  // With a cgroup namespace the process sees "0::/" and its own limits at
  // the mount root.
  test::TempDir root;
  root.Write("proc/self/cgroup", "0::/\n");
  root.Write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  root.Write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  root.Write("sys/fs/cgroup/memory.max", "max\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto limits = ReadCgroupLimits(ctx);
  EXPECT_DOUBLE_EQ(limits.cpu_quota_cores.value_or(-1), 1.0);
  EXPECT_EQ(limits.memory_limit_bytes, std::nullopt);
}

TEST(CgroupLimits, V1QuotaAndMemory) {
  test::TempDir root;
  root.Write("proc/self/cgroup",
             "9:memory:/docker/" + kHex64 + "\n3:cpu,cpuacct:/docker/" + kHex64 + "\n");
  const std::string cpu_dir = "sys/fs/cgroup/cpu,cpuacct/docker/" + kHex64 + "/";
  root.Write(cpu_dir + "cpu.cfs_quota_us", "300000\n");
  root.Write(cpu_dir + "cpu.cfs_period_us", "100000\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  root.Write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  root.Write("sys/fs/cgroup/memory/docker/" + kHex64 + "/memory.limit_in_bytes", "17179869184\n");
  root.Write("sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto limits = ReadCgroupLimits(ctx);
  EXPECT_EQ(limits.version, "v1");
  EXPECT_DOUBLE_EQ(limits.cpu_quota_cores.value_or(-1), 3.0);
  EXPECT_EQ(limits.memory_limit_bytes, 17179869184ull);
  ASSERT_TRUE(limits.container.has_value());
  EXPECT_EQ(limits.container->container_id, kHex64.substr(0, 12));
  EXPECT_EQ(limits.container->runtime, "docker");
}

TEST(CgroupLimits, UnreadableSaysWhy) {
  test::TempDir root;
  CollectContext ctx;
  ctx.root = root.path();
  auto limits = ReadCgroupLimits(ctx);
  EXPECT_EQ(limits.version, "");
  EXPECT_EQ(limits.cpu_quota_cores, std::nullopt);
  ASSERT_FALSE(limits.sources.empty());
  EXPECT_EQ(limits.sources[0].source, "/proc/self/cgroup");
  EXPECT_FALSE(limits.sources[0].available);
  EXPECT_NE(limits.sources[0].why.find("No such file"), std::string::npos);
}

}  // namespace
}  // namespace gpudoctor
