// Pod names and namespaces from the kubelet's /var/log/pods directories and
// container names from its /var/log/containers links: the parsers of a
// directory's and a link's name, the readers below a fake root, and the
// owner cache that puts them on GPU processes whose cgroup names the pod.
#include <gtest/gtest.h>

#include <filesystem>

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

constexpr const char* kTrainContainer =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(KubeContainerLog, SplitsPodNamespaceContainerAndId) {
  auto c = ParseContainerLogName(std::string("trainer-7f9c-0_ml-team_pytorch-main-") +
                                 kTrainContainer + ".log");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->pod_name, "trainer-7f9c-0");
  EXPECT_EQ(c->namespace_name, "ml-team");
  // The id follows the last '-': a container name may hold dashes.
  EXPECT_EQ(c->container_name, "pytorch-main");
  EXPECT_EQ(c->container_id, kTrainContainer);
}

TEST(KubeContainerLog, RejectsWhatIsNotAContainerLink) {
  const std::string id = kTrainContainer;
  for (const std::string& bad : std::vector<std::string>{std::string(""), "pod_ns_c-" + id, "pod_ns_c-" + id + ".txt", "pod_ns_c" + id + ".log",
        "pod_ns_-" + id + ".log", "pod_c-" + id + ".log", "pod_ns_x_c-" + id + ".log",
        "pod_ns_c-" + id.substr(1) + ".log", "pod_ns_c-" + id.substr(0, 63) + "G.log",
        "pod_NS_c-" + id + ".log", "Pod_ns_c-" + id + ".log",
        std::string("pod_ns_c-0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef.log")}) {
    EXPECT_FALSE(ParseContainerLogName(bad).has_value()) << bad;
  }
}

TEST(KubeContainerLog, ReadsTheLinksBelowTheRootAndFindsAContainerByItsShortId) {
  test::TempDir root;
  root.Write(std::string("var/log/containers/trainer-0_ml-team_trainer-") + kTrainContainer + ".log",
             "x\n");
  root.Write("var/log/containers/README", "x\n");
  CollectContext ctx;
  ctx.root = root.path();
  const auto containers = ReadKubeContainers(ctx);
  ASSERT_EQ(containers.size(), 1u);
  const KubeContainerRef* c = FindContainerById(containers, "0123456789ab");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->container_name, "trainer");
  EXPECT_EQ(FindContainerById(containers, "0123456789ac"), nullptr);
  EXPECT_EQ(FindContainerById(containers, "123456789abc"), nullptr);  // inside, not a prefix
  EXPECT_EQ(FindContainerById(containers, ""), nullptr);
  test::TempDir bare;
  ctx.root = bare.path();
  EXPECT_TRUE(ReadKubeContainers(ctx).empty());
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
  EXPECT_EQ(train.container_name, "");  // no /var/log/containers link yet
  const auto& shell = (*third.gpus[0].processes)[1];
  EXPECT_EQ(shell.pod_name, "");
  EXPECT_EQ(shell.pod_namespace, "");

  // The kubelet's link appears: the id is looked up again once a new pid
  // shows up, and then the name stays without another listing.
  root.Write(std::string("var/log/containers/trainer-0_ml-team_trainer-") + kTrainContainer + ".log",
             "x\n");
  SystemStatus fourth = OneGpuWith({4242, 5151, 6262});
  cache.Annotate(ctx, fourth);
  EXPECT_EQ((*fourth.gpus[0].processes)[0].container_name, "");
  WriteProcess(root, "7373", "0::/system.slice/y.service\n");
  SystemStatus fifth = OneGpuWith({4242, 5151, 6262, 7373});
  cache.Annotate(ctx, fifth);
  EXPECT_EQ((*fifth.gpus[0].processes)[0].container_name, "trainer");
  EXPECT_EQ((*fifth.gpus[0].processes)[1].container_name, "");
  std::filesystem::remove_all(root.path() / "var/log/containers");
  SystemStatus sixth = OneGpuWith({4242, 5151, 6262, 7373});
  cache.Annotate(ctx, sixth);
  EXPECT_EQ((*sixth.gpus[0].processes)[0].container_name, "trainer");
}

}  // namespace
}  // namespace gpudoctor
