// End-to-end (issue 8): every command's bad input. Unknown options, bad
// durations and times, missing files, directories given as files, random
// bytes, empty files and garbage TOML each end in one line naming the input
// and exit 3 (for `check --npd` / `--slurm`: one protocol line on stdout and
// exit 2, "unknown"), never a signal, never a stack trace. Inputs that other
// e2e tests already cover (diagnose --since yesterday, --lang fr, agent
// --interval 10ms, ...) are not repeated here.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

enum class Answer { kStderrExit3, kNpd, kSlurm };

struct BadInput {
  const char* name;
  std::vector<std::string>
      args;           // {garbage} {empty} {dir} {missing} {toml} {data} {root} are files
  std::string names;  // what the message must name
  Answer answer = Answer::kStderrExit3;
  int max_lines = 1;  // analyze adds "none of the given files could be analysed"
};

// gtest names a failing case by this, not by its bytes.
void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

// The files a case may name, written fresh for each case.
class Inputs {
 public:
  Inputs() {
    std::mt19937 bytes(8);  // random bytes, the same every run
    std::string garbage(4096, '\0');
    for (char& c : garbage) c = static_cast<char>(bytes() & 0xff);
    files_["{garbage}"] = dir_.Write("garbage.bin", garbage);
    files_["{empty}"] = dir_.Write("empty.txt", "");
    files_["{toml}"] = dir_.Write("bad.toml", "[thresholds\ntemperature_high_c = = 85\n\x01\x02");
    dir_.Write("a-directory/.keep", "");
    dir_.Write("data/.keep", "");
    dir_.Write("root/proc/loadavg", "0.00 0.00 0.00 1/100 1\n");
    files_["{dir}"] = (dir_.path() / "a-directory").string();
    files_["{data}"] = (dir_.path() / "data").string();
    files_["{root}"] = (dir_.path() / "root").string();
    files_["{missing}"] = (dir_.path() / "missing.file").string();
    scenario_ =
        dir_.Write("scenario.json", R"({"gpus": [{"name": "GPU A", "temperature_c": 40}]})");
  }

  std::vector<std::string> Expand(const std::vector<std::string>& args) const {
    std::vector<std::string> out;
    for (const auto& a : args) out.push_back(Expand(a));
    return out;
  }
  std::string Expand(std::string text) const {
    for (const auto& [key, path] : files_) {
      for (auto at = text.find(key); at != std::string::npos;
           at = text.find(key, at + path.size())) {
        text.replace(at, key.size(), path);
      }
    }
    return text;
  }
  const std::string& scenario() const { return scenario_; }

