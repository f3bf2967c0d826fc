// The Chinese catalog of standard error's lines: real messages gpudoctor
// prints (copied from the binary's output) come out Chinese, with what they
// quote (paths, options, values, the loader's own words where no template
// covers them) unchanged.
#include <gtest/gtest.h>

#include <string>

#include "cli/zh_messages.h"

namespace gpudoctor {
namespace zh_messages_test_ns {

TEST(ZhMessages, NoDriverNestsThreeMessages) {
  const std::string line =
      "gpudoctor: no NVIDIA GPU or driver found on this machine (no NVIDIA driver found (cannot load the "
      "NVIDIA management library libnvidia-ml.so.1: libnvidia-ml.so.1: cannot open shared object file: No "
      "such file or directory); install the NVIDIA driver (Debian: 'apt install nvidia-driver', or your "
      "cloud's GPU driver package), or point GPUDOCTOR_NVML_LIBRARY at libnvidia-ml.so.1); nothing to "
      "diagnose. To read files from another machine: gpudoctor analyze FILE...";
  const std::string zh = TranslateStderrLineZh(line);
  EXPECT_EQ(zh.rfind("gpudoctor: 本机没有找到 NVIDIA GPU 或驱动（没有找到 NVIDIA 驱动（无法加载 NVIDIA 管理库 "
                     "libnvidia-ml.so.1: libnvidia-ml.so.1: 无法打开共享库文件: 没有那个文件或目录）；请安装",
                     0),
            0u)
      << zh;
  EXPECT_NE(zh.find("gpudoctor analyze 文件..."), std::string::npos) << zh;
  EXPECT_EQ(zh.find("nothing to diagnose"), std::string::npos) << zh;
}

TEST(ZhMessages, ContextStaysAndReasonTranslates) {
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: /var/log/kern.log: no such file"),
            "gpudoctor: /var/log/kern.log: 文件不存在");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor report: --listen nope: expected HOST:PORT or :PORT"),
            "gpudoctor report: --listen nope: 应为 HOST:PORT 或 :PORT");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: --output: /nonexistent/x: cannot write: directory /nonexistent "
                                  "does not exist (see gpudoctor --help)"),
            "gpudoctor: --output: /nonexistent/x: 无法写入: 目录 /nonexistent 不存在（见 gpudoctor --help）");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: --interval: invalid duration '0': must be at least 1ms (use e.g. "
                                  "500ms, 10s, 5m, 2h, 7d)"),
            "gpudoctor: --interval: 无效的时长“0”: 至少为 1ms（例如 500ms、10s、5m、2h、7d）");
}

TEST(ZhMessages, UsageErrorsOfTheParser) {
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: The following argument was not expected: --foo (see gpudoctor "
                                  "--help)"),
            "gpudoctor: 不认识的参数：--foo（见 gpudoctor --help）");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: --prometheus: 1 required TEXT missing (see gpudoctor --help)"),
            "gpudoctor: --prometheus：缺少一个 TEXT 值（见 gpudoctor --help）");
}

// A placeholder at the end of a template does not swallow the next clause:
// each clause after ": " is matched on its own (two real lines).
TEST(ZhMessages, ClausesAreMatchedEachOnItsOwn) {
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: /tmp/trunc.gz: gzip data truncated at byte 20 (the input ends "
                                  "there): analysed as far as it decompresses"),
            "gpudoctor: /tmp/trunc.gz: gzip 数据在第 20 字节处截断（输入到此结束）: 已分析到能解压的部分为止");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: --interval 20s is longer than --duration 5s: only one reading would "
                                  "be taken (shorten --interval or lengthen --duration)"),
            "gpudoctor: --interval 20s 比 --duration 5s 还长: 只会取一次读数（缩短 --interval 或加长 --duration）");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor fleet: prometheus http://127.0.0.1:1: query 'gpudoctor_gpu_verdict': "
                                  "cannot connect (is it running, and is the URL right?)"),
            "gpudoctor fleet: prometheus http://127.0.0.1:1: 查询“gpudoctor_gpu_verdict”: 无法连接（它在运行吗？URL "
            "对吗？）");
}

// A progress line: the placeholders keep their order in the Chinese.
TEST(ZhMessages, StressStartLine) {
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor stress: will run hbm, memory on 2 GPU(s) [GPU 0 NVIDIA H100; GPU 1 "
                                  "NVIDIA H100], each test for at most 30 s (60 s in all), all GPUs started "
                                  "together; memory test over 90 % of free memory. No GPU setting is changed. "
                                  "Ctrl-C stops it."),
            "gpudoctor stress: 将运行 hbm, memory，2 块 GPU（GPU 0 NVIDIA H100; GPU 1 NVIDIA H100），每项测试最长 30 "
            "秒（共 60 秒），所有 GPU 同时启动；内存测试覆盖 90 % 的空闲显存。不会更改任何 GPU 设置。按 Ctrl-C 停止。");
}

// Lines that are not gpudoctor's messages, and messages no template covers,
// pass unchanged: nothing is half-translated into a wrong sense.
TEST(ZhMessages, WhatTheCatalogDoesNotCoverPassesUnchanged) {
  EXPECT_EQ(TranslateStderrLineZh("2026-12-02T10:00:00Z agent: listening on 127.0.0.1:9835"),
            "2026-12-02T10:00:00Z agent: listening on 127.0.0.1:9835");
  EXPECT_EQ(TranslateStderrLineZh("gpudoctor: something new happened"), "gpudoctor: something new happened");
  EXPECT_FALSE(HasCjk("gpudoctor: something new happened"));
  EXPECT_TRUE(HasCjk("文件不存在"));
  EXPECT_TRUE(HasCjk("（"));
}

// A pathological message (many ": " and parentheses) ends; the depth bound
// holds; a line longer than 1 KiB passes as it is.
TEST(ZhMessages, DeepNestingEndsAndLongLinesPass) {
  std::string deep;
  for (int i = 0; i < 100; ++i) deep += "a: (b: ";
  deep += "no such file";
  const std::string out = TranslateMessageZh(deep);
  EXPECT_EQ(out, deep);  // past the depth bound nothing is translated, and nothing lost
  const std::string lng = std::string(2000, 'x') + ": no such file";
  EXPECT_EQ(TranslateMessageZh(lng), lng);
}

}  // namespace zh_messages_test_ns
}  // namespace gpudoctor
