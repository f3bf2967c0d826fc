// Files gpudoctor writes, as root and against whoever else can write there:
// a data directory another user made (and planted links in) is refused;
// with --allow-shared-data-dir, links named like the agent's files are never
// followed; the writer's lock holds when its file is deleted; a command whose
// output does not reach its destination (/dev/full, a file over the size
// limit) says so and exits 3, and a failed --output keeps the file's
// previous content.
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace files_as_root_local {

namespace fs = std::filesystem;

std::string Scenario() { return std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"; }

std::vector<std::string> Agent(const fs::path& data, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {
      "agent",      "--data-dir", data.string(),   "--no-listen", "--no-kernel-log",
      "--interval", "200ms",      "--facts-every", "1h",          "--run-for",
      "2s"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Write(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// A kernel log with an Xid 79 for analyze to read.
std::string XidLog(const TempDir& tmp) {
  return tmp.Write("kern.log",
                   "Dec  6 10:00:00 node kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=0, "
                   "name=python, GPU has fallen off the bus.\n");
}

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// A victim file only root may write, and two links to it planted in dir
// under the names the agent writes.
struct Planted {
  fs::path state_victim;
  fs::path lock_victim;
};

Planted PlantLinks(const TempDir& tmp, const fs::path& dir) {
  Planted p{tmp.path() / "root-only-state", tmp.path() / "root-only-lock"};
  Write(p.state_victim, "state victim: untouched\n");
  Write(p.lock_victim, "lock victim: untouched\n");
  chmod(p.state_victim.c_str(), 0600);
  chmod(p.lock_victim.c_str(), 0600);
  fs::create_symlink(p.state_victim, dir / "agent-state.json.tmp");
  fs::create_symlink(p.lock_victim, dir / "agent.lock");
  return p;
}

TEST(FilesAsRoot, DataDirectoryOthersCanWriteIsRefusedInOneLine) {
  TempDir tmp;
  const fs::path shared = tmp.path() / "shared";
  fs::create_directory(shared);
  chmod(shared.c_str(), 0777);
  auto r = RunGpudoctor(Agent(shared), Scenario());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(shared.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("writable by every user"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--allow-shared-data-dir"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(shared / "gpudoctor.db")) << "it recorded in the refused directory";
  // A parent others can write to (no sticky bit) is as bad.
  const fs::path open_parent = tmp.path() / "open";
  fs::create_directories(open_parent / "data");
  chmod(open_parent.c_str(), 0777);
  r = RunGpudoctor(Agent(open_parent / "data"), Scenario());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("parent " + open_parent.string()), std::string::npos) << r.err;
  // A new directory is made private (0700) and accepted.
  const fs::path fresh = tmp.path() / "fresh" / "gpudoctor";
  r = RunGpudoctor(Agent(fresh), Scenario());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
}

TEST(FilesAsRoot, DirectoryMadeByNobodyWithPlantedLinksWritesNoOtherFile) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (a directory owned by nobody); CI runs as root";
  const struct passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody here";
  TempDir tmp;
  const fs::path dir = tmp.path() / "gpudoctor";
  fs::create_directory(dir);
  chmod(dir.c_str(), 0777);
  const Planted planted = PlantLinks(tmp, dir);
  ASSERT_EQ(lchown((dir / "agent.lock").c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  ASSERT_EQ(chown(dir.c_str(), nobody->pw_uid, nobody->pw_gid), 0);

  auto r = RunGpudoctor(Agent(dir), Scenario());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("owned by uid " + std::to_string(nobody->pw_uid)), std::string::npos)
      << r.err;
  EXPECT_EQ(Read(planted.state_victim), "state victim: untouched\n");
  EXPECT_EQ(Read(planted.lock_victim), "lock victim: untouched\n");

  // Allowed on purpose: still no write through a link.
  r = RunGpudoctor(Agent(dir, {"--allow-shared-data-dir"}), Scenario());
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(Read(planted.state_victim), "state victim: untouched\n");
  EXPECT_EQ(Read(planted.lock_victim), "lock victim: untouched\n");
}

TEST(FilesAsRoot, AllowedSharedDirectoryNeverWritesThroughTheStateLink) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "gpudoctor";
  fs::create_directory(dir);
  chmod(dir.c_str(), 0777);
  const Planted planted = PlantLinks(tmp, dir);
  fs::remove(dir / "agent.lock");  // the lock's link is the test above's
  auto r = RunGpudoctor(Agent(dir, {"--allow-shared-data-dir"}), Scenario());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Read(planted.state_victim), "state victim: untouched\n");
  EXPECT_TRUE(fs::is_symlink(dir / "agent-state.json.tmp"));
  EXPECT_NE(Read(dir / "agent-state.json").find("\"stopped_cleanly\""), std::string::npos);
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() == "agent-state.json.tmp") continue;  // the planted link
    EXPECT_EQ(e.path().filename().string().find("agent-state.json."), std::string::npos)
        << "a temporary file left: " << e.path();
  }
}

TEST(FilesAsRoot, FixNeverAppendsItsAuditThroughALink) {
  TempDir tmp;
  const fs::path dir = tmp.path() / "gpudoctor";
  fs::create_directory(dir);
  chmod(dir.c_str(), 0700);
  const fs::path victim = tmp.path() / "victim";
  Write(victim, "victim\n");
  fs::create_symlink(victim, dir / "fix-audit.log");
  auto r = RunGpudoctor({"fix", "--apply", "--yes", "--data-dir", dir.string(), "--duration", "1s"},
                        Scenario());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("symbolic link"), std::string::npos) << r.err;
  EXPECT_EQ(Read(victim), "victim\n");
}

TEST(CheckedWrites, FullStandardOutputIsAnErrorNotASuccess) {
  TempDir tmp;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"rules"}, std::vector<std::string>{"analyze", XidLog(tmp)},
        std::vector<std::string>{"status", "--json"}}) {
    std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full",
                                   GPUDOCTOR_BINARY};
    sh.insert(sh.end(), args.begin(), args.end());
    ProcessOptions o;
    o.env["GPUDOCTOR_NVML_LIBRARY"] = FAKE_NVML_LIBRARY;
    o.env["FAKE_NVML_SCENARIO"] = Scenario();
    auto r = RunProcess(sh, o);
    EXPECT_EQ(r.exit_code, 3) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("cannot write standard output: No space left on device"),
              std::string::npos)
        << args[0] << ": " << r.err;
  }
}

