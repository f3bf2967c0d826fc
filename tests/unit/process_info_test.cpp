#include "collect/process_info.h"

#include <gtest/gtest.h>

#include "support/temp_files.h"

namespace gpudoctor {
namespace {

const std::string kHex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(ProcessInfo, CommandUserAndContainer) {
  test::TempDir root;
  root.Write("etc/passwd",
             "root:x:0:0::/root:/bin/bash\nalice:x:1001:1001::/home/alice:/bin/bash\n");
  root.Write("proc/4242/status", "Name:\tpython\nUid:\t1001\t1001\t1001\t1001\n");
  root.Write("proc/4242/comm", "python\n");
  root.Write("proc/4242/cmdline", std::string("python\0-m\0torch.distributed.run\0", 32));
  root.Write("proc/4242/cgroup",
             "0::/kubepods.slice/kubepods-pod9a8b7c6d_1111_2222_3333_444455556666.slice/"
             "cri-containerd-" +
                 kHex64 + ".scope\n");
  root.Write("proc/77/status", "Name:\tdaemon\nUid:\t4000\t4000\t4000\t4000\n");
  root.Write("proc/77/cgroup", "0::/system.slice/daemon.service\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto infos = DescribeProcesses(ctx, {4242, 77, 99999});
  ASSERT_EQ(infos.size(), 3u);

  const auto& p = infos[0];
  EXPECT_TRUE(p.visible);
  EXPECT_EQ(p.comm, "python");
  EXPECT_EQ(p.cmdline, "python -m torch.distributed.run");
  EXPECT_EQ(p.uid, 1001u);
  EXPECT_EQ(p.user, "alice");
  ASSERT_TRUE(p.container.has_value());
  EXPECT_EQ(p.container->container_id, "0123456789ab");
  EXPECT_EQ(p.container->runtime, "containerd");
  EXPECT_EQ(p.container->pod_uid, "9a8b7c6d-1111-2222-3333-444455556666");

  EXPECT_TRUE(infos[1].visible);
  EXPECT_EQ(infos[1].uid, 4000u);
  EXPECT_EQ(infos[1].user, "");  // no passwd entry: the uid stays
  EXPECT_FALSE(infos[1].container.has_value());
  EXPECT_EQ(infos[1].cgroup_path, "/system.slice/daemon.service");

  EXPECT_FALSE(infos[2].visible);
  EXPECT_NE(infos[2].why_not_visible.find("other pid namespace"), std::string::npos);
}

TEST(ProcessInfo, V1DockerPath) {
  test::TempDir root;
  root.Write("proc/5/status", "Uid:\t0\t0\t0\t0\n");
  root.Write("proc/5/cgroup",
             "11:devices:/docker/" + kHex64 + "\n1:name=systemd:/docker/" + kHex64 + "\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto infos = DescribeProcesses(ctx, {5});
  ASSERT_EQ(infos.size(), 1u);
  ASSERT_TRUE(infos[0].container.has_value());
  EXPECT_EQ(infos[0].container->runtime, "docker");
  EXPECT_EQ(infos[0].container->container_id, "0123456789ab");
  EXPECT_EQ(infos[0].user, "");  // no /etc/passwd under this root
}

}  // namespace
}  // namespace gpudoctor
