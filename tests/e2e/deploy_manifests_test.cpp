// The deploy/ files: the Kubernetes manifests through tests/deploy/
// check_manifests.py (PyYAML; it must also fail on broken copies), and
// node-problem-detector's plugin config against what `check` accepts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "check/check_verdict.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kDeploy = fs::path(TEST_DATA_DIR) / ".." / ".." / "deploy";
const fs::path kChecker = fs::path(TEST_DATA_DIR) / ".." / "deploy" / "check_manifests.py";

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

ProcessResult Check(const fs::path& dir) {
  return RunProcess({"/usr/bin/python3", kChecker.string(), dir.string()});
}

class DeployManifests : public ::testing::Test {
 protected:
  void SetUp() override {
    if (RunProcess({"/usr/bin/python3", "-c", "import yaml"}).exit_code != 0) {
      GTEST_SKIP() << "python3-yaml missing (scripts/bootstrap.sh installs it)";
    }
  }

  // A copy of deploy/kubernetes and deploy/node-problem-detector with `from`
  // replaced by `to` in kubernetes/`file`; returns the kubernetes folder.
  fs::path BrokenCopy(const std::string& file, const std::string& from, const std::string& to) {
    for (const char* sub : {"kubernetes", "node-problem-detector"}) {
      fs::copy(kDeploy / sub, copy_.path() / sub, fs::copy_options::recursive);
    }
    const fs::path target = copy_.path() / "kubernetes" / file;
    std::string text = ReadText(target);
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from << " not in " << file;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    std::ofstream(target, std::ios::trunc) << text;
    return copy_.path() / "kubernetes";
  }

  TempDir copy_;
};

TEST_F(DeployManifests, EveryDocumentParsesAndCarriesTheRequiredFields) {
  auto r = Check(kDeploy / "kubernetes");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("ok: ", 0), 0u) << r.out;
}

TEST_F(DeployManifests, CheckerFailsOnBrokenCopies) {
  struct Case {
    const char* file;
    const char* from;
    const char* to;
    const char* complaint;
  };
  const Case cases[] = {
      {"gpudoctor-daemonset.yaml", "\"SYSLOG\", ", "", "capability SYSLOG not added"},
      {"gpudoctor-daemonset.yaml", "path: /dev/kmsg", "path: /dev/null",
       "no hostPath volume for /dev/kmsg"},
      {"gpudoctor-daemonset.yaml", "path: /healthz", "path: /",
       "livenessProbe is not GET /healthz"},
      // The probes follow the plain health listener, not the port TLS guards.
      {"gpudoctor-daemonset.yaml", "              port: health\n            periodSeconds: 10",
       "              port: 9835\n            periodSeconds: 10",
       "readinessProbe is not on the --health-listen port 9836"},
      {"gpudoctor-daemonset.yaml", "              port: health\n            initialDelaySeconds",
       "              port: health\n              scheme: HTTPS\n            initialDelaySeconds",
       "livenessProbe is not plain HTTP"},
      {"gpudoctor-daemonset.yaml", "            - --health-listen\n            - 0.0.0.0:9836\n",
       "", "no --health-listen for the probes"},
      {"gpudoctor-daemonset.yaml", "privileged: false", "privileged: true",
       "must not run privileged"},
      {"gpudoctor-daemonset.yaml", "prometheus.io/port: \"9835\"\n    prometheus.io/path",
       "prometheus.io/port: \"9000\"\n    prometheus.io/path", "prometheus.io/port is not 9835"},
      {"servicemonitor.yaml", "app.kubernetes.io/component: agent",
       "app.kubernetes.io/component: db", "selector matches no Service's labels"},
      {"servicemonitor.yaml", "spec:\n", "spec:\n  - [\n", "does not parse"},
      {"gpudoctor-daemonset.yaml",
       "            - --web-config\n            - /etc/gpudoctor/web/web.yml\n", "",
       "without --web-config"},
      {"gpudoctor-daemonset.yaml", "mountPath: /etc/gpudoctor/web", "mountPath: /etc/elsewhere",
       "is not mounted from a Secret"},
      {"servicemonitor.yaml", "      basicAuth:", "      notAuth:", "sends no credentials"},
      {"node-problem-detector.yaml", "\"max_output_length\": 80", "\"max_output_length\": 120",
       "differs from"},
      // NPD runs the plugin in its own container: in NPD's image gpudoctor's
      // libraries are missing.
      {"node-problem-detector.yaml", "image: ghcr.io/gpudoctor/gpudoctor:0.1.0",
       "image: registry.k8s.io/node-problem-detector/node-problem-detector:v0.8.19",
       "not gpudoctor's image"},
      {"node-problem-detector.yaml",
       "[\"cp\", \"/node-problem-detector\", \"/npd/node-problem-detector\"]",
       "[\"cp\", \"/usr/bin/gpudoctor\", \"/npd/gpudoctor\"]", "copies gpudoctor"},
      {"gpudoctor-daemonset.yaml", "command: [\"/usr/bin/gpudoctor\"]",
       "command: [\"/usr/local/bin/gpudoctor\"]", "not the image's /usr/bin/gpudoctor"},
      {"node-problem-detector.yaml", "\"path\": \"/usr/bin/gpudoctor\"",
       "\"path\": \"/usr/local/bin/gpudoctor\"", "differs from"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.complaint);
    fs::remove_all(copy_.path() / "kubernetes");
    fs::remove_all(copy_.path() / "node-problem-detector");
    auto r = Check(BrokenCopy(c.file, c.from, c.to));
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find(c.complaint), std::string::npos) << r.out;
  }
}

TEST(DeployNpd, PluginConfigRunsCheckForEachCondition) {
  json doc = json::parse(ReadText(kDeploy / "node-problem-detector" / "gpudoctor-plugin.json"));
  EXPECT_EQ(doc["plugin"], "custom");
  EXPECT_EQ(doc["source"], "gpudoctor");
  const json& cfg = doc["pluginConfig"];
  EXPECT_EQ(cfg["max_output_length"], 80);
  EXPECT_EQ(cfg["concurrency"], 1);
  EXPECT_TRUE(cfg["invoke_interval"].is_string());
  EXPECT_TRUE(cfg["timeout"].is_string());
  std::set<std::string> types;
  for (const auto& c : doc["conditions"]) {
    EXPECT_FALSE(c["reason"].get<std::string>().empty());
    EXPECT_FALSE(c["message"].get<std::string>().empty());
    types.insert(c["type"].get<std::string>());
  }
  EXPECT_TRUE(types.count("GPUDropped"));
  std::set<std::string> checked;
  for (const auto& rule : doc["rules"]) {
    EXPECT_EQ(rule["type"], "permanent");
    EXPECT_TRUE(types.count(rule["condition"].get<std::string>())) << rule["condition"];
    EXPECT_EQ(rule["path"], "/usr/local/bin/gpudoctor");
    const auto args = rule["args"].get<std::vector<std::string>>();
    ASSERT_EQ(args.size(), 4u);
    EXPECT_EQ(args[0], "check");
    EXPECT_EQ(args[1], "--npd");
    EXPECT_EQ(args[2], "--condition");
    EXPECT_TRUE(ParseCheckCondition(args[3])) << args[3] << " is not a check condition";
    checked.insert(args[3]);
  }
  // Every condition check knows has a rule.
  for (CheckCondition c : AllCheckConditions()) {
    EXPECT_TRUE(checked.count(CheckConditionName(c))) << CheckConditionName(c);
  }
}

}  // namespace
}  // namespace gpudoctor::test
