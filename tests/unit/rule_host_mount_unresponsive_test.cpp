// host.mount_unresponsive and what feeds it: the probe that runs statvfs in
// a child process and gives up at its deadline (collect/mount_probe.h),
// /proc/mounts as the kernel writes it (octal escapes, network types), and
// the rule over an unresponsive NFS mount and a dataset mount.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>

#include "collect/mount_probe.h"
#include "parse/proc_mounts.h"
#include "rules/system/group.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace {
namespace rule_host_mount_unresponsive_local {

// Stands in for statvfs in the probe's child: "/hang" never answers (as a
// hard NFS mount whose server is gone), "/gone" does not exist.
int FakeStatvfs(const char* path, struct statvfs* st) {
  if (std::strcmp(path, "/hang") == 0) {
    for (;;) ::pause();
  }
  if (std::strcmp(path, "/gone") == 0) {
    errno = ENOENT;
    return -1;
  }
  std::memset(st, 0, sizeof *st);
  st->f_frsize = 4096;
  st->f_blocks = 1000;
  st->f_bavail = 500;
  return 0;
}

TEST(MountProbe, AHangingPathTimesOutTheOthersAnswer) {
  // Two dead mounts: each is found, and the paths between and after them
  // are probed by a new child.
  auto r = ProbeMounts({"/ok", "/gone", "/hang", "/after", "/hang", "/last"},
                       std::chrono::milliseconds(2000), FakeStatvfs);
  ASSERT_EQ(r.size(), 6u);
  EXPECT_TRUE(r[0].answered);
  EXPECT_EQ(r[0].error, 0);
  EXPECT_EQ(r[0].st.f_blocks, 1000u);
  EXPECT_TRUE(r[1].answered);
  EXPECT_EQ(r[1].error, ENOENT);
  EXPECT_FALSE(r[2].answered);
  EXPECT_TRUE(r[2].timed_out);
  EXPECT_TRUE(r[3].answered);
  EXPECT_FALSE(r[3].timed_out);
  EXPECT_TRUE(r[4].timed_out);
  EXPECT_TRUE(r[5].answered);
}

TEST(MountProbe, TheRealStatvfsAnswersForTheRoot) {
  auto r = ProbeMounts({"/"}, std::chrono::seconds(20));
  ASSERT_TRUE(r[0].answered);
  EXPECT_EQ(r[0].error, 0);
  EXPECT_GT(r[0].st.f_blocks, 0u);
}

TEST(ProcMounts, ParsesEscapesAndTellsNetworkFileSystems) {
  // Lines as /proc/mounts prints them (a space in a path is \040).
  auto m = ParseProcMounts(
      "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
      "/dev/nvme0n1p1 / ext4 rw,relatime 0 0\n"
      "10.0.0.5:/export/datasets /mnt/data\\040sets nfs4 "
      "rw,relatime,vers=4.1,rsize=1048576,hard,proto=tcp 0 0\n"
      "192.168.1.2@o2ib:/lustre /lustre lustre rw,flock 0 0\n"
      "s3fs /mnt/s3 fuse.s3fs rw,nosuid,nodev 0 0\n"
      "lxcfs /var/lib/lxcfs fuse.lxcfs rw 0 0\n"
      "garbage\n");
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[2].path, "/mnt/data sets");
  EXPECT_EQ(m[2].source, "10.0.0.5:/export/datasets");
  EXPECT_TRUE(IsNetworkFileSystem(m[2].type));
  EXPECT_TRUE(IsNetworkFileSystem(m[3].type));
  EXPECT_TRUE(IsNetworkFileSystem(m[4].type));
  EXPECT_FALSE(IsNetworkFileSystem(m[5].type));
  EXPECT_FALSE(IsNetworkFileSystem(m[1].type));
  EXPECT_FALSE(IsNetworkFileSystem(m[0].type));
}

DiagnosisInput With(std::vector<UnresponsiveMount> mounts) {
  DiagnosisInput input;
  input.host = HostFacts{};
  input.host->disk_space.unresponsive = std::move(mounts);
  input.host->disk_space.probe_timeout_s = 5;
  return input;
}

TEST(HostMountUnresponsive, AnNfsMountThatDoesNotAnswerIsCriticalWithoutAReboot) {
  auto d = RunRule(kHostMountUnresponsiveRule,
                   With({UnresponsiveMount{"/mnt/data", "nfs4", "10.0.0.5:/export", true}}));
  ASSERT_EQ(d.findings.size(), 1u);
  const Finding& f = d.findings[0];
  EXPECT_EQ(f.id, "host.mount_unresponsive");
  EXPECT_EQ(f.severity, Severity::kCritical);
  EXPECT_NE(f.title.en.find("`/mnt/data` does not answer"), std::string::npos) << f.title.en;
  EXPECT_NE(f.evidence[0].text.en.find("(nfs4 10.0.0.5:/export) did not answer within 5 s; a "
                                       "dataset mount"),
            std::string::npos)
      << f.evidence[0].text.en;
  for (const auto& a : f.actions) EXPECT_EQ(a.command.find("reboot"), std::string::npos);
  EXPECT_TRUE(RunRule(kHostMountUnresponsiveRule, With({})).findings.empty());
}

}  // namespace rule_host_mount_unresponsive_local
}  // namespace
}  // namespace gpudoctor::testing
