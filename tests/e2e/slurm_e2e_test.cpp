// End-to-end: a real single-node Slurm (Debian's slurmctld, slurmd and munge)
// on loopback runs the shipped deploy/slurm/gpudoctor-healthcheck.sh as its
// HealthCheckProgram while a gpudoctor agent watches the fake NVML. A lost
// GPU drains the node at the first health check that sees it, with the lost
// GPU in the reason; an operator's drain reason is never replaced; a healthy
// node stays IDLE.
//
// Everything lives in a private temporary directory (slurm.conf, state,
// spool, logs, the munge key and socket) with ports free on 127.0.0.1 a
// moment before, so a Slurm already running on the machine is not touched:
// its slurm.conf, munge socket and ports are never used. Every daemon is
// started in the foreground as the test's child and killed when the test
// ends, passing or failing. Needs root (slurmd runs the health check as
// root) and the packages slurmctld, slurmd and munge (scripts/bootstrap.sh
// installs them); skipped otherwise, except under CI=true, where it fails.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "support/loopback.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace slurm_e2e_detail {

namespace fs = std::filesystem;

// A TCP port on 127.0.0.1, free now, from 20000-31999 (below the ephemeral
// range), other than `not_this`; 0 when none was found.
int FreePortBelowEphemeral(int not_this) {
  static std::mt19937 rng(static_cast<unsigned>(::getpid()) ^
                          static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  for (int attempt = 0; attempt < 500; ++attempt) {
    const int port = 20000 + static_cast<int>(rng() % 12000);
    if (port == not_this) continue;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool free = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (free) return port;
  }
  return 0;
}
using std::chrono::milliseconds;
using std::chrono::seconds;

// How often slurmd runs the health check, the longest any one wait lasts,
// and the longest all of them together last: under ctest's 120 s, so the
// test ends (and stops its daemons) before ctest would kill it.
constexpr int kHealthCheckIntervalS = 3;
constexpr seconds kSlurmWaitLimit{45};
constexpr seconds kSlurmTestLimit{100};

const std::string kHealthCheckScript =
    std::string(TEST_DATA_DIR) + "/../../deploy/slurm/gpudoctor-healthcheck.sh";

std::string SlurmScenario(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/scenarios/" + name;
}

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Polls `done` every 200 ms until it holds or `until` passes.
bool WaitUntil(const std::function<bool()>& done, std::chrono::steady_clock::time_point until) {
  while (!done()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(milliseconds(200));
  }
  return true;
}

long long NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// A daemon started in the foreground, stopped with SIGTERM, a short wait,
// then BackgroundProcess's SIGKILL. It runs under `setpriv --pdeathsig
// SIGKILL`, so it is killed even when the test process is (a ctest time out).
std::vector<std::string> KilledWithTheTest(std::vector<std::string> argv) {
  argv.insert(argv.begin(), {"/usr/bin/setpriv", "--pdeathsig", "SIGKILL", "--"});
  return argv;
}

struct Daemon {
  Daemon(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
         const std::string& log)
      : process(KilledWithTheTest(argv), env, log) {}
  ~Daemon() {
    process.Signal(SIGTERM);
    process.Wait(milliseconds(5000));
  }
  BackgroundProcess process;
};

class SlurmE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    const bool ci = std::getenv("CI") != nullptr && std::string(std::getenv("CI")) == "true";
    deadline_ = std::chrono::steady_clock::now() + kSlurmTestLimit;
    for (const char* program : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged",
                                "/usr/bin/scontrol", "/usr/bin/setpriv"}) {
      if (!fs::exists(program)) {
        if (ci) FAIL() << program << " is missing; scripts/bootstrap.sh installs it";
        GTEST_SKIP() << program << " is missing (apt-get install slurmctld slurmd munge)";
      }
    }
    if (::geteuid() != 0) {
      if (ci) FAIL() << "needs root: slurmd runs its health check as root";
      GTEST_SKIP() << "needs root: slurmd runs its health check as root";
    }
    // munged wants every directory above its socket searchable by all and
    // its key readable only by its owner.
    fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_exec |
                                     fs::perms::group_read | fs::perms::others_exec |
                                     fs::perms::others_read);
    for (const char* sub : {"munge", "run", "state", "spool", "log", "data", "root"}) {
      fs::create_directories(dir_.path() / sub);
    }
    fs::permissions(dir_.path() / "munge", fs::perms::owner_all);
    fs::permissions(dir_.path() / "run", fs::perms::owner_all | fs::perms::group_exec |
                                             fs::perms::others_exec | fs::perms::group_read |
                                             fs::perms::others_read);
    std::string key(1024, '\0');
    std::ifstream("/dev/urandom", std::ios::binary).read(key.data(), 1024);
    dir_.Write("munge/munge.key", key);
    fs::permissions(dir_.path() / "munge/munge.key", fs::perms::owner_read);

    root_ = dir_.path() / "root";
    dir_.Write("root/proc/sys/kernel/hostname", "gpu-node-7\n");
    dir_.Write("root/proc/sys/kernel/random/boot_id", "6b1d0a0e-0000-4000-8000-000000000003\n");
    dir_.Write("root/var/log/kern.log", "");
  }

  fs::path P(const std::string& rel) const { return dir_.path() / rel; }

  // Waits for `done` at most `limit`, and never past the test's deadline.
  bool Wait(const std::function<bool()>& done, seconds limit = kSlurmWaitLimit) const {
    return WaitUntil(done, std::min(std::chrono::steady_clock::now() + limit, deadline_));
  }

  // slurm.conf, the environment file and the HealthCheckProgram: a wrapper
  // that gives the shipped script what slurmd does not (slurmd runs it with
  // only SLURMD_NODENAME set, and scontrol needs our SLURM_CONF), notes
  // each run's start, end and exit code, and passes its output on to slurmd.
  void WriteConfig() {
    // Below the kernel's ephemeral range (32768 up): a port the kernel
    // handed out there, closed for slurmd to take, was taken meanwhile as
    // the source port of another test's outgoing connection.
    const int ctld = FreePortBelowEphemeral(0);
    const int slurmd = FreePortBelowEphemeral(ctld);
    ASSERT_NE(ctld, 0);
    ASSERT_NE(slurmd, 0);
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string short_host = host;
    short_host = short_host.substr(0, short_host.find('.'));
    const std::string d = dir_.path().string();
    dir_.Write("slurm.conf",
               "ClusterName=gdtest\n"
               "SlurmctldHost=" +
                   short_host +
                   "(127.0.0.1)\n"
                   "SlurmctldPort=" +
                   std::to_string(ctld) +
                   "\n"
                   "SlurmdPort=" +
                   std::to_string(slurmd) +
                   "\n"
                   "SlurmUser=root\nSlurmdUser=root\n"
                   "AuthType=auth/munge\nCredType=cred/munge\n"
                   "AuthInfo=socket=" +
                   d +
                   "/run/munge.socket\n"
                   "StateSaveLocation=" +
                   d +
                   "/state\n"
                   "SlurmdSpoolDir=" +
                   d +
                   "/spool\n"
                   "SlurmctldPidFile=" +
                   d +
                   "/run/slurmctld.pid\n"
                   "SlurmdPidFile=" +
                   d +
                   "/run/slurmd.pid\n"
                   "SlurmctldLogFile=" +
                   d +
                   "/log/slurmctld.log\n"
                   "SlurmdLogFile=" +
                   d +
                   "/log/slurmd.log\n"
                   "MailProg=/bin/true\n"
                   "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                   "JobAcctGatherType=jobacct_gather/none\n"
                   "AccountingStorageType=accounting_storage/none\n"
                   "SwitchType=switch/none\nMpiDefault=none\n"
                   "SchedulerType=sched/builtin\nSelectType=select/linear\n"
                   "ReturnToService=2\n"
                   "HealthCheckProgram=" +
                   d +
                   "/healthcheck\n"
                   "HealthCheckInterval=" +
                   std::to_string(kHealthCheckIntervalS) +
                   "\n"
                   "HealthCheckNodeState=ANY\n"
                   "NodeName=gdnode NodeHostname=" +
                   short_host +
                   " NodeAddr=127.0.0.1 CPUs=1 RealMemory=1 State=UNKNOWN\n"
                   "PartitionName=gd Nodes=gdnode Default=YES MaxTime=INFINITE State=UP\n");
    // As /etc/default/gpudoctor: check reads the agent's state in our data
    // directory; no NVML, so the agent's state is the only source.
    dir_.Write("default-gpudoctor", "# gpudoctor\nGPUDOCTOR_CHECK_ARGS=\"--data-dir " + d +
                                        "/data --root " + root_.string() + "\"\n");
    dir_.Write("healthcheck",
               "#!/bin/bash\n"
               "export SLURM_CONF=" +
                   d +
                   "/slurm.conf\n"
                   "export GPUDOCTOR=" GPUDOCTOR_BINARY
                   "\n"
                   "export GPUDOCTOR_ENV_FILE=" +
                   d +
                   "/default-gpudoctor\n"
                   "export GPUDOCTOR_NVML_LIBRARY=" +
                   d +
                   "/no-such-libnvidia-ml.so.1\n"
                   "start=$(date +%s%N)\n"
                   "/bin/bash " +
                   kHealthCheckScript + " > >(tee -a " + d + "/log/hc.out) 2> >(tee -a " + d +
                   "/log/hc.err >&2)\n"
                   "rc=$?\n"
                   "echo \"$start $(date +%s%N) $rc\" >> " +
                   d +
                   "/log/hc.runs\n"
                   "exit $rc\n");
    fs::permissions(P("healthcheck"), fs::perms::owner_all);
  }

  std::map<std::string, std::string> SlurmEnv() const {
    return {{"SLURM_CONF", P("slurm.conf").string()}};
  }

  void StartSlurm() {
    munged_ = std::make_unique<Daemon>(
        std::vector<std::string>{
            "/usr/sbin/munged", "-F", "--key-file=" + P("munge/munge.key").string(),
            "--socket=" + P("run/munge.socket").string(),
            "--pid-file=" + P("run/munged.pid").string(), "--seed-file=" + P("munge/seed").string(),
            "--log-file=" + P("log/munged.log").string()},
        std::map<std::string, std::string>{}, P("log/munged.out").string());
    ASSERT_TRUE(Wait([&] { return fs::exists(P("run/munge.socket")); }, seconds{20}))
        << ReadWhole(P("log/munged.out"));
    ctld_ = std::make_unique<Daemon>(
        std::vector<std::string>{"/usr/sbin/slurmctld", "-D", "-c", "-f", P("slurm.conf").string()},
        SlurmEnv(), P("log/slurmctld.out").string());
    slurmd_ =
        std::make_unique<Daemon>(std::vector<std::string>{"/usr/sbin/slurmd", "-D", "-f",
                                                          P("slurm.conf").string(), "-N", "gdnode"},
                                 SlurmEnv(), P("log/slurmd.out").string());
  }

  // `scontrol show node gdnode` (empty when scontrol fails).
  std::string ShowNode() const {
    ProcessOptions o;
    o.env = SlurmEnv();
    o.timeout = milliseconds(20000);
    auto r = RunProcess({"/usr/bin/scontrol", "show", "node", "gdnode"}, o);
    return r.exit_code == 0 ? r.out : "";
  }

  static std::string Field(const std::string& shown, const std::string& name) {
    auto at = shown.find(" " + name + "=");
    if (at == std::string::npos) at = shown.find("\n" + name + "=");
    if (at == std::string::npos) return "";
    at += name.size() + 2;
    // Reason= runs to the end of its line; the other fields end at a space.
    const auto end = name == "Reason" ? shown.find('\n', at) : shown.find_first_of(" \n", at);
    return shown.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }

  bool Scontrol(const std::vector<std::string>& args) const {
    ProcessOptions o;
    o.env = SlurmEnv();
    o.timeout = milliseconds(20000);
    std::vector<std::string> argv = {"/usr/bin/scontrol"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunProcess(argv, o);
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    return r.exit_code == 0;
  }

  struct HealthCheckRun {
    long long start_ns = 0;
    long long end_ns = 0;
    int exit_code = -1;
  };
  std::vector<HealthCheckRun> Runs() const {
    std::vector<HealthCheckRun> runs;
    std::istringstream in(ReadWhole(P("log/hc.runs")));
    HealthCheckRun run;
    while (in >> run.start_ns >> run.end_ns >> run.exit_code) runs.push_back(run);
    return runs;
  }
  // Waits for `count` health checks that started after `after_ns` to end;
  // returns them.
  std::vector<HealthCheckRun> RunsAfter(long long after_ns, std::size_t count) const {
    std::vector<HealthCheckRun> later;
    Wait([&] {
      later.clear();
      for (const auto& run : Runs()) {
        if (run.start_ns > after_ns) later.push_back(run);
      }
      return later.size() >= count;
    });
    return later;
  }

  // Starts an agent on `scenario` (replacing the one before) and waits until
  // its state file is written by it.
  void StartAgent(const std::string& scenario) {
    agent_.reset();
    fs::remove(P("data/agent-state.json"));
    agent_ = std::make_unique<BackgroundProcess>(
        KilledWithTheTest(
            GpudoctorArgv({"agent", "--data-dir", P("data").string(), "--root", root_.string(),
                           "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                           "--no-listen", "--no-kernel-log"})),
        FakeNvmlEnv(SlurmScenario(scenario)), P("log/agent.log").string());
    ASSERT_TRUE(agent_->started());
    ASSERT_TRUE(Wait([&] { return fs::exists(P("data/agent-state.json")); }))
        << ReadWhole(P("log/agent.log"));
  }

  // Whether the script's output (passed on by tee, which may lag its end
  // a moment) has `text`.
  bool HealthCheckSaid(const std::string& text) const {
    return Wait([&] { return ReadWhole(P("log/hc.out")).find(text) != std::string::npos; },
                seconds{10});
  }

  std::string Logs() const {
    std::string all;
    for (const char* log : {"log/hc.out", "log/hc.err", "log/slurmd.log", "log/slurmctld.out",
                            "log/slurmd.out", "log/agent.log"}) {
      std::string text = ReadWhole(P(log));
      if (text.size() > 3000) text = "..." + text.substr(text.size() - 3000);
      all += std::string("--- ") + log + "\n" + text;
    }
    return all;
  }

  TempDir dir_;  // declared first: removed after every daemon has stopped
  fs::path root_;
  std::chrono::steady_clock::time_point deadline_;
  std::unique_ptr<BackgroundProcess> agent_;
  std::unique_ptr<Daemon> munged_;
  std::unique_ptr<Daemon> ctld_;
  std::unique_ptr<Daemon> slurmd_;
};

TEST_F(SlurmE2E, HealthCheckDrainsOnALostGpuAndLeavesAnOperatorsReason) {
  WriteConfig();
  if (HasFatalFailure()) return;
  // A healthy node first: the agent is running before slurmd's first check.
  StartAgent("healthy_idle.json");
  ASSERT_FALSE(HasFatalFailure());
  StartSlurm();
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_TRUE(Wait([&] { return Field(ShowNode(), "State") == "IDLE"; })) << ShowNode() << Logs();
  const auto healthy_runs = RunsAfter(NowNs(), 2);
  ASSERT_EQ(healthy_runs.size(), 2u) << Logs();
  for (const auto& run : healthy_runs) EXPECT_EQ(run.exit_code, 0) << Logs();
  EXPECT_EQ(Field(ShowNode(), "State"), "IDLE") << ShowNode() << Logs();

  // GPU 2 is lost 3 s into this scenario. The first health check that
  // starts after the agent recorded it drains the node, naming the GPU.
  StartAgent("agent_trouble.json");
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_TRUE(Wait([&] {
    return ReadWhole(P("data/agent-state.json")).find("\"gpu.lost\"") != std::string::npos;
  })) << Logs();
  const auto lost_runs = RunsAfter(NowNs(), 1);
  ASSERT_EQ(lost_runs.size(), 1u) << Logs();
  EXPECT_EQ(lost_runs[0].exit_code, 1) << Logs();
  std::string shown = ShowNode();
  EXPECT_NE(Field(shown, "State").find("DRAIN"), std::string::npos) << shown << Logs();
  const std::string reason = Field(shown, "Reason");
  // One reason for the one cause, whatever else GPU 0 and 1 go through:
  // "GPU 2 lost 0000:1a:00.0, reboot_node [gpudoctor] [root@2026-12-02T10:40:31]".
  EXPECT_EQ(reason.rfind("GPU 2 lost 0000:1a:00.0, reboot_node [gpudoctor] [root@", 0), 0u)
      << shown << Logs();
  EXPECT_TRUE(HealthCheckSaid("draining node gdnode: GPU 2 lost 0000:1a:00.0")) << Logs();

  // An operator's reason on the drained node stays as it is through later
  // checks that still find the lost GPU.
  ASSERT_TRUE(Scontrol(
      {"update", "nodename=gdnode", "state=drain", "reason=RMA ticket 1234, do not resume"}));
  const auto operator_runs = RunsAfter(NowNs(), 2);
  ASSERT_EQ(operator_runs.size(), 2u) << Logs();
  for (const auto& run : operator_runs) EXPECT_EQ(run.exit_code, 1) << Logs();
  shown = ShowNode();
  EXPECT_NE(Field(shown, "State").find("DRAIN"), std::string::npos) << shown;
  EXPECT_EQ(Field(shown, "Reason").rfind("RMA ticket 1234, do not resume [root@", 0), 0u)
      << shown << Logs();
  EXPECT_TRUE(HealthCheckSaid("(\"RMA ticket 1234, do not resume\"); leaving it alone")) << Logs();
}

}  // namespace slurm_e2e_detail
}  // namespace gpudoctor::test
