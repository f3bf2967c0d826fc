#include "collect/exec_capture.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

using std::chrono::milliseconds;

TEST(ExecCapture, CapturesOutputAndStatus) {
  auto r = ExecCapture({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, milliseconds(5000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->exit_status, 3);
  EXPECT_NE(r->output.find("out\n"), std::string::npos);
  EXPECT_NE(r->output.find("err\n"), std::string::npos);
}

TEST(ExecCapture, KillsAtDeadline) {
  const auto start = std::chrono::steady_clock::now();
  auto r = ExecCapture({"/bin/sleep", "10"}, milliseconds(200));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(ExecCapture, ChildThatClosesOutputButKeepsRunning) {
  auto r = ExecCapture({"/bin/sh", "-c", "exec >/dev/null 2>&1; sleep 10"}, milliseconds(300));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
}

TEST(ExecCapture, MissingProgram) {
  auto r = ExecCapture({"/nonexistent/nvcc", "--version"}, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
}

TEST(ExecCapture, OutputIsCapped) {
  auto r = ExecCapture({"/bin/sh", "-c", "yes | head -c 100000"}, milliseconds(5000), 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output.size(), 1000u);
  EXPECT_EQ(r->exit_status, 0);
}

}  // namespace
}  // namespace gpudoctor
