// End-to-end: processes stuck in D state and zombies, through `diagnose`.
// Over a captured /proc tree (--root): an NVIDIA tool and a training process
// in D state at all five checks, 1,001 zombies of one launcher. Live: a real
// process held in D state by the kernel (blocked in clone with CLONE_VFORK
// until its child exits) is found with its pid and wait channel, and a
// healthy host with a real process table gives neither finding.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "support/fake_host.h"
#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace {
namespace host_processes_e2e_local {

using nlohmann::json;

std::string Scenario() { return std::string(TEST_DATA_DIR) + "/scenarios/healthy_idle.json"; }

std::string Stat(int pid, const std::string& comm, char state, int ppid) {
  return std::to_string(pid) + " (" + comm + ") " + state + " " + std::to_string(ppid) +
         " 100 100 0 -1 4194560 500 0 0 0 700 300 0 0 20 0 1 0 31853465 2678784 88 "
         "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
}

void Process(const TempDir& root, int pid, const std::string& comm, char state, int ppid,
             const std::string& wchan = "0") {
  const std::string dir = "proc/" + std::to_string(pid) + "/";
  root.Write(dir + "stat", Stat(pid, comm, state, ppid));
  root.Write(dir + "status", "Name:\t" + comm +
                                 "\nvoluntary_ctxt_switches:\t41\n"
                                 "nonvoluntary_ctxt_switches:\t3\n");
  root.Write(dir + "wchan", wchan);
  root.Write(dir + "cmdline", comm + std::string(1, '\0'));
}

const json* FindingOf(const json& doc, const std::string& id) {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

TEST(HostProcessesE2E, ACapturedTreeWithStuckProcessesAndZombies) {
  TempDir root;
  WriteQuietHost(root, {"0000:18:00.0", "0000:19:00.0"});
  Process(root, 1, "systemd", 'S', 0, "ep_poll");
  Process(root, 4321, "nvidia-smi", 'D', 1);
  Process(root, 4400, "python3", 'D', 1, "rpc_wait_bit_killable");
  Process(root, 500, "launcher", 'S', 1, "do_wait");
  for (int i = 0; i < 1001; ++i) Process(root, 10000 + i, "worker", 'Z', 500);
  auto r = RunGpudoctor({"diagnose", "--root", root.path().string(), "--duration", "1s", "--format",
                         "json", "--lang", "en"},
                        Scenario());
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;  // critical
  json doc = json::parse(r.out);
  const json* stuck = FindingOf(doc, "host.stuck_processes");
  ASSERT_NE(stuck, nullptr) << r.out;
  EXPECT_EQ((*stuck)["severity"], "critical");
  const std::string title = (*stuck)["title"];
  EXPECT_NE(title.find("nvidia-smi (4321)"), std::string::npos) << title;
  EXPECT_NE(title.find("python3 (4400)"), std::string::npos) << title;
  EXPECT_NE(stuck->dump().find("rpc_wait_bit_killable"), std::string::npos);
  const json* zombies = FindingOf(doc, "host.zombies");
  ASSERT_NE(zombies, nullptr) << r.out;
  EXPECT_NE((*zombies)["title"].get<std::string>().find("1001 zombie processes: `launcher` "
                                                        "(pid 500) holds 1001"),
            std::string::npos)
      << (*zombies)["title"];
}

TEST(HostProcessesE2E, TheAgentFindsItAndTheReportTimelineShowsIt) {
  TempDir root, data;
  const auto now = static_cast<long long>(std::time(nullptr));
  root.Write("proc/stat",
             "cpu  1000 0 1000 80000 0 0 0 0 0 0\nbtime " + std::to_string(now - 1000) + "\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n");
  Process(root, 4321, "nvidia-smi", 'D', 1);
  // The agent checks the process table every --evaluate-every here (15 s
  // by default): five checks take 2 s.
  auto r =
      RunGpudoctor({"agent", "--data-dir", data.path().string(), "--root", root.path().string(),
                    "--interval", "200ms", "--window", "2s", "--evaluate-every", "400ms",
                    "--facts-every", "1h", "--no-listen", "--run-for", "8s"},
                   Scenario());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("finding started: host.stuck_processes"), std::string::npos) << r.err;
  auto rep = RunGpudoctor({"report", "--data-dir", data.path().string(), "--since", "10m",
                           "--format", "json", "--lang", "en"},
                          "");
  json doc = json::parse(rep.out);
  bool on_timeline = false;
  for (const auto& t : doc["timeline"]) {
    if (t["type"] == "finding" && t["id"] == "host.stuck_processes") {
      on_timeline = true;
      EXPECT_EQ(t["severity"], "critical");
      EXPECT_NE(t["title"].get<std::string>().find("nvidia-smi (4321)"), std::string::npos);
    }
  }
  EXPECT_TRUE(on_timeline) << doc["timeline"].dump(2);
}

// The child of this holder sits in clone(CLONE_VFORK) until its own child
// exits: the kernel shows it in D state, with no context switch, for as long
// as that lasts.
int HeldChild(void*) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (;;) ::pause();
}