TEST(CheckedWrites, FailedOutputFileKeepsItsPreviousContent) {
  TempDir tmp;
  const fs::path out = tmp.path() / "report.html";
  const std::string before = "the previous report\n";
  Write(out, before);
  // A 1-block file size limit (SIGXFSZ ignored: the write fails with EFBIG)
  // cuts the HTML report short, as a full disk would.
  std::vector<std::string> sh = {
      "/bin/sh",        "-c",      "trap '' XFSZ; ulimit -f 1; exec \"$0\" \"$@\"",
      GPUDOCTOR_BINARY, "analyze", "--format",
      "html",           "-o",      out.string(),
      XidLog(tmp)};
  auto r = RunProcess(sh);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot write " + out.string() + ": File too large"), std::string::npos)
      << r.err;
  EXPECT_EQ(Read(out), before);
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    EXPECT_EQ(e.path().filename().string().find("report.html."), std::string::npos)
        << "a temporary file was left beside the output: " << e.path();
  }
  // The same command without the limit replaces it whole.
  r = RunProcess(
      {GPUDOCTOR_BINARY, "analyze", "--format", "html", "-o", out.string(), XidLog(tmp)});
  EXPECT_NE(r.exit_code, 3) << r.err;
  EXPECT_NE(Read(out).find("</html>"), std::string::npos);
  // A device is written in place, and its failure is one line too.
  r = RunProcess({GPUDOCTOR_BINARY, "analyze", "-o", "/dev/full", XidLog(tmp)});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("cannot write /dev/full: No space left on device"), std::string::npos)
      << r.err;
}

}  // namespace files_as_root_local
}  // namespace gpudoctor::test
