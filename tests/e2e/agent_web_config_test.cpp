// End to end: `gpudoctor agent --web-config FILE` on the fake NVML. Without
// credentials /metrics and the API are refused (401) and /healthz still
// answers; with them they answer; TLS with a certificate made at test time
// by the openssl CLI; a bad file is a one-line error naming it (exit 3);
// SIGHUP reloads users and TLS; a real Prometheus scrapes through TLS and
// basic authentication.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/httplib_config.h"
#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/test_prometheus.h"

namespace gpudoctor::test {
namespace agent_web_config_test {

// bcrypt (cost 4) of "secret" and of "other".
constexpr const char* kSecret = "$2b$04$smeUNCKiNpiDxKXLuDQY8evkDebDzcQZHVF6AHnF.RtW9kVO9JZi2";
constexpr const char* kOther = "$2y$04$/cucrxCWviAjNf43q6Rt9OGTkdSGy1iT8DV32lwhnLeqhpI47IriS";

class AgentWebConfig : public ::testing::Test {
 protected:
  std::vector<std::string> AgentArgs(int port, const std::string& web_config,
                                     const std::vector<std::string>& extra = {}) const {
    std::vector<std::string> args = {"agent",
                                     "--data-dir",
                                     data_.path().string(),
                                     "--interval",
                                     "200ms",
                                     "--no-kernel-log",
                                     "--run-for",
                                     "120s",
                                     "--listen",
                                     "127.0.0.1:" + std::to_string(port),
                                     "--web-config",
                                     web_config};
    args.insert(args.end(), extra.begin(), extra.end());
    return GpudoctorArgv(args);
  }
  std::unique_ptr<BackgroundProcess> StartAgent(int port, const std::string& web_config,
                                                const std::vector<std::string>& extra = {}) const {
    return std::make_unique<BackgroundProcess>(
        AgentArgs(port, web_config, extra),
        FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"),
        (data_.path() / "agent.log").string());
  }
  std::string Log() const {
    std::ifstream in(data_.path() / "agent.log");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // A self-signed certificate for 127.0.0.1, made by the openssl CLI.
  bool MakeCertificate() const {
    auto r = RunProcess({"/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                         "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                         (conf_.path() / "server.key").string(), "-out",
                         (conf_.path() / "server.crt").string(), "-days", "2", "-subj",
                         "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"});
    return r.exit_code == 0;
  }
  static void Stop(BackgroundProcess& agent) {
    agent.Signal(SIGTERM);
    const int st = agent.Wait(std::chrono::seconds(30));
    EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  }
  TempDir data_;
  TempDir conf_;
};

// The status of GET `path` (0: no answer), retried until `want` or `limit`.
template <typename Client>
int StatusOf(Client& c, const std::string& path, int want, std::chrono::seconds limit) {
  int last = 0;
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    auto r = c.Get(path.c_str());
    last = r ? r->status : 0;
    if (last == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return last;
}

TEST_F(AgentWebConfig, BasicAuthRefusesWithoutCredentialsAndAnswersWithThem) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string web =
      conf_.Write("web.yml", std::string("basic_auth_users:\n  prometheus: ") + kSecret + "\n");
  auto agent = StartAgent(port, web);
  ASSERT_TRUE(agent->started());
  httplib::Client anonymous("127.0.0.1", port);
  anonymous.set_read_timeout(10);
  ASSERT_EQ(StatusOf(anonymous, "/healthz", 200, std::chrono::seconds(30)), 200) << Log();
  for (const char* path : {"/metrics", "/api/v1/status", "/api/v1/report?since=1h"}) {
    auto r = anonymous.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Basic realm=\"gpudoctor\"") << path;
    EXPECT_EQ(r->body.find("gpudoctor_"), std::string::npos) << path;
  }
  httplib::Client wrong("127.0.0.1", port);
  wrong.set_basic_auth("prometheus", "Secret");
  auto refused = wrong.Get("/metrics");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);

  httplib::Client right("127.0.0.1", port);
  right.set_read_timeout(10);
  right.set_basic_auth("prometheus", "secret");
  for (int i = 0; i < 3; ++i) {  // the first verifies with bcrypt, the others from the cache
    auto r = right.Get("/metrics");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_NE(r->body.find("gpudoctor_agent_samples_total"), std::string::npos);
  }
  EXPECT_EQ(StatusOf(right, "/api/v1/status", 200, std::chrono::seconds(20)), 200);
  EXPECT_EQ(StatusOf(right, "/api/v1/report?since=1h", 200, std::chrono::seconds(20)), 200);
  Stop(*agent);
}

TEST_F(AgentWebConfig, BadConfigIsOneLineErrorNamingTheFile) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  ProcessOptions o;
  o.env = FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json");
  o.timeout = std::chrono::seconds(30);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"users.yml", "basic_auth_users:\n  prometheus: secret\n"},
      {"tls.yml", "tls_server_config:\n  cert_file: missing.crt\n  key_file: missing.key\n"},
      {"garbage.yml", "{{{{ not yaml"},
  };
  for (const auto& [name, text] : bad) {
    const std::string path = conf_.Write(name, text);
    auto r = RunProcess(AgentArgs(port, path), o);
    EXPECT_EQ(r.exit_code, 3) << name << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("gpudoctor agent: " + path, 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  auto r = RunProcess(AgentArgs(port, (conf_.path() / "absent.yml").string()), o);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("absent.yml"), std::string::npos) << r.err;
}

