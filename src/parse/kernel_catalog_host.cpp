#include "parse/kernel_catalog_host.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "parse/text_cursor.h"

namespace gpudoctor::kevents {
namespace {
namespace host_lines {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "NAME:PID" (the last colon splits: "kworker/u8:2:123") into the match.
void TaskInto(std::string_view task, LineMatch& m) {
  auto colon = task.rfind(':');
  if (colon == std::string_view::npos) {
    m.process = std::string(task);
    return;
  }
  TextCursor c(task.substr(colon + 1));
  std::uint64_t pid = 0;
  if (c.Uint64(pid) && c.done()) {
    m.pid = static_cast<std::int64_t>(pid);
    m.process = std::string(task.substr(0, colon));
  } else {
    m.process = std::string(task);
  }
}

// The word after `key` up to one of `ends` (or the end of the line).
std::string_view WordAfter(std::string_view s, std::string_view key,
                           std::string_view ends = " ,:") {
  auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view w = s.substr(at + key.size());
  return w.substr(0, w.find_first_of(ends));
}

// "nvme nvme0: ..." -> "nvme0"; "nvme0n1: ..." -> "nvme0n1".
std::string_view NvmeDevice(std::string_view s) {
  if (StartsWith(s, "nvme nvme")) return WordAfter(s, "nvme ", ": ");
  if (StartsWith(s, "nvme")) return s.substr(0, s.find_first_of(": "));
  return {};
}

std::optional<LineMatch> Storage(std::string_view device, std::string_view what) {
  LineMatch m;
  m.detail = device.empty() ? std::string(what) : std::string(device) + ": " + std::string(what);
  return m;
}

std::optional<LineMatch> ReadNvme(std::string_view s) {
  std::string_view dev = NvmeDevice(s);
  if (dev.empty()) return std::nullopt;
  if (Has(s, " timeout, ")) return Storage(dev, "I/O timeout");  // "... QID 4 timeout, aborting"
  if (Has(s, "controller is down")) return Storage(dev, "controller down");
  if (Has(s, "Device not ready") || Has(s, "reset failed") || Has(s, "Reset failed")) {
    return Storage(dev, "reset failed");
  }
  if (Has(s, "Removing after probe failure")) return Storage(dev, "removed");
  if (Has(s, "Disabling device after reset failure")) return Storage(dev, "disabled");
  if (Has(s, "I/O Error") || Has(s, "I/O error")) return Storage(dev, "I/O error");
  return std::nullopt;
}

std::optional<LineMatch> ReadXfs(std::string_view s) {
  std::string_view dev = WordAfter(s, "XFS (", ")");
  if (Has(s, "Shutting down filesystem") || Has(s, "has been shut down") ||
      Has(s, "Filesystem has been shut down")) {
    return Storage(dev, "filesystem shut down");
  }
  if (Has(s, "I/O error") || Has(s, "I/O Error")) return Storage(dev, "I/O error");
  if (Has(s, "orruption")) return Storage(dev, "filesystem error");  // "Corruption", "corruption"
  return std::nullopt;
}

// "EDAC MC0: 1 CE memory read error on LABEL (channel:1 ...)" and the
// same with "EDAC skx MC4:" or "EDAC sbridge MC0:".
std::optional<LineMatch> ReadEdac(std::string_view s) {
  auto mc = s.find(" MC");
  auto colon = s.find(": ", mc == std::string_view::npos ? 0 : mc);
  if (mc == std::string_view::npos || colon == std::string_view::npos) return std::nullopt;
  TextCursor c(s, colon + 2);
  std::uint64_t n = 0;
  if (!c.Uint64(n) || !c.Lit(' ')) return std::nullopt;
  std::string kind;
  if (c.Lit("CE ")) {
    kind = "corrected";
  } else if (c.Lit("UE ")) {
    kind = Has(s, "Fatal") || Has(s, "fatal") ? "fatal" : "uncorrected";
  } else {
    return std::nullopt;
  }
  std::string_view rest = c.rest();
  std::string_view label = "memory";
  if (auto on = rest.find(" on "); on != std::string_view::npos) {
    label = rest.substr(on + 4);
    label = label.substr(0, label.find(" ("));
  }
  LineMatch m;
  m.detail = kind + ": " + std::string(label);
  return m;
}

}  // namespace host_lines
}  // namespace

std::optional<LineMatch> ReadHungTask(std::string_view s, std::string_view) {
  auto end = s.find(" blocked for more than ");
  auto at = s.rfind("task ", end);
  if (end == std::string_view::npos || at == std::string_view::npos) return std::nullopt;
  LineMatch m;
  host_lines::TaskInto(s.substr(at + 5, end - at - 5), m);
  m.detail = "blocked";
  return m;
}

std::optional<LineMatch> ReadCpuStall(std::string_view s, std::string_view) {
  LineMatch m;
  if (Has(s, "soft lockup")) {
    m.detail = "soft lockup";
    auto open = s.rfind('[');
    auto close = s.rfind(']');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      host_lines::TaskInto(s.substr(open + 1, close - open - 1), m);
    }
    return m;
  }
  if (Has(s, "hard LOCKUP")) {
    m.detail = "hard lockup";
    return m;
  }
  if (Has(s, "rcu") && (Has(s, "detected stall") || Has(s, "detected expedited stall"))) {
    m.detail = "RCU stall";
    return m;
  }
  return std::nullopt;
}

