// End-to-end: what a newcomer meets first — the closing summary line of a
// diagnosis, readable evidence for a process the log names only by pid.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/zh_messages.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace first_use_test_ns {

ProcessOptions InEnglish() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

std::string LastLine(const std::string& out) {
  std::string s = out;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// A real Xid 13 line shape (pid given, name not: "name=<unknown>"), and a
// fallen-off-the-bus Xid: critical, so the summary has a worst finding.
const char* kLog =
    "Nov 29 10:00:01 node kernel: [ 100.000001] NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, "
    "name=<unknown>, Graphics Exception: ESR 0x504730=0x2 0x504734=0x0\n"
    "Nov 29 10:00:05 node kernel: [ 104.000001] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus.\n";

TEST(FirstUse, TheAnswerIsTheLastLineOnScreen) {
  TempDir dir;
  const std::string log = dir.Write("kern.log", kLog);
  auto r = RunGpudoctor({"analyze", log}, "", InEnglish());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  const std::string last = LastLine(r.out);
  EXPECT_EQ(last.rfind("Summary: CRITICAL — ", 0), 0u) << last;
  EXPECT_NE(last.find("1 critical"), std::string::npos) << last;
  EXPECT_NE(last.find("worst: "), std::string::npos) << last;
  EXPECT_NE(last.find("(xid.fallen_off_bus)"), std::string::npos) << last;
}

// One warning beside a critical is "1 warning", not "1 warnings"; the
// node's recovery action is just above the summary.
TEST(FirstUse, CountsAgreeWithTheirNounAndRecoveryPrecedesTheSummary) {
  TempDir dir;
  std::string log = kLog;
  for (int i = 1; i <= 6; ++i) {
    log += "Nov 29 10:00:1" + std::to_string(i) + " node kernel: [ 11" + std::to_string(i) +
           ".000001] NVRM: Xid (PCI:0000:3b:00): 13, pid=50" + std::to_string(i) +
           ", name=python3, Graphics Exception: ESR 0x504730=0x2 0x504734=0x0\n";
  }
  const std::string path = dir.Write("kern.log", log);
  auto r = RunGpudoctor({"analyze", path}, "", InEnglish());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  const std::string last = LastLine(r.out);
  EXPECT_NE(last.find("1 critical, 1 warning;"), std::string::npos) << last;
  const std::string before = r.out.substr(0, r.out.size() - last.size() - 1);
  EXPECT_EQ(LastLine(before), "Recovery: reboot the node (0000:18:00.0)") << r.out;
}

TEST(FirstUse, TheSummaryIsInChineseToo) {
  TempDir dir;
  const std::string log = dir.Write("kern.log", kLog);
  auto r = RunGpudoctor({"analyze", "--lang", "zh", log}, "", InEnglish());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_EQ(LastLine(r.out).rfind("总结: 严重 — ", 0), 0u) << LastLine(r.out);
}

TEST(FirstUse, AHealthyAnswerSaysSoOnItsLastLine) {
  TempDir dir;
  const std::string log = dir.Write("kern.log", "Nov 29 10:00:01 node kernel: [ 1.0] NVRM: loading NVIDIA UNIX "
                                                "x86_64 Kernel Module  550.90.07  Thu Jun 27 2024\n");
  auto r = RunGpudoctor({"analyze", log}, "", InEnglish());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(LastLine(r.out), "Summary: OK — no problem found") << r.out;
}

// "process ? (pid 4242)" told the reader nothing about the "?".
TEST(FirstUse, AProcessNamedOnlyByItsPid) {
  TempDir dir;
  const std::string log = dir.Write("kern.log", kLog);
  auto r = RunGpudoctor({"analyze", log}, "", InEnglish());
  EXPECT_EQ(r.out.find("process ?"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("process pid 4242 (name not logged)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpudoctor::test

namespace gpudoctor::test {
namespace first_use_test_ns {

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Without a driver every condition is unknown for one reason: it was printed
// once per condition and once more in the summary.
TEST(FirstUse, CheckSaysWhyItCannotTellOnce) {
  TempDir data;
  auto r = RunGpudoctor({"check", "--data-dir", data.path().string(), "--duration", "1s"}, "", InEnglish());
  EXPECT_EQ(r.exit_code, 3) << r.err << r.out;
  EXPECT_EQ(Count(r.out, "unknown: "), 1u) << r.out;
  EXPECT_EQ(Count(r.out, ": unknown\n"), 4u) << r.out;  // the four conditions, bare
}

// A driver whose nvmlInit hangs is not "no NVIDIA GPU or driver found".
TEST(FirstUse, CheckOnAHungDriverSaysItHung) {
  TempDir data;
  const std::string scenario = data.Write("hung.json", R"({"init_delay_ms": 20000, "gpus": [{}]})");
  auto r = RunGpudoctor({"--nvml-timeout", "1s", "check", "--npd", "--data-dir", data.path().string(),
                         "--duration", "1s"},
                        scenario, InEnglish());
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;  // NPD's "unknown"
  EXPECT_EQ(r.out.find("no NVIDIA GPU or driver found"), std::string::npos) << r.out;
  EXPECT_FALSE(r.out.empty());
}

}  // namespace
}  // namespace gpudoctor::test

namespace gpudoctor::test {
namespace first_use_test_ns {

// With a Chinese locale (or --lang zh) the help's headings are Chinese too.
TEST(FirstUse, HelpHeadingsFollowTheLanguage) {
  ProcessOptions zh;
  zh.unset_env = {"LC_ALL", "LC_MESSAGES"};
  zh.env["LANG"] = "zh_CN.UTF-8";
  auto top = RunGpudoctor({"--help"}, "", zh);
  EXPECT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("子命令:"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("选项:"), std::string::npos) << top.out;
  EXPECT_EQ(top.out.find("Options:"), std::string::npos) << top.out;
  auto sub = RunGpudoctor({"diagnose", "--help", "--lang", "zh"}, "", InEnglish());
  EXPECT_NE(sub.out.find("用法:"), std::string::npos) << sub.out;
  EXPECT_EQ(sub.out.find("Options:"), std::string::npos) << sub.out;
  auto en = RunGpudoctor({"status", "--help"}, "", InEnglish());
  EXPECT_NE(en.out.find("Options:"), std::string::npos) << en.out;
}

}  // namespace
}  // namespace gpudoctor::test

namespace gpudoctor::test {
namespace first_use_test_ns {

// Under --lang zh (or LANG=zh_*) the errors are Chinese too: every line the
// failing commands print on standard error, through the real binary.
TEST(FirstUse, ErrorsFollowTheLanguage) {
  TempDir dir;
  const std::string text = dir.Write("notes.txt", "just some words\n");
  struct Case {
    std::vector<std::string> args;
    std::string english;  // what the English line says, gone under zh
    std::string zh = {};  // what the Chinese line must say, where given
    bool one_gpu = false;  // on the fake NVML with one GPU (else: no driver loaded)
  };
  const std::string one_gpu = dir.Write("one-gpu.json", R"({"gpus": [{}]})");
  const std::vector<Case> cases = {
      {{"analyze", "--lang", "zh", (dir.path() / "missing.log").string()}, "no such file"},
      {{"analyze", "--lang", "zh", text}, "not an nvidia-smi, bug report or kernel log file"},
      {{"diagnose", "--lang", "zh", "--interval", "0"}, "invalid duration"},
      {{"status", "--lang", "zh", "--bogus"}, "The following argument was not expected"},
      {{"diagnose", "--lang=zh", "-o", "/nonexistent/x.txt"}, "does not exist"},
      {{"report", "--lang", "zh", "--data-dir", dir.path().string(), "--since", "3h"}, "no gpudoctor store here"},
      // Commands without a language of their own take the global --lang.
      // (a command that refused --lang would say so, in Chinese too).
      {{"rules", "--severity", "--lang", "zh", "--config", (dir.path() / "missing.toml").string()},
       "No such file or directory", "没有那个文件或目录"},
      {{"agent", "--lang", "zh", "--interval", "0"}, "invalid duration", "无效的时长"},
      {{"watch", "--lang", "zh", "--interval", "0"}, "invalid duration", "无效的时长"},
      {{"--lang", "zh", "status", "--gpu", "9"}, "no such GPU", "没有这块 GPU", true},
  };
  for (const Case& c : cases) {
    auto r = RunGpudoctor(c.args, c.one_gpu ? one_gpu : "", InEnglish());
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    EXPECT_NE(r.exit_code, 0) << joined << r.err;
    ASSERT_FALSE(r.err.empty()) << joined;
    EXPECT_EQ(r.err.find(c.english), std::string::npos) << joined << "\n" << r.err;
    if (!c.zh.empty()) {
      EXPECT_NE(r.err.find(c.zh), std::string::npos) << joined << "\n" << r.err;
    }
    std::size_t start = 0;
    while (start < r.err.size()) {
      std::size_t nl = r.err.find('\n', start);
      if (nl == std::string::npos) nl = r.err.size();
      const std::string line = r.err.substr(start, nl - start);
      if (!line.empty()) {
        EXPECT_TRUE(HasCjk(line)) << joined << "\n" << line;
      }
      start = nl + 1;
    }
  }
  // The same command in English says it in English, and LANG=zh_* alone switches.
  auto en = RunGpudoctor({"analyze", text}, "", InEnglish());
  EXPECT_NE(en.err.find("not an nvidia-smi, bug report or kernel log file"), std::string::npos) << en.err;
  ProcessOptions zh;
  zh.unset_env = {"LC_ALL", "LC_MESSAGES"};
  zh.env["LANG"] = "zh_CN.UTF-8";
  auto by_locale = RunGpudoctor({"analyze", text}, "", zh);
  EXPECT_NE(by_locale.err.find("不是 nvidia-smi 输出"), std::string::npos) << by_locale.err;
  // No driver: the nested message is Chinese from its start.
  ProcessOptions no_driver = InEnglish();
  no_driver.env["GPUDOCTOR_NVML_LIBRARY"] = "/nonexistent/libnvidia-ml.so.1";
  auto nd = RunGpudoctor({"diagnose", "--lang", "zh"}, "", no_driver);
  EXPECT_NE(nd.err.find("本机没有找到 NVIDIA GPU 或驱动"), std::string::npos) << nd.err;
  // A command's own --lang after the global one wins for everything it
  // prints, its errors too (the report and its error in one language).
  auto mixed = RunGpudoctor({"--lang", "zh", "analyze", "--lang", "en", text}, "", InEnglish());
  EXPECT_NE(mixed.err.find("not an nvidia-smi, bug report or kernel log file"), std::string::npos)
      << mixed.err;
  EXPECT_FALSE(HasCjk(mixed.err)) << mixed.err;
  auto mixed_zh = RunGpudoctor({"--lang", "en", "analyze", "--lang", "zh", text}, "", InEnglish());
  EXPECT_NE(mixed_zh.err.find("不是 nvidia-smi 输出"), std::string::npos) << mixed_zh.err;
}

}  // namespace
}  // namespace gpudoctor::test

