#include "core/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "support/temp_files.h"

namespace gpudoctor {
namespace {

void ExpectDefaultThresholds(const Thresholds& t) {
  const Thresholds d;
  EXPECT_EQ(t.utilization_wasted_below_percent, d.utilization_wasted_below_percent);
  EXPECT_EQ(t.utilization_normal_min_percent, d.utilization_normal_min_percent);
  EXPECT_EQ(t.utilization_normal_max_percent, d.utilization_normal_max_percent);
  EXPECT_EQ(t.utilization_saturated_percent, d.utilization_saturated_percent);
  EXPECT_EQ(t.memory_high_percent, d.memory_high_percent);
  EXPECT_EQ(t.temperature_high_c, d.temperature_high_c);
  EXPECT_EQ(t.power_near_limit_ratio, d.power_near_limit_ratio);
  EXPECT_EQ(t.power_fluctuation_cv, d.power_fluctuation_cv);
}

void ExpectDefaults(const Config& c) {
  ExpectDefaultThresholds(c.thresholds);
  EXPECT_FALSE(c.psu_capacity_w.has_value());
  EXPECT_FALSE(c.expected_gpus.has_value());
  ASSERT_TRUE(c.psu_headroom_ratio.has_value());
  EXPECT_DOUBLE_EQ(*c.psu_headroom_ratio, 0.20);
  EXPECT_DOUBLE_EQ(c.sustained_fraction, 0.8);
  EXPECT_TRUE(c.ping_targets.empty());
  EXPECT_FALSE(c.ib.ports.has_value());
  EXPECT_FALSE(c.ib.rate_gbps.has_value());
  EXPECT_DOUBLE_EQ(c.ib.symbol_errors_per_hour, 120);
  EXPECT_DOUBLE_EQ(c.ib.error_count, 10);
  EXPECT_DOUBLE_EQ(c.ib.drop_minutes, 4);
  EXPECT_EQ(c.metric_names, MetricNames::kGpudoctor);
  EXPECT_EQ(c.metrics_top_processes, 10u);
}

// The error message for `text`, or a note that it parsed.
std::string ErrorOf(const std::string& text, ErrorCode expected_code = ErrorCode::kInvalid) {
  auto r = ParseConfig(text, "cfg.toml");
  if (r.ok()) return "<parsed>";
  EXPECT_EQ(r.error().code, expected_code) << r.error().message;
  EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
  return r.error().message;
}

std::string ReadExample() {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/../../deploy/config.example.toml");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Config, DefaultsFromAnEmptyDocument) {
  auto r = ParseConfig("", "empty.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectDefaults(*r);
  EXPECT_EQ(r->source, "empty.toml");
  ExpectDefaults(Config{});
  EXPECT_EQ(Config{}.source, "defaults");
}

TEST(Config, ExampleFileEqualsTheDefaults) {
  const std::string text = ReadExample();
  ASSERT_FALSE(text.empty());
  auto r = ParseConfig(text, "config.example.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectDefaults(*r);
}

TEST(Config, ExampleFileCommentedExamplesAreValid) {
  std::string text = ReadExample();
  for (const char* key : {"# psu_capacity_w", "# expected_count", "# ping = [\"", "# ib_ports",
                          "# ib_rate_gbps", "# dataset_mounts = [\""}) {
    const auto at = text.find(key);
    ASSERT_NE(at, std::string::npos) << key;
    text.erase(at, 2);
  }
  // The uncommented `ping` example now repeats the key: drop the empty one.
  text.erase(text.find("ping = []\n"), 10);
  text.erase(text.find("dataset_mounts = []\n"), 20);
  auto r = ParseConfig(text, "example");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->psu_capacity_w, 3000);
  EXPECT_EQ(r->expected_gpus, 8u);
  EXPECT_EQ(r->ping_targets.size(), 2u);
  EXPECT_EQ(r->ib.ports, 8u);
  EXPECT_EQ(r->ib.rate_gbps, 400);
  EXPECT_EQ(r->dataset_mounts, (std::vector<std::string>{"/mnt/datasets", "/checkpoints"}));
}

TEST(Config, DatasetMountsAreAbsolutePaths) {
  auto r = ParseConfig("[storage]\ndataset_mounts = [\"/data\", \"/mnt/ckpt\"]\n", "cfg.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->dataset_mounts, (std::vector<std::string>{"/data", "/mnt/ckpt"}));
  EXPECT_EQ(ErrorOf("[storage]\ndataset_mounts = [\"data\"]\n"),
            "cfg.toml:2: storage.dataset_mounts: 'data' is not an absolute path");
  EXPECT_EQ(ErrorOf("[storage]\ndataset_mounts = \"/data\"\n"),
            "cfg.toml:2: storage.dataset_mounts: expected an array of strings, got a string");
  EXPECT_EQ(ErrorOf("[storage]\ndatasets = []\n"), "cfg.toml:2: storage.datasets: unknown key");
}

TEST(Config, EveryKeyOverrides) {
  auto r = ParseConfig(R"(
[thresholds]
utilization_wasted_below_percent = 20
utilization_normal_min_percent = 50
utilization_normal_max_percent = 85.5
utilization_saturated_percent = 99
memory_high_percent = 95
temperature_high_c = 80
power_near_limit_ratio = 0.9
power_fluctuation_cv = 0.25

[power]
psu_capacity_w = 3000
headroom_ratio = 0.1

[gpus]
expected_count = 8

[window]
sustained_fraction = 0.5

[network]
ping = ["10.0.0.1", "host:22"]
ib_ports = 4
ib_rate_gbps = 200
ib_symbol_errors_per_hour = 60
ib_error_count = 3
ib_drop_minutes = 2.5

[metrics]
names = "both"
top_processes = 3
)",
                       "/etc/x.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Thresholds& t = r->thresholds;
  EXPECT_EQ(t.utilization_wasted_below_percent, 20);
  EXPECT_EQ(t.utilization_normal_min_percent, 50);
  EXPECT_EQ(t.utilization_normal_max_percent, 85.5);
  EXPECT_EQ(t.utilization_saturated_percent, 99);
  EXPECT_EQ(t.memory_high_percent, 95);
  EXPECT_EQ(t.temperature_high_c, 80);
  EXPECT_EQ(t.power_near_limit_ratio, 0.9);
  EXPECT_EQ(t.power_fluctuation_cv, 0.25);
  EXPECT_EQ(r->psu_capacity_w, 3000);
  EXPECT_EQ(r->psu_headroom_ratio, 0.1);
  EXPECT_EQ(r->expected_gpus, 8u);
  EXPECT_EQ(r->sustained_fraction, 0.5);
  EXPECT_EQ(r->ping_targets, (std::vector<std::string>{"10.0.0.1", "host:22"}));
  EXPECT_EQ(r->ib.ports, 4u);
  EXPECT_EQ(r->ib.rate_gbps, 200);
  EXPECT_EQ(r->ib.symbol_errors_per_hour, 60);
  EXPECT_EQ(r->ib.error_count, 3);
  EXPECT_EQ(r->ib.drop_minutes, 2.5);
  EXPECT_EQ(r->metric_names, MetricNames::kBoth);
  EXPECT_EQ(r->metrics_top_processes, 3u);
  EXPECT_EQ(r->source, "/etc/x.toml");
}

TEST(Config, MetricsSectionRejectsWhatTheAgentCannotServe) {
  EXPECT_EQ(ErrorOf("[metrics]\nnames = \"prometheus\"\n"),
            "cfg.toml:2: metrics.names: 'prometheus' is not gpudoctor, dcgm or both");
  EXPECT_EQ(ErrorOf("[metrics]\nnames = 1\n"),
            "cfg.toml:2: metrics.names: expected a string, got an integer");
  EXPECT_EQ(ErrorOf("[metrics]\ntop_processes = -1\n"),
            "cfg.toml:2: metrics.top_processes: -1 is not in [0, 1000]");
  EXPECT_EQ(ErrorOf("[metrics]\ntop_processes = 2.5\n"),
            "cfg.toml:2: metrics.top_processes: expected an integer, got a floating-point number");
  EXPECT_EQ(ErrorOf("[metrics]\nname = \"dcgm\"\n"), "cfg.toml:2: metrics.name: unknown key");
  auto dcgm = ParseConfig("[metrics]\nnames = \"dcgm\"\ntop_processes = 0\n", "x");
  ASSERT_TRUE(dcgm.ok()) << dcgm.error().message;
  EXPECT_EQ(dcgm->metric_names, MetricNames::kDcgm);
  EXPECT_EQ(dcgm->metrics_top_processes, 0u);
}

TEST(Config, PartialOverrideKeepsOtherDefaults) {
  auto r = ParseConfig("[thresholds]\nmemory_high_percent = 80\n", "x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->thresholds.memory_high_percent, 80);
  EXPECT_EQ(r->thresholds.temperature_high_c, 85);
  EXPECT_EQ(r->sustained_fraction, 0.8);
}

TEST(Config, DottedKeysAtTopLevelWork) {
  auto r = ParseConfig("gpus.expected_count = 4\n", "x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->expected_gpus, 4u);
}

TEST(Config, UnknownSectionNamesLine) {
  EXPECT_EQ(ErrorOf("\n\n[thresolds]\nmemory_high_percent = 80\n"),
            "cfg.toml:3: thresolds: unknown section");
}

TEST(Config, UnknownKeyNamesLine) {
  EXPECT_EQ(ErrorOf("[thresholds]\nmemory_high_percent = 80\nmemory_hihg_percent = 80\n"),
            "cfg.toml:3: thresholds.memory_hihg_percent: unknown key");
  EXPECT_EQ(ErrorOf("[power]\n\npsu_capacity = 10\n"),
            "cfg.toml:3: power.psu_capacity: unknown key");
  EXPECT_EQ(ErrorOf("[gpus]\ncount = 8\n"), "cfg.toml:2: gpus.count: unknown key");
  EXPECT_EQ(ErrorOf("[window]\nfraction = 0.5\n"), "cfg.toml:2: window.fraction: unknown key");
  EXPECT_EQ(ErrorOf("[network]\npings = []\n"), "cfg.toml:2: network.pings: unknown key");
  EXPECT_EQ(ErrorOf("verbose = true\n"), "cfg.toml:1: verbose: unknown key");
  EXPECT_EQ(ErrorOf("[thresholds.extra]\n"), "cfg.toml:1: thresholds.extra: unknown key");
}

TEST(Config, SectionThatIsNotATable) {
  EXPECT_EQ(ErrorOf("# c\npower = 5\n"), "cfg.toml:2: power: expected a section, got an integer");
}

TEST(Config, WrongTypeNamesLine) {
  EXPECT_EQ(ErrorOf("[thresholds]\n\ntemperature_high_c = \"85\"\n"),
            "cfg.toml:3: thresholds.temperature_high_c: expected a number, got a string");
  EXPECT_EQ(ErrorOf("[power]\npsu_capacity_w = true\n"),
            "cfg.toml:2: power.psu_capacity_w: expected a number, got a boolean");
  EXPECT_EQ(ErrorOf("[gpus]\nexpected_count = 8.5\n"),
            "cfg.toml:2: gpus.expected_count: expected an integer, got a floating-point number");
  EXPECT_EQ(ErrorOf("[network]\nib_ports = \"8\"\n"),
            "cfg.toml:2: network.ib_ports: expected an integer, got a string");
  EXPECT_EQ(ErrorOf("[network]\nib_ports = -1\n"),
            "cfg.toml:2: network.ib_ports: -1 is not in [0, 1024]");
  EXPECT_EQ(ErrorOf("[network]\nping = \"10.0.0.1\"\n"),
            "cfg.toml:2: network.ping: expected an array of strings, got a string");
  EXPECT_EQ(ErrorOf("[network]\nping = [\n  \"a\",\n  7,\n]\n"),
            "cfg.toml:4: network.ping: expected a string, got an integer");
}

TEST(Config, OutOfRangeNamesLine) {
  EXPECT_EQ(ErrorOf("[thresholds]\nmemory_high_percent = 101\n"),
            "cfg.toml:2: thresholds.memory_high_percent: 101 is not in [0, 100]");
  EXPECT_EQ(ErrorOf("[thresholds]\n\n\nutilization_wasted_below_percent = -1\n"),
            "cfg.toml:4: thresholds.utilization_wasted_below_percent: -1 is not in [0, 100]");
  EXPECT_EQ(ErrorOf("[thresholds]\npower_near_limit_ratio = 1.5\n"),
            "cfg.toml:2: thresholds.power_near_limit_ratio: 1.5 is not in (0, 1]");
  EXPECT_EQ(ErrorOf("[thresholds]\ntemperature_high_c = 0\n"),
            "cfg.toml:2: thresholds.temperature_high_c: 0 is not in (0, 150]");
  EXPECT_EQ(ErrorOf("[thresholds]\npower_fluctuation_cv = nan\n"),
            "cfg.toml:2: thresholds.power_fluctuation_cv: nan is not in (0, 10]");
  EXPECT_EQ(ErrorOf("[power]\npsu_capacity_w = -3000\n"),
            "cfg.toml:2: power.psu_capacity_w: -3000 is not above 0");
  EXPECT_EQ(ErrorOf("[power]\npsu_capacity_w = inf\n"),
            "cfg.toml:2: power.psu_capacity_w: inf is not above 0");
  EXPECT_EQ(ErrorOf("[power]\nheadroom_ratio = 1\n"),
            "cfg.toml:2: power.headroom_ratio: 1 is not in [0, 1)");
  EXPECT_EQ(ErrorOf("[gpus]\nexpected_count = 0\n"),
            "cfg.toml:2: gpus.expected_count: 0 is not in [1, 1024]");
  EXPECT_EQ(ErrorOf("[gpus]\nexpected_count = -8\n"),
            "cfg.toml:2: gpus.expected_count: -8 is not in [1, 1024]");
  EXPECT_EQ(ErrorOf("[window]\nsustained_fraction = 0\n"),
            "cfg.toml:2: window.sustained_fraction: 0 is not in (0, 1]");
  EXPECT_EQ(ErrorOf("[window]\nsustained_fraction = 1.01\n"),
            "cfg.toml:2: window.sustained_fraction: 1.01 is not in (0, 1]");
  EXPECT_EQ(ErrorOf("[network]\nping = [\"\"]\n"),
            "cfg.toml:2: network.ping: '' is not a host or host:port");
  EXPECT_EQ(ErrorOf("[network]\nping = [\"a b\"]\n"),
            "cfg.toml:2: network.ping: 'a b' is not a host or host:port");
}

TEST(Config, BoundariesAreAccepted) {
  EXPECT_EQ(ErrorOf("[thresholds]\nmemory_high_percent = 100\n"), "<parsed>");
  EXPECT_EQ(ErrorOf("[window]\nsustained_fraction = 1\n"), "<parsed>");
  EXPECT_EQ(ErrorOf("[power]\nheadroom_ratio = 0\n"), "<parsed>");
  EXPECT_EQ(ErrorOf("[thresholds]\nutilization_normal_min_percent = 90\n"), "<parsed>");
}

TEST(Config, UtilizationBandsMustBeOrdered) {
  EXPECT_EQ(ErrorOf("[thresholds]\nutilization_normal_max_percent = 70\n"
                    "utilization_normal_min_percent = 80\n"),
            "cfg.toml:3: thresholds.utilization_normal_min_percent: 80 is above "
            "utilization_normal_max_percent (70)");
  // Only the max is set: it is the key named, against the default min.
  EXPECT_EQ(ErrorOf("[thresholds]\n\nutilization_normal_max_percent = 50\n"),
            "cfg.toml:3: thresholds.utilization_normal_max_percent: 50 is below "
            "utilization_normal_min_percent (60)");
  EXPECT_EQ(ErrorOf("[thresholds]\nutilization_wasted_below_percent = 65\n"),
            "cfg.toml:2: thresholds.utilization_wasted_below_percent: 65 is above "
            "utilization_normal_min_percent (60)");
  EXPECT_EQ(ErrorOf("[thresholds]\nutilization_saturated_percent = 85\n"),
            "cfg.toml:2: thresholds.utilization_saturated_percent: 85 is below "
            "utilization_normal_max_percent (90)");
}

TEST(Config, SyntaxErrorsGiveLineAndColumn) {
  const std::string m = ErrorOf("[thresholds]\nmemory_high_percent = 80\ntemperature_high_c = \n",
                                ErrorCode::kCorrupt);
  EXPECT_EQ(m.rfind("cfg.toml:3:", 0), 0u) << m;
  EXPECT_NE(m.find("TOML syntax: "), std::string::npos) << m;
  const std::string dup =
      ErrorOf("[gpus]\nexpected_count = 1\nexpected_count = 2\n", ErrorCode::kCorrupt);
  EXPECT_EQ(dup.rfind("cfg.toml:3:", 0), 0u) << dup;
  const std::string unclosed = ErrorOf("\n\n\n[power\n", ErrorCode::kCorrupt);
  EXPECT_EQ(unclosed.rfind("cfg.toml:4:", 0), 0u) << unclosed;
}

TEST(ConfigLoad, NoFileGivesDefaults) {
  test::TempDir dir;
  auto r = LoadConfig(std::nullopt, (dir.path() / "absent.toml").string());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ExpectDefaults(*r);
  EXPECT_EQ(r->source, "defaults");
}

TEST(ConfigLoad, DefaultPathIsReadWhenPresent) {
  test::TempDir dir;
  const std::string path = dir.Write("config.toml", "[gpus]\nexpected_count = 2\n");
  auto r = LoadConfig(std::nullopt, path);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->expected_gpus, 2u);
  EXPECT_EQ(r->source, path);
}

TEST(ConfigLoad, ExplicitFileWinsOverDefaultPath) {
  test::TempDir dir;
  const std::string def = dir.Write("default.toml", "[gpus]\nexpected_count = 2\n");
  const std::string mine = dir.Write("mine.toml", "[gpus]\nexpected_count = 4\n");
  auto r = LoadConfig(mine, def);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->expected_gpus, 4u);
  EXPECT_EQ(r->source, mine);
}

TEST(ConfigLoad, ExplicitMissingFileIsAnError) {
  test::TempDir dir;
  const std::string path = (dir.path() / "nope.toml").string();
  auto r = LoadConfig(path, (dir.path() / "absent.toml").string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().message, "config file " + path + ": No such file or directory");
}

TEST(ConfigLoad, DirectoryIsAnError) {
  test::TempDir dir;
  auto r = LoadConfig(dir.path().string());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(r.error().message,
            "config file " + dir.path().string() + ": is a directory, not a TOML file");
  // A directory at the default path is reported too, not taken for "absent".
  auto d = LoadConfig(std::nullopt, dir.path().string());
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().code, ErrorCode::kInvalid);
}

TEST(ConfigLoad, UnreadableFileIsAnError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  test::TempDir dir;
  const std::string path = dir.Write("locked.toml", "");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto r = LoadConfig(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kPermission);
  EXPECT_EQ(r.error().message, "config file " + path + ": Permission denied");
}

TEST(ConfigLoad, ParseErrorsNameThePath) {
  test::TempDir dir;
  const std::string path = dir.Write("bad.toml", "[window]\nsustained_fraction = 2\n");
  auto r = LoadConfig(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, path + ":2: window.sustained_fraction: 2 is not in (0, 1]");
}

}  // namespace
}  // namespace gpudoctor

namespace gpudoctor {
namespace {

std::string SeverityErrorOf(const std::string& text) {
  auto r = ParseConfig(text, "cfg.toml");
  return r.ok() ? "" : r.error().message;
}

TEST(Config, SeveritySectionSetsPerCodeLevels) {
  auto r = ParseConfig(
      "[severity]\nxid.94 = \"warning\"\nsxid.12028 = \"critical\"\n"
      "\"xid.13\" = \"info\"\n",
      "cfg.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->severity.xid.at(94), Level::kWarning);
  EXPECT_EQ(r->severity.xid.at(13), Level::kInfo);
  EXPECT_EQ(r->severity.sxid.at(12028), Level::kCritical);
  EXPECT_TRUE(ParseConfig("", "x")->severity.empty());
}

TEST(Config, SeveritySectionIsValidatedLikeTheOthers) {
  EXPECT_EQ(SeverityErrorOf("[severity]\nxid.94 = \"loud\"\n"),
            "cfg.toml:2: severity.xid.94: 'loud' is not info, warning or critical");
  EXPECT_EQ(SeverityErrorOf("[severity]\nxid.abc = \"info\"\n"),
            "cfg.toml:2: severity.xid.abc: 'abc' is not an Xid code (a number from 1)");
  EXPECT_EQ(SeverityErrorOf("[severity]\nsxid.0 = \"info\"\n"),
            "cfg.toml:2: severity.sxid.0: '0' is not an SXid code (a number from 1)");
  EXPECT_EQ(SeverityErrorOf("[severity]\nxid.94 = 2\n"),
            "cfg.toml:2: severity.xid.94: expected a string, got an integer");
  EXPECT_EQ(SeverityErrorOf("[severity]\ngpu.1 = \"info\"\n"),
            "cfg.toml:2: severity.gpu: unknown key (xid.N or sxid.N)");
}

TEST(Config, EscalationSectionSetsThresholdsWindowAndDedup) {
  auto defaults = ParseConfig("", "x");
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->escalation.after_reboots, 2);
  EXPECT_EQ(defaults->escalation.xid_after_reboots.at(94), 0) << "Xid 94 never escalates";
  EXPECT_EQ(defaults->escalation.window, std::chrono::hours(24 * 7));
  EXPECT_EQ(defaults->escalation.dedup, std::chrono::minutes(3));
  auto r = ParseConfig(
      "[escalation]\nafter_reboots = 3\nwindow = \"2d\"\ndedup = \"5m\"\nxid.79 = 1\n"
      "\"xid.31\" = 0\nmax_recoveries = 5\nrecovery_period = \"12h\"\n",
      "cfg.toml");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->escalation.after_reboots, 3);
  EXPECT_EQ(r->escalation.window, std::chrono::hours(48));
  EXPECT_EQ(r->escalation.dedup, std::chrono::minutes(5));
  EXPECT_EQ(r->escalation.xid_after_reboots.at(79), 1);
  EXPECT_EQ(r->escalation.xid_after_reboots.at(31), 0);
  EXPECT_EQ(r->escalation.max_recoveries, 5);
  EXPECT_EQ(r->escalation.recovery_period, std::chrono::hours(12));
  EXPECT_EQ(r->escalation.xid_after_reboots.at(94), 0) << "the default stays";
  auto table = ParseConfig("[escalation.xid]\n48 = 4\n94 = 1\n", "cfg.toml");
  ASSERT_TRUE(table.ok()) << table.error().message;
  EXPECT_EQ(table->escalation.xid_after_reboots.at(48), 4);
  EXPECT_EQ(table->escalation.xid_after_reboots.at(94), 1) << "the default overridden";
}

TEST(Config, EscalationSectionIsValidated) {
  EXPECT_EQ(SeverityErrorOf("[escalation]\nafter_reboots = -1\n"),
            "cfg.toml:2: escalation.after_reboots: -1 is not in [0, 100] (0: never)");
  EXPECT_EQ(SeverityErrorOf("[escalation]\nafter_reboots = \"2\"\n"),
            "cfg.toml:2: escalation.after_reboots: expected an integer, got a string");
  EXPECT_NE(SeverityErrorOf("[escalation]\nwindow = \"soon\"\n")
                .rfind("cfg.toml:2: escalation.window: ", 0),
            std::string::npos);
  EXPECT_EQ(SeverityErrorOf("[escalation]\nxid.abc = 1\n"),
            "cfg.toml:2: escalation.xid.abc: 'abc' is not an Xid code (a number from 1)");
  EXPECT_EQ(SeverityErrorOf("[escalation]\nreboots = 1\n"),
            "cfg.toml:2: escalation.reboots: unknown key (after_reboots, window, dedup, xid.N, "
            "max_recoveries or recovery_period)");
}

}  // namespace
}  // namespace gpudoctor
