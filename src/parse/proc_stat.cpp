#include "parse/proc_stat.h"

#include <algorithm>

#include "parse/proc_text.h"

namespace gpudoctor {

std::uint64_t CpuTimes::Total() const {
  return user + nice + system + idle + iowait + irq + softirq + steal;
}

std::uint64_t CpuTimes::Busy() const { return Total() - idle - iowait; }

namespace {

Error Corrupt(std::string_view what) { return Error{ErrorCode::kCorrupt, std::string(what)}; }

bool ParseCpuLine(const std::vector<std::string_view>& fields, CpuTimes& out) {
  if (fields.size() < 5) return false;
  std::uint64_t* slots[] = {&out.user,   &out.nice, &out.system,  &out.idle,
                            &out.iowait, &out.irq,  &out.softirq, &out.steal};
  for (std::size_t i = 1; i < fields.size() && i <= std::size(slots); ++i) {
    auto value = ParseUnsigned(fields[i]);
    if (!value) return false;
    *slots[i - 1] = *value;
  }
  return true;
}

double Share(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::uint64_t Delta(std::uint64_t earlier, std::uint64_t later) {
  return later > earlier ? later - earlier : 0;
}

}  // namespace

Result<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat stat;
  bool have_total = false;
  for (std::string_view line : SplitLines(text)) {
    if (line.substr(0, 3) != "cpu") continue;
    auto fields = SplitWords(line);
    CpuTimes times;
    if (!ParseCpuLine(fields, times))
      return Corrupt("/proc/stat: bad line '" + std::string(line) + "'");
    if (fields[0] == "cpu") {
      stat.total = times;
      have_total = true;
      continue;
    }
    auto id = ParseUnsigned(fields[0].substr(3));
    if (!id) return Corrupt("/proc/stat: bad cpu name '" + std::string(fields[0]) + "'");
    stat.cores.push_back(CoreTimes{static_cast<unsigned>(*id), times});
  }
  if (!have_total) return Corrupt("/proc/stat: no aggregate cpu line");
  return stat;
}

CpuPercent CpuPercentBetween(const CpuTimes& a, const CpuTimes& b) {
  CpuTimes d;
  d.user = Delta(a.user, b.user);
  d.nice = Delta(a.nice, b.nice);
  d.system = Delta(a.system, b.system);
  d.idle = Delta(a.idle, b.idle);
  d.iowait = Delta(a.iowait, b.iowait);
  d.irq = Delta(a.irq, b.irq);
  d.softirq = Delta(a.softirq, b.softirq);
  d.steal = Delta(a.steal, b.steal);
  const std::uint64_t all = d.Total();
  CpuPercent p;
  p.total_percent = Share(d.Busy(), all);
  p.user_percent = Share(d.user + d.nice, all);
  p.system_percent = Share(d.system + d.irq + d.softirq, all);
  p.iowait_percent = Share(d.iowait, all);
  p.steal_percent = Share(d.steal, all);
  p.idle_percent = Share(d.idle, all);
  return p;
}

Result<LoadAvg> ParseLoadAvg(std::string_view text) {
  auto fields = SplitWords(text);
  if (fields.size() < 4) return Corrupt("/proc/loadavg: too few fields");
  LoadAvg out;
  auto l1 = ParseDouble(fields[0]);
  auto l5 = ParseDouble(fields[1]);
  auto l15 = ParseDouble(fields[2]);
  auto slash = fields[3].find('/');
  if (!l1 || !l5 || !l15 || slash == std::string_view::npos) {
    return Corrupt("/proc/loadavg: malformed '" + std::string(Trim(text)) + "'");
  }
  auto runnable = ParseUnsigned(fields[3].substr(0, slash));
  auto threads = ParseUnsigned(fields[3].substr(slash + 1));
  if (!runnable || !threads) return Corrupt("/proc/loadavg: malformed task counts");
  out.load1 = *l1;
  out.load5 = *l5;
  out.load15 = *l15;
  out.runnable = static_cast<unsigned>(*runnable);
  out.threads = static_cast<unsigned>(*threads);
  return out;
}

Result<std::vector<unsigned>> ParseCpuList(std::string_view text) {
  std::vector<unsigned> ids;
  text = Trim(text);
  if (text.empty()) return ids;
  for (std::string_view part : Split(text, ',')) {
    part = Trim(part);
    auto dash = part.find('-');
    auto first = ParseUnsigned(part.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : ParseUnsigned(part.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 65536) {
      return Corrupt("cpu list: bad range '" + std::string(part) + "'");
    }
    for (auto id = *first; id <= *last; ++id) ids.push_back(static_cast<unsigned>(id));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

Result<PidStat> ParsePidStat(std::string_view text) {
  auto open = text.find('(');
  auto close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return Corrupt("pid stat: no (comm)");
  }
  PidStat out;
  auto pid = ParseUnsigned(Trim(text.substr(0, open)));
  if (!pid) return Corrupt("pid stat: bad pid");
  out.pid = static_cast<int>(*pid);
  out.comm = std::string(text.substr(open + 1, close - open - 1));
  // After the comm: field 3 (state) is rest[0], ppid 4, flags 9; utime is field 14, stime 15,
  // starttime 22 (proc(5) numbering).
  auto rest = SplitWords(text.substr(close + 1));
  if (rest.size() < 20 || rest[0].size() != 1) return Corrupt("pid stat: too few fields");
  out.state = rest[0][0];
  auto ppid = ParseUnsigned(rest[1]);
  auto flags = ParseUnsigned(rest[6]);
  if (!ppid || *ppid > 0x7fffffff || !flags) return Corrupt("pid stat: bad ppid or flags");
  out.ppid = static_cast<int>(*ppid);
  out.flags = *flags;
  auto utime = ParseUnsigned(rest[11]);
  auto stime = ParseUnsigned(rest[12]);
  auto start = ParseUnsigned(rest[19]);
  if (!utime || !stime || !start) return Corrupt("pid stat: bad times");
  out.utime_ticks = *utime;
  out.stime_ticks = *stime;
  out.starttime_ticks = *start;
  return out;
}

}  // namespace gpudoctor