std::optional<LineMatch> ReadKernelCrash(std::string_view s, std::string_view) {
  using host_lines::StartsWith;
  LineMatch m;
  if (auto at = s.find("Kernel panic - not syncing: "); at != std::string_view::npos) {
    std::string_view why = s.substr(at + 28);
    while (!why.empty() && (why.back() == ' ' || why.back() == '\r')) why.remove_suffix(1);
    m.detail = "panic: " + std::string(why.substr(0, 120));
    return m;
  }
  if (auto at = s.find("kernel BUG at "); at != std::string_view::npos) {
    std::string_view where = s.substr(at + 14);
    m.detail = "kernel BUG at " + std::string(where.substr(0, where.find_first_of("! ")));
    return m;
  }
  if (Has(s, "general protection fault")) {
    m.detail = "general protection fault";
    return m;
  }
  if (auto at = s.find("BUG: "); at != std::string_view::npos && !Has(s, "soft lockup")) {
    std::string_view what = s.substr(at + 5);
    // "unable to handle kernel NULL pointer dereference at 0000000000000008"
    // (4.x) and "kernel NULL pointer dereference, address: 0000000000000008"
    // (5.x+) are one crash.
    if (Has(what, "NULL pointer dereference")) {
      m.detail = "BUG: NULL pointer dereference";
      return m;
    }
    auto end = what.find_first_of(",:");
    for (std::string_view cut : {" at ", " for ", " in "}) {
      end = std::min(end, what.find(cut));
    }
    what = what.substr(0, end);
    while (!what.empty() && what.back() == ' ') what.remove_suffix(1);
    if (what.empty()) return std::nullopt;
    m.detail = "BUG: " + std::string(what);
    return m;
  }
  if (StartsWith(s, "Oops: ")) {
    m.detail = "oops";
    return m;
  }
  return std::nullopt;
}

bool CrashContinues(std::string_view line, const KernelEvent&) {
  using host_lines::StartsWith;
  return (StartsWith(line, "CPU: ") && Has(line, " Comm: ")) || StartsWith(line, "RIP: ") ||
         StartsWith(line, "Hardware name: ");
}

EventProcess CrashTask(std::string_view line) {
  EventProcess p;
  if (!host_lines::StartsWith(line, "CPU: ")) return p;
  if (auto at = line.find(" PID: "); at != std::string_view::npos) {
    TextCursor c(line, at + 6);
    std::uint64_t pid = 0;
    if (c.Uint64(pid)) p.pid = static_cast<std::int64_t>(pid);
  }
  std::string_view name = host_lines::WordAfter(line, " Comm: ", " ");
  p.name = std::string(name);
  if (p.name.empty()) p.pid.reset();
  return p;
}

