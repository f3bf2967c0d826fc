// Pod names and namespaces from the kubelet's /var/log/pods directories:
// the parser of a directory name, the reader below a fake root, and the
// owner cache that puts them on GPU processes whose cgroup names the pod.
#include <gtest/gtest.h>

#include "collect/kube_pods.h"
#include "collect/process_owners.h"
#include "parse/kube_pod_dir.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

constexpr const char* kTrainUid = "1b2c3d4e-5f60-4a7b-8c9d-0e1f2a3b4c5d";

TEST(KubePodDir, SplitsNamespaceNameAndUid) {
  auto pod = ParsePodLogDirName(std::string("ml-team_trainer-7f9c-0_") + kTrainUid);
  ASSERT_TRUE(pod.has_value());
  EXPECT_EQ(pod->namespace_name, "ml-team");
  EXPECT_EQ(pod->name, "trainer-7f9c-0");
  EXPECT_EQ(pod->uid, kTrainUid);
  // A static pod's uid is the hash of its manifest: hex without dashes.
  auto stat = ParsePodLogDirName("kube-system_kube-apiserver-node1.example_6f5e4d3c2b1a09f8e7d6c5b4a3928170");
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->name, "kube-apiserver-node1.example");
}

TEST(KubePodDir, RejectsWhatIsNotAPodDirectory) {
  for (const char* bad : {"", "default", "default_web", "default_web_", "_web_1234",
                          "default__1234", "default_web_1234_extra", "Default_web_1234",
                          "default_web_12G4", "default_we b_1234", ".._.._1234", "-ns_web_1234", "ns_web-_1234"}) {
    EXPECT_FALSE(ParsePodLogDirName(bad).has_value()) << bad;
  }
}

TEST(KubePods, ReadsTheDirectoriesBelowTheRootAndSkipsOthers) {
  test::TempDir root;
  root.Write(std::string("var/log/pods/ml-team_trainer-0_") + kTrainUid + "/trainer/0.log", "x\n");
  root.Write("var/log/pods/default_web-1_aaaa-bbbb/web/0.log", "x\n");
  root.Write("var/log/pods/not-a-pod/x.log", "x\n");
  CollectContext ctx;
  ctx.root = root.path();
  auto pods = ReadKubePods(ctx);
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods.at(kTrainUid).name, "trainer-0");
  EXPECT_EQ(pods.at("aaaa-bbbb").namespace_name, "default");
}

TEST(KubePods, NoPodDirectoryIsAnEmptyMap) {
  test::TempDir root;
  CollectContext ctx;
  ctx.root = root.path();
  EXPECT_TRUE(ReadKubePods(ctx).empty());
}

void WriteProcess(const test::TempDir& root, const std::string& pid, const std::string& cgroup) {
  root.Write("proc/" + pid + "/status", "Name:\tx\nUid:\t0\t0\t0\t0\n");
  root.Write("proc/" + pid + "/cgroup", cgroup);
}

SystemStatus OneGpuWith(std::vector<std::uint32_t> pids) {
  SystemStatus s;
  GpuStatus g;
  g.processes.emplace();
  for (auto pid : pids) g.processes->emplace_back(pid, "python3", 1 << 20);
  s.gpus.push_back(g);
  return s;
}

TEST(ProcessOwnerCache, NamesThePodOfAProcessFromItsCgroupUid) {
  test::TempDir root;
  WriteProcess(root, "4242",
               "0::/kubepods.slice/kubepods-pod1b2c3d4e_5f60_4a7b_8c9d_0e1f2a3b4c5d.slice/"
               "cri-containerd-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
               ".scope\n");
  WriteProcess(root, "5151", "0::/user.slice/user-0.slice/session-1.scope\n");
  CollectContext ctx;
  ctx.root = root.path();
  ProcessOwnerCache cache;
  // The pod directory appears after the first look: the uid is not looked
  // up again at every sample, only once a new pid shows up.
  SystemStatus first = OneGpuWith({4242, 5151});
  cache.Annotate(ctx, first);
  EXPECT_EQ((*first.gpus[0].processes)[0].pod_uid, kTrainUid);
  EXPECT_EQ((*first.gpus[0].processes)[0].pod_name, "");
  root.Write(std::string("var/log/pods/ml-team_trainer-0_") + kTrainUid + "/t/0.log", "x\n");
  SystemStatus second = OneGpuWith({4242, 5151});
  cache.Annotate(ctx, second);
  EXPECT_EQ((*second.gpus[0].processes)[0].pod_name, "");
  WriteProcess(root, "6262", "0::/system.slice/x.service\n");
  SystemStatus third = OneGpuWith({4242, 5151, 6262});
  cache.Annotate(ctx, third);
  const auto& train = (*third.gpus[0].processes)[0];
  EXPECT_EQ(train.container_id, "0123456789ab");
  EXPECT_EQ(train.pod_name, "trainer-0");
  EXPECT_EQ(train.pod_namespace, "ml-team");
  const auto& shell = (*third.gpus[0].processes)[1];
  EXPECT_EQ(shell.pod_name, "");
  EXPECT_EQ(shell.pod_namespace, "");
}

}  // namespace
}  // namespace gpudoctor
