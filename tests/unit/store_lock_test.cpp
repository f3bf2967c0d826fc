// The writer's lock on a data directory: held on the directory itself, so
// that deleting agent.lock does not let a second agent start beside a live
// one; agent.lock is never opened through a link.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "store/store_lock.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace store_lock_local {

namespace fs = std::filesystem;

TEST(StoreLock, HoldsWhenItsFileIsDeleted) {
  TempDir dir;
  auto first = LockStoreDir(dir.path().string());
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_TRUE(StoreDirHeld(dir.path().string()));
  ASSERT_TRUE(fs::remove(dir.path() / "agent.lock"));
  auto second = LockStoreDir(dir.path().string());
  ASSERT_FALSE(second.ok()) << "a second writer locked the directory beside the first";
  EXPECT_NE(second.error().message.find("another gpudoctor agent"), std::string::npos)
      << second.error().message;
  EXPECT_TRUE(StoreDirHeld(dir.path().string()));
  first->reset();
  EXPECT_FALSE(StoreDirHeld(dir.path().string()));
  auto third = LockStoreDir(dir.path().string());
  EXPECT_TRUE(third.ok()) << third.error().message;
}

TEST(StoreLock, NeverOpensALinkAsItsFile) {
  TempDir dir;
  const std::string victim = dir.Write("victim", "untouched\n");
  fs::create_directory(dir.path() / "data");
  fs::create_symlink(victim, dir.path() / "data" / "agent.lock");
  auto lock = LockStoreDir((dir.path() / "data").string());
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.error().message.find("symbolic link"), std::string::npos) << lock.error().message;
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "untouched\n");
}

}  // namespace store_lock_local
}  // namespace gpudoctor::test