std::optional<LineMatch> ReadNvmeController(std::string_view s, std::string_view) {
  if (!host_lines::StartsWith(s, "nvme")) return std::nullopt;
  return host_lines::ReadNvme(s);
}

std::optional<LineMatch> ReadStorage(std::string_view s, std::string_view) {
  using host_lines::Storage;
  using host_lines::WordAfter;
  if (host_lines::StartsWith(s, "nvme")) return host_lines::ReadNvme(s);
  if (Has(s, "I/O error") || Has(s, "medium error, dev") || Has(s, "target error, dev")) {
    // "blk_update_request: I/O error, dev sda, sector 2048 ...", "I/O
    // error, dev nvme0n1, sector ...", "print_req_error: ...",
    // "end_request: ...", "Buffer I/O error on dev sdb1, logical block 0,
    // ..." (older: "on device dm-0"). The block layer's status may also be
    // "critical medium error" or "critical target error".
    std::string_view dev = WordAfter(s, " error, dev ", ", ");
    if (dev.empty()) dev = WordAfter(s, "Buffer I/O error on dev ", ", ");
    if (dev.empty()) dev = WordAfter(s, "Buffer I/O error on device ", ", ");
    if (dev.empty()) return std::nullopt;  // an application's words, or a filesystem's (XFS)
    return Storage(dev, "I/O error");
  }
  return std::nullopt;
}

std::optional<LineMatch> ReadFilesystem(std::string_view s, std::string_view) {
  using host_lines::Storage;
  using host_lines::WordAfter;
  if (Has(s, "XFS (")) return host_lines::ReadXfs(s);
  if (Has(s, "beyond end of device")) {
    LineMatch m;
    m.detail = "beyond end of device";
    return m;
  }
  if (auto at = s.find("Disk failure on "); at != std::string_view::npos) {
    // "md/raid1:md0: Disk failure on sdb1, disabling device."
    std::string_view array = WordAfter(s, "md/", ",");
    if (auto c = array.find(':'); c != std::string_view::npos) array = array.substr(c + 1);
    array = array.substr(0, array.find(':'));
    std::string disk(WordAfter(s, "Disk failure on ", ", "));
    return Storage(array, "disk " + disk + " failed");
  }
  if (Has(s, "Remounting filesystem read-only")) {
    // "EXT4-fs (sda1): Remounting filesystem read-only"
    return Storage(WordAfter(s, "-fs (", ")"), "remounted read-only");
  }
  if (Has(s, "-fs error")) {
    // "EXT4-fs error (device sda1): ext4_find_entry:1455: ..."
    return Storage(WordAfter(s, "-fs error (device ", ")"), "filesystem error");
  }
  return std::nullopt;
}