 private:
  TempDir dir_;
  std::map<std::string, std::string> files_;
  std::string scenario_;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Runs gpudoctor on a bad input and checks how it ended and what it said.
void ExpectRejected(const BadInput& c, const std::vector<std::string>& args,
                    const std::string& names, const std::string& scenario) {
  ProcessOptions o;
  o.timeout = std::chrono::seconds(30);
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunGpudoctor(args, scenario, o);
  ASSERT_FALSE(r.timed_out) << "still running after 30 s";
  ASSERT_EQ(r.signal, 0) << "died of signal " << r.signal << ": " << r.err;
  for (const char* trace : {"terminate called", "what():", "Aborted", "Segmentation", "#0 "}) {
    EXPECT_EQ(r.err.find(trace), std::string::npos) << r.err;
  }
  const bool protocol = c.answer != Answer::kStderrExit3;
  EXPECT_EQ(r.exit_code, protocol ? 2 : 3) << r.err << r.out;
  const std::string& message = protocol ? r.out : r.err;
  auto lines = Lines(message);
  ASSERT_GE(lines.size(), 1u) << "no message; stdout: " << r.out;
  EXPECT_LE(lines.size(), static_cast<std::size_t>(c.max_lines)) << message;
  EXPECT_NE(message.find(names), std::string::npos) << names << " not in: " << message;
  if (c.answer == Answer::kNpd) {
    EXPECT_LE(lines[0].size(), 80u) << lines[0];
    EXPECT_EQ(lines[0].rfind("unknown: ", 0), 0u) << lines[0];
  } else if (c.answer == Answer::kSlurm) {
    EXPECT_EQ(lines[0].rfind("unknown: ", 0), 0u) << lines[0];
    EXPECT_EQ(lines[0].substr(lines[0].size() - 12), " [gpudoctor]") << lines[0];
  } else {
    for (const auto& line : lines) EXPECT_EQ(line.rfind("gpudoctor", 0), 0u) << line;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

class BadInputCase : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputCase, OneLineNamingTheInputNoCrash) {
  Inputs in;
  ExpectRejected(GetParam(), in.Expand(GetParam().args), in.Expand(GetParam().names),
                 in.scenario());
}

using A = Answer;
const std::vector<BadInput> kBadInputs = {
    // diagnose (also what a bare gpudoctor runs)
    {"DiagnoseUnknownOption", {"diagnose", "--frobnicate"}, "--frobnicate"},
    {"BareUnknownOption", {"--frobnicate"}, "--frobnicate"},
    {"DiagnoseNegativeInterval", {"diagnose", "--interval", "-1s"}, "--interval"},
    {"DiagnoseHugeDuration", {"diagnose", "--duration", "99999999999999999999s"}, "--duration"},
    {"DiagnoseHugeSince", {"diagnose", "--since", "999999999999d"}, "--since"},
    {"DiagnoseExpectedGpusNotANumber", {"diagnose", "--expected-gpus", "abc"}, "--expected-gpus"},
    {"DiagnoseExpectedGpusNegative", {"diagnose", "--expected-gpus", "-1"}, "--expected-gpus"},
    // Zero was taken on the command line (and meant "not set") while the
    // configuration file refused it: both refuse it now.
    {"DiagnoseExpectedGpusZero", {"diagnose", "--expected-gpus", "0"}, "--expected-gpus"},
    {"FactsExpectedGpusZero", {"facts", "--expected-gpus", "0"}, "--expected-gpus"},
    // One reading taken silently where the user asked for a series.
    {"DiagnoseIntervalLongerThanDuration",
     {"diagnose", "--interval", "20s", "--duration", "5s"},
     "--interval 20s is longer than --duration 5s"},
    {"DiagnoseKernelLogMissing",
     {"diagnose", "--kernel-log", "{missing}"},
     "{missing}: no such file"},
    {"DiagnoseKernelLogIsADirectory", {"diagnose", "--kernel-log", "{dir}"}, "{dir}: not a file"},
    {"DiagnoseConfigRandomBytes", {"diagnose", "--config", "{garbage}"}, "{garbage}"},
    {"DiagnoseConfigGarbageToml", {"diagnose", "--config", "{toml}"}, "{toml}:1"},
    {"DiagnoseConfigIsADirectory", {"diagnose", "--config", "{dir}"}, "{dir}"},
    {"DiagnoseRootIsAFile", {"diagnose", "--root", "{garbage}"}, "--root {garbage}"},
    {"DiagnosePingBadPort", {"diagnose", "--ping", "host:99999"}, "host:99999"},
    {"DiagnoseOutputIsADirectory",
     {"diagnose", "--root", "{root}", "--duration", "300ms", "--output", "{dir}"},
     "--output: {dir}: is a directory"},
    {"DiagnoseOutputInMissingDirectory",
     {"diagnose", "--root", "{root}", "--duration", "300ms", "--output", "{missing}/r.json"},
     "--output: {missing}/r.json: cannot write: directory {missing} does not exist"},
    // analyze: one line per file, then one saying none could be analysed
    {"AnalyzeRandomBytes",
     {"analyze", "{garbage}"},
     "{garbage}: not an nvidia-smi",
     A::kStderrExit3,
     2},
    {"AnalyzeDirectory",
     {"analyze", "{dir}"},
     "{dir}: not a file (a directory)",
     A::kStderrExit3,
     2},
    {"AnalyzeEmptyFile", {"analyze", "{empty}"}, "{empty}: empty file", A::kStderrExit3, 2},
    {"AnalyzeUnknownOption", {"analyze", "--frobnicate", "{garbage}"}, "--frobnicate"},
    {"AnalyzeConfigGarbageToml", {"analyze", "--config", "{toml}", "{garbage}"}, "{toml}:1"},
    {"AnalyzeBadFormat", {"analyze", "--format", "yaml", "{garbage}"}, "--format"},
    // report
    {"ReportSinceSoon", {"report", "--data-dir", "{data}", "--since", "soon"}, "--since"},
    {"ReportFromMonth13", {"report", "--data-dir", "{data}", "--from", "2026-13-45"}, "2026-13-45"},
    {"ReportToHour25",
     {"report", "--data-dir", "{data}", "--to", "2026-11-29T25:00:00Z"},
     "2026-11-29T25:00:00Z"},
    {"ReportHugeSince",
     {"report", "--data-dir", "{data}", "--since", "99999999999999999999d"},
     "--since"},
    {"ReportDataDirIsAFile", {"report", "--data-dir", "{garbage}"}, "{garbage}"},
    {"ReportDataDirMissing", {"report", "--data-dir", "{missing}"}, "{missing}"},
    {"ReportConfigGarbageToml",
     {"report", "--data-dir", "{data}", "--config", "{toml}"},
     "{toml}:1"},
    {"ReportBadFormat", {"report", "--data-dir", "{data}", "--format", "pdf"}, "--format"},
    // agent
    {"AgentNegativeInterval",
     {"agent", "--data-dir", "{data}", "--no-listen", "--interval", "-1s"},
     "--interval"},
    {"AgentZeroInterval",
     {"agent", "--data-dir", "{data}", "--no-listen", "--interval", "0"},
     "--interval"},
    {"AgentWindowSoon",
     {"agent", "--data-dir", "{data}", "--no-listen", "--window", "soon"},
     "--window"},
    {"AgentWindowOneMillisecond",
     {"agent", "--data-dir", "{data}", "--no-listen", "--window", "1ms"},
     "--window 1ms: at least --interval"},
    {"AgentFactsEveryOneMillisecond",
     {"agent", "--data-dir", "{data}", "--no-listen", "--facts-every", "1ms"},
     "--facts-every 1ms: at least 10s"},
    {"AgentZeroEvaluateEvery",
     {"agent", "--data-dir", "{data}", "--no-listen", "--evaluate-every", "0"},
     "--evaluate-every"},
    {"AgentHugeRunFor",
     {"agent", "--data-dir", "{data}", "--no-listen", "--run-for", "99999999999999999999s"},
     "--run-for"},
    {"AgentNegativeStoreSize",
     {"agent", "--data-dir", "{data}", "--no-listen", "--max-store-mb", "-5"},
     "--max-store-mb"},
    {"AgentStoreSizeNotANumber",
     {"agent", "--data-dir", "{data}", "--no-listen", "--max-store-mb", "abc"},
     "--max-store-mb"},
    {"AgentListenWithoutPort",
     {"agent", "--data-dir", "{data}", "--listen", "localhost"},
     "--listen localhost"},
    {"AgentConfigGarbageToml",
     {"agent", "--data-dir", "{data}", "--no-listen", "--config", "{toml}"},
     "{toml}:1"},
    {"AgentConfigRandomBytes",
     {"agent", "--data-dir", "{data}", "--no-listen", "--config", "{garbage}"},
     "{garbage}"},
    {"AgentUnknownOption", {"agent", "--frobnicate"}, "--frobnicate"},
    // status and the global options
    {"StatusGpuWithoutValue", {"status", "--gpu"}, "--gpu"},
    {"StatusExtraArgument", {"status", "--json", "extra"}, "extra"},
    {"NvmlTimeoutZero", {"--nvml-timeout", "0", "status"}, "--nvml-timeout"},
    {"NvmlTimeoutHuge", {"--nvml-timeout", "99999999999999999999s", "status"}, "--nvml-timeout"},
    {"NvmlLibraryRandomBytes", {"--nvml-library", "{garbage}", "status"}, "{garbage}"},
    {"NvmlLibraryEmpty", {"--nvml-library", "{empty}", "status"}, "{empty}"},
    {"NvmlLibraryDirectory", {"--nvml-library", "{dir}", "status"}, "{dir}"},
    // watch
    {"WatchNegativeInterval", {"watch", "--count", "1", "-n", "-1s"}, "-n"},
    {"WatchHugeInterval", {"watch", "--count", "1", "-n", "1e300"}, "-n"},
    {"WatchNegativeCount", {"watch", "--count", "-1"}, "--count: '-1': use a whole number"},
    {"WatchZeroCount", {"watch", "--count", "0"}, "--count: '0': use a whole number"},
    {"WatchCountNotANumber", {"watch", "--count", "abc"}, "--count: 'abc': use a whole number"},
    {"WatchUnknownOption", {"watch", "--frobnicate"}, "--frobnicate"},
    // facts
    {"FactsZeroWindow", {"facts", "--window", "0"}, "--window"},
    {"FactsNegativeSince", {"facts", "--since", "-5m"}, "--since"},
    {"FactsRootIsAFile", {"facts", "--root", "{garbage}"}, "--root {garbage}"},
    {"FactsKernelLogMissing",
     {"facts", "--root", "{root}", "--kernel-log", "{missing}"},
     "{missing}: no such file"},
    {"FactsKernelLogIsADirectory",
     {"facts", "--root", "{root}", "--kernel-log", "{dir}"},
     "{dir}: not a file"},
    {"FactsExpectedGpusNotANumber", {"facts", "--expected-gpus", "abc"}, "--expected-gpus"},
    {"FactsPingPortZero", {"facts", "--ping", "host:0"}, "host:0"},
    // fix
    {"FixReportRandomBytes", {"fix", "--from-report", "{garbage}"}, "{garbage}: not valid JSON"},
    {"FixReportEmpty", {"fix", "--from-report", "{empty}"}, "{empty}: not valid JSON"},
    {"FixReportDirectory", {"fix", "--from-report", "{dir}"}, "{dir}"},
    {"FixReportMissing", {"fix", "--from-report", "{missing}"}, "{missing}"},
    {"FixNegativePowerLimit", {"fix", "--power-limit", "-5"}, "--power-limit"},
    {"FixZeroInterval", {"fix", "--interval", "0"}, "--interval"},
    {"FixConfigGarbageToml", {"fix", "--config", "{toml}"}, "{toml}:1"},
    {"FixGpuWithoutValue", {"fix", "--gpu"}, "--gpu"},
    {"FixUnknownOption", {"fix", "--frobnicate"}, "--frobnicate"},
    // check for people: as diagnose
    {"CheckUnknownOption", {"check", "--data-dir", "{data}", "--frobnicate"}, "--frobnicate"},
    {"CheckZeroInterval", {"check", "--data-dir", "{data}", "--interval", "0"}, "--interval"},
    {"CheckMaxAgeSoon", {"check", "--data-dir", "{data}", "--max-age", "soon"}, "--max-age"},
    {"CheckBadSeverity",
     {"check", "--data-dir", "{data}", "--severity", "fatal"},
     "--severity fatal"},
    {"CheckConfigGarbageToml", {"check", "--data-dir", "{data}", "--config", "{toml}"}, "{toml}:1"},
    // check --npd and --slurm: the protocol's "unknown", exit 2, even for
    // what CLI11 itself rejects
    {"CheckNpdUnknownOption",
     {"check", "--npd", "--data-dir", "{data}", "--frobnicate"},
     "--frobnicate",
     A::kNpd},
    {"CheckNpdOptionBeforeNpd", {"check", "--frobnicate", "--npd"}, "--frobnicate", A::kNpd},
    {"CheckNpdExpectedGpusNotANumber",
     {"check", "--npd", "--data-dir", "{data}", "--expected-gpus", "abc"},
     "--expected-gpus",
     A::kNpd},
    {"CheckNpdMissingValue",
     {"check", "--npd", "--data-dir", "{data}", "--duration"},
     "--duration",
     A::kNpd},
    {"CheckNpdMaxAgeSoon",
     {"check", "--npd", "--data-dir", "{data}", "--max-age", "soon"},
     "--max-age",
     A::kNpd},
    {"CheckNpdConfigRandomBytes",
     {"check", "--npd", "--data-dir", "{data}", "--config", "{garbage}"},
     "garbage.bin",
     A::kNpd},
    {"CheckSlurmUnknownOption",
     {"check", "--slurm", "--data-dir", "{data}", "--frobnicate"},
     "frobnicate",
     A::kSlurm},
    {"CheckSlurmZeroInterval",
     {"check", "--slurm", "--data-dir", "{data}", "--interval", "0"},
     "interval",
     A::kSlurm},
    // rules
    {"RulesUnknownOption", {"rules", "--frobnicate"}, "--frobnicate"},
    {"RulesExtraArgument", {"rules", "extra"}, "extra"},
};

INSTANTIATE_TEST_SUITE_P(BadInput, BadInputCase, ::testing::ValuesIn(kBadInputs),
                         [](const auto& p) { return std::string(p.param.name); });

// A file nobody may read: the one line names it. Root reads it anyway, so
// the case cannot be made there.
TEST(BadInputE2E, UnreadableFilesAreNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "running as root: chmod 000 does not stop root reading";
  Inputs in;
  TempDir dir;
  const std::string secret = dir.Write("secret.txt", "[thresholds]\n");
  ASSERT_EQ(::chmod(secret.c_str(), 0), 0);
  const std::vector<BadInput> cases = {
      {"Analyze", {"analyze", secret}, secret, A::kStderrExit3, 2},
      {"DiagnoseConfig", {"diagnose", "--config", secret}, secret},
      {"DiagnoseKernelLog",
       {"diagnose", "--root", "{root}", "--duration", "300ms", "--kernel-log", secret},
       secret},
      {"FixReport", {"fix", "--from-report", secret}, secret},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectRejected(c, in.Expand(c.args), c.names, in.scenario());
  }
}

}  // namespace
}  // namespace gpudoctor::test
