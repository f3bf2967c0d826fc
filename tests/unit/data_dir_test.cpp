#include <gtest/gtest.h>

#include <cstdlib>

#include "core/data_dir.h"

namespace gpudoctor {
namespace data_dir_test_ns {

class DataDirEnv : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("GPUDOCTOR_DATA_DIR"); }
};

TEST_F(DataDirEnv, TheOptionWinsOverTheEnvironment) {
  setenv("GPUDOCTOR_DATA_DIR", "/from/env", 1);
  auto dir = ResolveDataDir(std::string("/from/option"));
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, "/from/option");
}

TEST_F(DataDirEnv, TheEnvironmentWinsOverTheDefaults) {
  setenv("GPUDOCTOR_DATA_DIR", "/from/env", 1);
  auto dir = ResolveDataDir(std::nullopt);
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(*dir, "/from/env");
}

TEST_F(DataDirEnv, AnEmptyVariableIsUnset) {
  setenv("GPUDOCTOR_DATA_DIR", "", 1);
  auto dir = ResolveDataDir(std::nullopt);
  if (dir.ok()) {
    EXPECT_NE(*dir, "");
  }
}

}  // namespace
}  // namespace gpudoctor