std::optional<LineMatch> ReadNetworkFs(std::string_view s, std::string_view) {
  using host_lines::WordAfter;
  LineMatch m;
  for (std::string_view who : {"nfs: server ", "lockd: server "}) {
    auto at = s.find(who);
    if (at == std::string_view::npos) continue;
    std::string_view rest = s.substr(at + who.size());
    std::string_view server = rest.substr(0, rest.find(' '));
    std::string_view state = rest.substr(std::min(rest.size(), server.size() + 1));
    std::string what;
    if (host_lines::StartsWith(state, "not responding, timed out")) {
      what = "timed out";
    } else if (host_lines::StartsWith(state, "not responding")) {
      what = "not responding";
    } else if (host_lines::StartsWith(state, "OK")) {
      what = "OK";
    } else {
      return std::nullopt;
    }
    m.detail = "nfs " + std::string(server) + ": " + what;
    return m;
  }
  if (Has(s, "NFS") && Has(s, "reclaim failed")) {
    m.detail = "nfs: lock reclaim failed";
    return m;
  }
  if (Has(s, "Lustre")) {
    // "LustreError: 167-0: fs-OST0000-osc-ffff88: This client was evicted by
    // fs-OST0000; ...", "Lustre: fs-OST0001-osc-ffff88: Connection to
    // fs-OST0001 (at 10.0.0.1@o2ib) was lost; ...", "... Connection
    // restored to fs-OST0001 (at ...)".
    std::string_view target;
    std::string what;
    if (Has(s, "evicted by ")) {
      target = WordAfter(s, "evicted by ", "; ");
      what = "evicted";
    } else if (Has(s, "Connection to ") && Has(s, "was lost")) {
      target = WordAfter(s, "Connection to ", " ");
      what = "connection lost";
    } else if (Has(s, "LustreError") && Has(s, " to node ") && Has(s, " failed")) {
      // "LustreError: 11-0: fs-MDT0000-mdc-ffff88: operation obd_ping to
      // node 172.31.126.88@o2ib failed: rc = -107"
      target = WordAfter(s, " to node ", " ");
      what = "connection lost";
    } else if (Has(s, "Connection restored to ")) {
      target = WordAfter(s, "Connection restored to ", " ");
      what = "connection restored";
    } else {
      return std::nullopt;
    }
    m.detail = "lustre " + std::string(target) + ": " + what;
    return m;
  }
  return std::nullopt;
}

std::optional<LineMatch> ReadMemoryError(std::string_view s, std::string_view) {
  if (Has(s, "EDAC")) return host_lines::ReadEdac(s);
  LineMatch m;
  if (Has(s, "Hardware error from APEI Generic Hardware Error Source")) {
    m.detail = std::string(kGhesReport);
    return m;
  }
  if (auto at = s.find("Uncorrected hardware memory error in "); at != std::string_view::npos) {
    std::string_view where = host_lines::WordAfter(s.substr(at), "error in ", " ");
    m.detail = "uncorrected: memory (in " + std::string(where) + ")";
    return m;
  }
  if (Has(s, "Machine check events logged") ||
      (Has(s, "[Hardware Error]") && Has(s, "Machine Check"))) {
    m.detail = "machine check";
    return m;
  }
  return std::nullopt;
}

bool GhesContinues(std::string_view line, const KernelEvent& open) {
  return open.detail == kGhesReport && Has(line, "[Hardware Error]:") &&
         !Has(line, "Hardware error from APEI");
}

GhesMemoryError ReadGhesReport(const KernelEvent& e) {
  GhesMemoryError out;
  std::string_view fru, location;
  for (const std::string& line : e.continuation) {
    std::string_view l = line;
    if (Has(l, "section_type: memory error")) out.memory = true;
    if (auto at = l.find("event severity: "); at != std::string_view::npos) {
      out.severity = std::string(host_lines::WordAfter(l, "event severity: ", " "));
    }
    if (auto at = l.find("DIMM location: "); at != std::string_view::npos) {
      location = l.substr(at + 15);
    }
    if (auto at = l.find("fru_text: "); at != std::string_view::npos) fru = l.substr(at + 10);
  }
  if (location.substr(0, 11) == "not present") location = {};
  out.dimm = std::string(!location.empty() ? location : fru);
  return out;
}

std::optional<LineMatch> ReadHostLimit(std::string_view s, std::string_view) {
  LineMatch m;
  if (Has(s, "file-max limit") && Has(s, "reached")) {
    m.detail = "file-max";
    return m;
  }
  if (Has(s, "nf_conntrack") && Has(s, "table full")) {
    m.detail = "conntrack table full";
    return m;
  }
  if (auto at = s.find("fork rejected by pids controller in "); at != std::string_view::npos) {
    std::string_view group = s.substr(at + 36);
    m.detail = "pids limit: " + std::string(group.substr(0, group.find(' ')));
    return m;
  }
  return std::nullopt;
}

}  // namespace gpudoctor::kevents
