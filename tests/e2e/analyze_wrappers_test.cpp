// End-to-end: `gpudoctor analyze` on real kernel lines (../shared/fixtures)
// as log pipelines and journalctl export them: multi-line JSON documents,
// journal export with a binary field, gzip, an unknown wrapper; and a file
// whose NVRM lines cannot be read, which must not say "no problem found".
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/fixtures.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "unit/analyze_samples.h"

namespace gpudoctor::test {
namespace {

using nlohmann::json;

const char* kAkash = "akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log";

// The fixture's NVRM messages, from "NVRM:" on.
std::vector<std::string> NvrmMessages(const std::string& name) {
  std::vector<std::string> out;
  std::istringstream in(ReadFixtureFile("kernel", name));
  for (std::string line; std::getline(in, line);) {
    if (auto at = line.find("NVRM:"); at != std::string::npos) out.push_back(line.substr(at));
  }
  return out;
}

json Analyze(const std::string& path, int expect_exit) {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", path}, o);
  EXPECT_EQ(r.exit_code, expect_exit) << r.err << r.out.substr(0, 2000);
  return json::parse(r.out, nullptr, false);
}

std::set<std::string> Ids(const json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

class AnalyzeWrappers : public ::testing::Test {
 protected:
  void SetUp() override {
    messages_ = NvrmMessages(kAkash);
    if (messages_.empty()) GTEST_SKIP() << "shared fixtures not found at " << SHARED_DIR;
  }
  std::vector<std::string> messages_;
  TempDir dir_;
};

// journalctl -o json-pretty: objects back to back, each over several lines.
TEST_F(AnalyzeWrappers, JournalJsonPrettyIsReadRecordByRecord) {
  std::string text;
  long long us = 1712352579000000;
  for (const std::string& m : messages_) {
    json rec = {{"__REALTIME_TIMESTAMP", std::to_string(us += 1000)}, {"_HOSTNAME", "node1"},
                {"MESSAGE", m}};
    text += rec.dump(8) + "\n";
  }
  json doc = Analyze(dir_.Write("journal.json", text), 2);
  EXPECT_EQ(doc["verdict"], "critical");
  EXPECT_TRUE(Ids(doc).count("xid.fallen_off_bus")) << doc["findings"].dump();
  EXPECT_EQ(doc["inputs"][0]["kind"], "kernel-log");
}

// journalctl -o export with MESSAGE as a binary field (length-prefixed).
TEST_F(AnalyzeWrappers, JournalExportWithBinaryFieldsIsRead) {
  std::string text;
  long long us = 1712352579000000;
  for (std::size_t i = 0; i < messages_.size(); ++i) {
    text += "__CURSOR=s=1;i=" + std::to_string(i) + "\n__REALTIME_TIMESTAMP=" +
            std::to_string(us += 1000) + "\n_HOSTNAME=node1\n";
    if (i % 2 == 0) {
      text += "MESSAGE=" + messages_[i] + "\n";
    } else {
      std::string len(8, '\0');
      std::uint64_t n = messages_[i].size();
      for (int b = 0; b < 8; ++b) len[static_cast<std::size_t>(b)] = static_cast<char>(n >> (8 * b));
      text += "MESSAGE\n" + len + messages_[i] + "\n";
    }
    text += "\n";
  }
  json doc = Analyze(dir_.Write("journal.export", text), 2);
  EXPECT_TRUE(Ids(doc).count("xid.fallen_off_bus")) << doc["findings"].dump();
  bool xid = false;
  for (const auto& e : doc["events"]) xid = xid || e["code"] == 79;
  EXPECT_TRUE(xid) << doc["events"].dump();
}

// Loki's query API and CloudWatch's filter-log-events answer, one document each.
TEST_F(AnalyzeWrappers, LokiAndCloudWatchDocumentsAreRead) {
  json values = json::array(), events = json::array();
  long long ms = 1712352579000;
  for (const std::string& m : messages_) {
    values.push_back({std::to_string((ms += 1) * 1000000), m});
    events.push_back({{"logStreamName", "i-0abc"}, {"timestamp", ms}, {"message", m}});
  }
  json loki = {{"status", "success"},
               {"data", {{"resultType", "streams"},
                         {"result", {{{"stream", {{"job", "kernel"}}}, {"values", values}}}}}}};
  json cw = {{"events", events}, {"searchedLogStreams", json::array()}};
  for (const auto& [name, body] : {std::pair{"loki.json", loki.dump(2)}, std::pair{"cw.json", cw.dump(2)}}) {
    SCOPED_TRACE(name);
    json doc = Analyze(dir_.Write(name, body), 2);
    EXPECT_TRUE(Ids(doc).count("xid.fallen_off_bus")) << doc["findings"].dump();
  }
}

// The fixture file itself, gzip-compressed, and behind a wrapper no format names.
TEST_F(AnalyzeWrappers, GzipAndUnknownWrappersStillFindTheLostGpu) {
  std::string plain = ReadFixtureFile("kernel", kAkash);
  json gz = Analyze(dir_.Write("dmesg.log.gz", Gzip(plain)), 2);
  EXPECT_TRUE(Ids(gz).count("xid.fallen_off_bus")) << gz["findings"].dump();
  std::string wrapped;
  for (const std::string& m : messages_) wrapped += "node1 | kern.err | " + m + "\n";
  json odd = Analyze(dir_.Write("odd.log", wrapped), 2);
  EXPECT_TRUE(Ids(odd).count("xid.fallen_off_bus")) << odd["findings"].dump();
}

// NVRM lines no matcher knows: a finding that says so, not "no problem found".
TEST_F(AnalyzeWrappers, UndecodedNvrmLinesAreReported) {
  const std::string log =
      "Apr  5 21:29:39 node1 kernel: NVRM: Xid-like text this version cannot read\n"
      "Apr  5 21:29:40 node1 kernel: NVRM: and another one\n";
  json doc = Analyze(dir_.Write("odd.log", log), 1);
  EXPECT_EQ(doc["verdict"], "warning");
  ASSERT_TRUE(Ids(doc).count("kernel_log.undecoded")) << doc["findings"].dump();
  for (const auto& f : doc["findings"]) {
    if (f["id"] != "kernel_log.undecoded") continue;
    EXPECT_NE(f["title"].get<std::string>().find("2 line(s)"), std::string::npos) << f.dump();
    EXPECT_NE(f.dump().find("Xid-like text this version cannot read"), std::string::npos);
  }
}

}  // namespace
}  // namespace gpudoctor::test
