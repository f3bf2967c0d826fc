// core/safe_file.h: replacing a file keeps the old content on failure and
// never writes through a planted link; --output follows the link the
// operator named and writes devices in place; a private directory is one
// nobody else can write to, parents included.
#include "core/safe_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "support/temp_files.h"

namespace gpudoctor::test {
namespace safe_file_local {

namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(SafeFile, ReplaceFileRefusesALinkAndLeavesNoTemporary) {
  TempDir dir;
  const std::string victim = dir.Write("victim", "victim\n");
  fs::create_symlink(victim, dir.path() / "state.json");
  Status r = ReplaceFile((dir.path() / "state.json").string(), "new\n", 0644);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("symbolic link"), std::string::npos) << r.error().message;
  EXPECT_EQ(Slurp(victim), "victim\n");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2);
}

TEST(SafeFile, ReplaceFileWritesWholeWithTheMode) {
  TempDir dir;
  const std::string path = dir.Write("state.json", "old\n");
  ASSERT_TRUE(ReplaceFile(path, "new content\n", 0640).ok());
  EXPECT_EQ(Slurp(path), "new content\n");
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST(SafeFile, OutputFollowsTheOperatorsLinkAndKeepsItsMode) {
  TempDir dir;
  const std::string target = dir.Write("real.txt", "old\n");
  chmod(target.c_str(), 0604);
  fs::create_symlink(target, dir.path() / "link.txt");
  ASSERT_TRUE(WriteOutputFile((dir.path() / "link.txt").string(), "report\n").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.txt"));
  EXPECT_EQ(Slurp(target), "report\n");
  struct stat st {};
  ASSERT_EQ(stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0604u);
}

TEST(SafeFile, OutputToADeviceIsWrittenInPlaceAndChecked) {
  EXPECT_TRUE(WriteOutputFile("/dev/null", "anything\n").ok());
  Status full = WriteOutputFile("/dev/full", "anything\n");
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.error().message, "cannot write /dev/full: No space left on device");
  struct stat st {};
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null was replaced";
}

TEST(SafeFile, PrivateDirectoryRules) {
  TempDir dir;  // 0700, ours, under /tmp (sticky)
  EXPECT_TRUE(CheckPrivateDirectory(dir.path().string()).ok());
  const fs::path sub = dir.path() / "data";
  fs::create_directory(sub);
  chmod(sub.c_str(), 0770);
  Status group = CheckPrivateDirectory(sub.string());
  if (getegid() != 0) {
    ASSERT_FALSE(group.ok());
    EXPECT_NE(group.error().message.find("writable by group"), std::string::npos);
  }
  chmod(sub.c_str(), 0755);
  EXPECT_TRUE(CheckPrivateDirectory(sub.string()).ok());
  chmod(dir.path().c_str(), 0777);
  Status parent = CheckPrivateDirectory(sub.string());
  chmod(dir.path().c_str(), 0700);
  ASSERT_FALSE(parent.ok());
  EXPECT_NE(
      parent.error().message.find("parent " + dir.path().string() + " is writable by every user"),
      std::string::npos)
      << parent.error().message;
  chmod(dir.path().c_str(), 01777);  // sticky, as /tmp
  EXPECT_TRUE(CheckPrivateDirectory(sub.string()).ok());
  chmod(dir.path().c_str(), 0700);
}

}  // namespace safe_file_local
}  // namespace gpudoctor::test