TEST_F(AgentWebConfig, SighupReloadsUsersAndKeepsTheOldOnesWhenTheNewFileIsBad) {
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string web =
      conf_.Write("web.yml", std::string("basic_auth_users:\n  prometheus: ") + kSecret + "\n");
  std::filesystem::permissions(web, std::filesystem::perms{0644});  // whatever the umask
  auto agent = StartAgent(port, web);
  ASSERT_TRUE(agent->started());
  httplib::Client before("127.0.0.1", port);
  before.set_basic_auth("prometheus", "secret");
  ASSERT_EQ(StatusOf(before, "/metrics", 200, std::chrono::seconds(30)), 200) << Log();

  // A broken file: refused, the old users stay.
  conf_.Write("web.yml", "basic_auth_users:\n  prometheus: not-a-hash\n");
  agent->Signal(SIGHUP);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_EQ(StatusOf(before, "/metrics", 200, std::chrono::seconds(10)), 200);

  conf_.Write("web.yml", std::string("basic_auth_users:\n  prometheus: ") + kOther + "\n");
  agent->Signal(SIGHUP);
  httplib::Client after("127.0.0.1", port);
  after.set_basic_auth("prometheus", "other");
  EXPECT_EQ(StatusOf(after, "/metrics", 200, std::chrono::seconds(20)), 200) << Log();
  httplib::Client old("127.0.0.1", port);
  old.set_basic_auth("prometheus", "secret");
  EXPECT_EQ(StatusOf(old, "/metrics", 401, std::chrono::seconds(5)), 401);
  const std::string log = Log();
  EXPECT_NE(log.find("keeping the previous web config: " + web + ": basic_auth_users.prometheus"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("web config reloaded from " + web), std::string::npos) << log;
  // The file holds password hashes and was written 0644: said at start.
  EXPECT_NE(log.find("--web-config: " + web + " (mode 0644) holds secrets"), std::string::npos)
      << log;

  // Emptied by mistake: authentication stays on until a restart.
  conf_.Write("web.yml", "# nothing here yet\n");
  agent->Signal(SIGHUP);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  httplib::Client anonymous("127.0.0.1", port);
  EXPECT_EQ(StatusOf(anonymous, "/metrics", 401, std::chrono::seconds(5)), 401);
  EXPECT_EQ(StatusOf(after, "/metrics", 200, std::chrono::seconds(5)), 200);
  EXPECT_NE(Log().find("now has no basic_auth_users and no tls_server_config"), std::string::npos)
      << Log();
  Stop(*agent);
}

TEST_F(AgentWebConfig, ClientCertificatesAreCheckedAgainstClientCa) {
  if (!std::filesystem::exists("/usr/bin/openssl")) GTEST_SKIP() << "no openssl CLI";
  ASSERT_TRUE(MakeCertificate());
  const std::string dir = conf_.path().string();
  auto openssl = [](std::vector<std::string> args) {
    args.insert(args.begin(), "/usr/bin/openssl");
    return RunProcess(args).exit_code == 0;
  };
  const std::vector<std::string> ec = {"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                       "-nodes"};
  auto req = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "req");
    args.insert(args.begin() + 1, ec.begin(), ec.end());
    return openssl(args);
  };
  ASSERT_TRUE(req({"-x509", "-keyout", dir + "/ca.key", "-out", dir + "/ca.crt", "-days", "2",
                   "-subj", "/CN=test-ca"}));
  ASSERT_TRUE(req(
      {"-keyout", dir + "/client.key", "-out", dir + "/client.csr", "-subj", "/CN=prometheus"}));
  ASSERT_TRUE(
      openssl({"x509", "-req", "-in", dir + "/client.csr", "-CA", dir + "/ca.crt", "-CAkey",
               dir + "/ca.key", "-CAcreateserial", "-out", dir + "/client.crt", "-days", "2"}));
  ASSERT_TRUE(req({"-x509", "-keyout", dir + "/stranger.key", "-out", dir + "/stranger.crt",
                   "-days", "2", "-subj", "/CN=stranger"}));
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string web =
      conf_.Write("web.yml",
                  "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                  "  client_ca_file: ca.crt\n  client_auth_type: RequireAndVerifyClientCert\n");
  const int health_port = FreeLoopbackPort();
  ASSERT_GT(health_port, 0);
  auto agent =
      StartAgent(port, web, {"--health-listen", "127.0.0.1:" + std::to_string(health_port)});
  ASSERT_TRUE(agent->started());
  // The kubelet's probes: HTTPS without verifying the server and without a
  // client certificate, or plain HTTP on the health listener. /healthz
  // needs no credentials, a client certificate included.
  {
    httplib::SSLClient kubelet("127.0.0.1", port);
    kubelet.enable_server_certificate_verification(false);
    kubelet.set_read_timeout(10);
    EXPECT_EQ(StatusOf(kubelet, "/healthz", 200, std::chrono::seconds(30)), 200) << Log();
    EXPECT_EQ(StatusOf(kubelet, "/metrics", 200, std::chrono::seconds(1)), 403) << Log();
    httplib::Client plain("127.0.0.1", health_port);
    plain.set_read_timeout(10);
    EXPECT_EQ(StatusOf(plain, "/healthz", 200, std::chrono::seconds(30)), 200) << Log();
    EXPECT_EQ(StatusOf(plain, "/metrics", 200, std::chrono::seconds(1)), 404)
        << "the health listener serves /healthz alone";
    httplib::Client plain_on_tls("127.0.0.1", port);
    plain_on_tls.set_read_timeout(3);
    EXPECT_NE(StatusOf(plain_on_tls, "/healthz", 200, std::chrono::seconds(1)), 200)
        << "a plain probe of the TLS port: why the manifest probes the health listener";
  }
  auto status = [&](const std::string& cert, const std::string& key) {
    auto c = cert.empty() ? std::make_unique<httplib::SSLClient>("127.0.0.1", port)
                          : std::make_unique<httplib::SSLClient>("127.0.0.1", port, cert, key);
    c->set_ca_cert_path((dir + "/server.crt").c_str());
    c->enable_server_certificate_verification(true);
    c->set_read_timeout(10);
    return StatusOf(*c, "/metrics", 200, std::chrono::seconds(3));
  };
  int with_client = 0;
  for (int i = 0; i < 10 && with_client != 200; ++i) {
    with_client = status(dir + "/client.crt", dir + "/client.key");
  }
  EXPECT_EQ(with_client, 200) << Log();
  EXPECT_NE(status("", ""), 200);
  EXPECT_NE(status(dir + "/stranger.crt", dir + "/stranger.key"), 200);
  Stop(*agent);
}

TEST_F(AgentWebConfig, PrometheusScrapesThroughTlsAndBasicAuth) {
  if (!std::filesystem::exists("/usr/bin/openssl")) GTEST_SKIP() << "no openssl CLI";
  ASSERT_TRUE(MakeCertificate());
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  const std::string web =
      conf_.Write("web.yml", std::string("tls_server_config:\n  cert_file: server.crt\n"
                                         "  key_file: server.key\nbasic_auth_users:\n"
                                         "  prometheus: ") +
                                 kSecret + "\n");
  auto agent = StartAgent(port, web);
  ASSERT_TRUE(agent->started());
  const std::string ca = (conf_.path() / "server.crt").string();
  httplib::SSLClient tls("127.0.0.1", port);
  tls.set_ca_cert_path(ca.c_str());
  tls.enable_server_certificate_verification(true);
  tls.set_read_timeout(10);
  ASSERT_EQ(StatusOf(tls, "/healthz", 200, std::chrono::seconds(30)), 200) << Log();
  auto anonymous = tls.Get("/metrics");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  tls.set_basic_auth("prometheus", "secret");
  EXPECT_EQ(StatusOf(tls, "/metrics", 200, std::chrono::seconds(10)), 200);
  // Plain HTTP to the TLS port gets no metrics.
  httplib::Client plain("127.0.0.1", port);
  plain.set_read_timeout(5);
  plain.set_basic_auth("prometheus", "secret");
  auto cleartext = plain.Get("/metrics");
  EXPECT_TRUE(!cleartext || cleartext->status != 200);

  if (!TestPrometheus::Installed()) {
    Stop(*agent);
    GTEST_SKIP() << "prometheus is not installed (scripts/bootstrap.sh installs it)";
  }
  TestPrometheus prometheus({"127.0.0.1:" + std::to_string(port)}, {},
                            "    scheme: https\n    tls_config:\n      ca_file: " + ca +
                                "\n    basic_auth:\n      username: prometheus\n"
                                "      password: secret\n");
  ASSERT_TRUE(prometheus.started());
  auto answer = prometheus.WaitForResult("gpudoctor_agent_samples_total{job=\"gpudoctor\"}",
                                         std::chrono::seconds(60));
  EXPECT_FALSE(ResultOf(answer).empty()) << answer.dump() << "\n" << Log();
  auto up = prometheus.Query("up{job=\"gpudoctor\"}");
  ASSERT_FALSE(ResultOf(up).empty()) << up.dump();
  EXPECT_EQ(ResultOf(up)[0]["value"][1], "1") << up.dump();
  Stop(*agent);
}

}  // namespace agent_web_config_test
}  // namespace gpudoctor::test
