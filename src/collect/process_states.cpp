#include "collect/process_states.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "parse/proc_pid.h"
#include "parse/proc_text.h"

namespace gpudoctor {

namespace {
namespace process_states_impl {

constexpr std::size_t kZombieParents = 3;

bool MadeProgress(const ProcessTicks& before, const ProcessTicks& now) {
  if (now.cpu_ticks != before.cpu_ticks) return true;
  // Without a context-switch count (unreadable status) CPU time alone decides.
  return before.context_switches && now.context_switches &&
         *before.context_switches != *now.context_switches;
}

std::vector<ZombieParent> LargestZombieParents(const std::vector<ProcessTicks>& scan) {
  std::map<int, std::uint64_t> by_parent;
  for (const ProcessTicks& p : scan) {
    if (p.state == 'Z') ++by_parent[p.ppid];
  }
  std::vector<ZombieParent> out;
  for (const auto& [ppid, count] : by_parent) {
    ZombieParent z{ppid, "", count};
    auto it = std::lower_bound(scan.begin(), scan.end(), ppid,
                               [](const ProcessTicks& p, int pid) { return p.pid < pid; });
    if (it != scan.end() && it->pid == ppid) z.comm = it->comm;
    out.push_back(std::move(z));
  }
  std::stable_sort(out.begin(), out.end(), [](const ZombieParent& a, const ZombieParent& b) {
    return a.zombies > b.zombies;
  });
  if (out.size() > kZombieParents) out.resize(kZombieParents);
  return out;
}

}  // namespace process_states_impl
}  // namespace

void StuckProcessTracker::Observe(const std::vector<ProcessTicks>& scan, TimePoint at) {
  ++checks_;
  sources_ = {SourceStatus{"/proc/<pid>/stat", true, ""}};
  std::map<std::pair<int, std::uint64_t>, Blocked> next;
  std::uint64_t zombies = 0;
  for (const ProcessTicks& p : scan) {
    if (p.state == 'Z') ++zombies;
    if (p.state != 'D') continue;
    const auto key = std::make_pair(p.pid, p.starttime_ticks);
    auto before = blocked_.find(key);
    Blocked b{p, 1, at, at};
    if (before != blocked_.end() && !process_states_impl::MadeProgress(before->second.last, p)) {
      b.checks = before->second.checks + 1;
      b.since = before->second.since;
    }
    next.emplace(key, std::move(b));
  }
  blocked_ = std::move(next);
  zombies_ = zombies;
  zombie_parents_ = process_states_impl::LargestZombieParents(scan);
}

void StuckProcessTracker::Failed(const SourceStatus& why) {
  ++checks_;
  blocked_.clear();
  zombies_.reset();
  zombie_parents_.clear();
  sources_ = {why};
}

ProcessStateFacts StuckProcessTracker::Facts(double min_stuck_s) const {
  ProcessStateFacts f;
  f.checks = checks_;
  f.zombies = zombies_;
  f.zombie_parents = zombie_parents_;
  f.sources = sources_;
  for (const auto& [key, b] : blocked_) {
    if (b.checks < kStuckChecks) continue;
    const double stuck_s = std::chrono::duration<double>(b.seen - b.since).count();
    if (stuck_s < min_stuck_s) continue;
    StuckProcess s;
    s.pid = b.last.pid;
    s.comm = b.last.comm;
    s.kernel_thread = b.last.kernel_thread;
    s.checks = b.checks;
    s.stuck_for_s = stuck_s;
    f.stuck.push_back(std::move(s));
  }
  return f;
}

void FillStuckDetails(const CollectContext& ctx, ProcessStateFacts& facts) {
  for (StuckProcess& s : facts.stuck) {
    const std::string dir = "/proc/" + std::to_string(s.pid);
    if (auto text = ReadRootFile(ctx, dir + "/cmdline", std::size_t{64} * 1024); text.ok()) {
      s.cmdline = CmdlineToString(*text);
    }
    if (auto text = ReadRootFile(ctx, dir + "/wchan", 256); text.ok()) {
      std::string_view w = Trim(*text);
      const bool symbol =
          w.size() <= 128 && std::all_of(w.begin(), w.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.';
          });
      if (symbol && w != "0") s.wchan = std::string(w);
    }
  }
}

}  // namespace gpudoctor