pid_t StartBlockedProcess() {
  pid_t holder = ::fork();
  if (holder == 0) {
    ::setpgid(0, 0);
    static char stack[64 * 1024];
    ::clone(HeldChild, stack + sizeof(stack), CLONE_VFORK | SIGCHLD, nullptr);
    ::_exit(0);
  }
  return holder;
}

char StateOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

TEST(HostProcessesE2E, ALiveProcessHeldInDStateIsFoundWithItsPid) {
  pid_t holder = StartBlockedProcess();
  ASSERT_GT(holder, 0);
  // Both processes go whatever the assertions below decide.
  struct Stop {
    pid_t pid;
    ~Stop() {
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
  } stop{holder};
  for (int i = 0; i < 500 && StateOf(holder) != 'D'; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(StateOf(holder), 'D') << "the kernel did not show the vfork parent in D state";
  auto r = RunGpudoctor({"diagnose", "--duration", "2s", "--format", "json", "--lang", "en"},
                        Scenario());
  json doc = json::parse(r.out);
  const json* stuck = FindingOf(doc, "host.stuck_processes");
  ASSERT_NE(stuck, nullptr) << r.out << r.err;
  EXPECT_NE((*stuck)["title"].get<std::string>().find("(" + std::to_string(holder) + ")"),
            std::string::npos)
      << (*stuck)["title"];
  const json* zombies = FindingOf(doc, "host.zombies");
  EXPECT_EQ(zombies, nullptr);
}

TEST(HostProcessesE2E, AHealthyLiveHostHasNoStuckProcess) {
  // Busy but healthy: a writer that flushes to disk the whole time.
  TempDir dir;
  pid_t writer = ::fork();
  if (writer == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    std::string block(1 << 20, 'x');
    for (int i = 0; i < 100000; ++i) {
      std::ofstream out(dir.path() / "busy", std::ios::trunc);
      out << block;
      out.flush();
      int fd = ::open((dir.path() / "busy").c_str(), O_RDONLY);
      ::fsync(fd);
      ::close(fd);
    }
    ::_exit(0);
  }
  auto r = RunGpudoctor({"diagnose", "--duration", "2s", "--format", "json", "--lang", "en"},
                        Scenario());
  ::kill(writer, SIGKILL);
  int status = 0;
  ::waitpid(writer, &status, 0);
  json doc = json::parse(r.out);
  // Other tests may hold a process in D state meanwhile: only the writer matters.
  const json* stuck = FindingOf(doc, "host.stuck_processes");
  if (stuck) {
    EXPECT_EQ(stuck->dump().find("(" + std::to_string(writer) + ")"), std::string::npos)
        << stuck->dump(2);
  }
  bool checked = true;
  for (const auto& n : doc["not_checked"]) {
    if (n.value("rule", "") == "host.stuck_processes") checked = false;
  }
  EXPECT_TRUE(checked) << doc["not_checked"].dump(2);
}

}  // namespace host_processes_e2e_local
}  // namespace
}  // namespace gpudoctor::test
