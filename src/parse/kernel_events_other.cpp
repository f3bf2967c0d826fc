// Lines not from NVRM: NVSwitch SXid, NCCL watchdog timeouts and libnccl
// crashes, PCIe bandwidth limits and AER errors, OOM kills, nvidia probe
// failures, and fabric manager errors (journal and fabricmanager.log).
#include "parse/kernel_events_match.h"
#include "parse/text_cursor.h"

namespace gpudoctor::kevents {
namespace {

// "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 ..."
std::optional<LineMatch> MatchSxid(std::string_view s) {
  auto at = s.find("SXid (");
  if (at == std::string_view::npos) return std::nullopt;
  auto close = s.find("): ", at);
  if (close == std::string_view::npos) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kSxid;
  m.pci = NormalizeKernelPci(s.substr(at + 6, close - at - 6));
  TextCursor c(s, close + 3);
  int code = 0;
  if (!c.Int(code, 1, 6)) return std::nullopt;
  m.code = code;
  if (c.Lit(", Fatal")) m.detail = "fatal";
  if (c.Lit(", Non-fatal") || c.Lit(", Non-Fatal")) m.detail = "non-fatal";
  return m;
}

std::string_view Field(std::string_view s, std::string_view key, std::string_view stops) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + key.size());
  return v.substr(0, v.find_first_of(stops));
}

// PyTorch ProcessGroupNCCL, old and new formats.
std::optional<LineMatch> MatchNcclTimeout(std::string_view s) {
  if (!Has(s, "Watchdog caught collective operation timeout")) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kNcclTimeout;
  std::string d;
  auto add = [&d](std::string_view part) {
    if (part.empty()) return;
    if (!d.empty()) d += ", ";
    d += part;
  };
  if (auto rank = Field(s, "[Rank ", "]"); !rank.empty()) add("rank " + std::string(rank));
  add(Field(s, "OpType=", ",)"));
  if (auto seq = Field(s, "SeqNum=", ",)"); !seq.empty()) add("SeqNum=" + std::string(seq));
  if (auto t = Field(s, "Timeout(ms)=", ",)"); !t.empty()) add("timeout " + std::string(t) + " ms");
  if (auto ran = Field(s, "ran for ", " "); !ran.empty()) add("ran " + std::string(ran) + " ms");
  m.detail = d;
  return m;
}

// "name[pid]: ..." or "traps: name[pid] ..." at the start of a message.
void ProcessAndPid(std::string_view s, LineMatch& m) {
  if (s.substr(0, 7) == "traps: ") s.remove_prefix(7);
  auto open = s.find('[');
  auto close = s.find(']');
  if (open == std::string_view::npos || close < open || s.find(' ') < open) return;
  TextCursor c(s.substr(open + 1, close - open - 1));
  std::uint64_t pid = 0;
  if (!c.Uint64(pid) || !c.done()) return;
  m.process = std::string(s.substr(0, open));
  m.pid = static_cast<std::int64_t>(pid);
}

std::optional<LineMatch> MatchNcclCrash(std::string_view s) {
  auto lib = s.find("libnccl");
  if (lib == std::string_view::npos ||
      !(Has(s, "segfault") || Has(s, "general protection") || Has(s, "trap"))) {
    return std::nullopt;
  }
  LineMatch m;
  m.kind = KernelEventKind::kNcclSegfault;
  ProcessAndPid(s, m);
  std::string_view name = s.substr(lib);
  m.detail = std::string(name.substr(0, name.find_first_of("[ ")));
  return m;
}

std::optional<LineMatch> MatchOom(std::string_view s) {
  LineMatch m;
  m.kind = KernelEventKind::kOomKill;
  if (auto at = s.find("Killed process "); at != std::string_view::npos) {
    TextCursor c(s, at + 15);
    std::uint64_t pid = 0;
    if (c.Uint64(pid)) m.pid = static_cast<std::int64_t>(pid);
    if (c.Lit(" (")) m.process = std::string(c.rest().substr(0, c.rest().find(')')));
    m.detail = Has(s, "cgroup") ? "killed (cgroup limit)" : "killed";
    return m;
  }
  if (auto at = s.find(" invoked oom-killer"); at != std::string_view::npos) {
    m.process = std::string(s.substr(0, at));
    m.detail = "invoked";
    return m;
  }
  return std::nullopt;
}

std::optional<LineMatch> MatchPcieLimited(std::string_view s) {
  auto at = s.find("available PCIe bandwidth, limited by ");
  if (at == std::string_view::npos) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kPcieBandwidthLimited;
  m.pci = NormalizeKernelPci(FindPci(s.substr(0, at)));
  m.detail = std::string(s.substr(at + 37));
  return m;
}

std::string AerSeverity(std::string_view s) {
  if (Has(s, "Uncorrected (Fatal)") || Has(s, "Uncorrectable (Fatal)") ||
      Has(s, "severity=Fatal")) {
    return "uncorrected fatal";
  }
  if (Has(s, "Uncorrected (Non-Fatal)") || Has(s, "Uncorrectable (Non-Fatal)")) {
    return "uncorrected non-fatal";
  }
  if (Has(s, "Corrected") || Has(s, "Correctable")) return "corrected";
  return {};
}

// Where the AER source device follows in a head line: "error received: "
// (kernels up to 6.x) or "error message received from " (later kernels).
std::size_t AerSourceAt(std::string_view s) {
  for (std::string_view key : {std::string_view("error received: "),
                               std::string_view("error message received from ")}) {
    if (auto at = s.find(key); at != std::string_view::npos) return at + key.size();
  }
  return std::string_view::npos;
}

// "pcieport 0000:00:03.1: AER: Corrected error received: 0000:01:00.0" or
// "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, ...".
std::optional<LineMatch> MatchAerHead(std::string_view s) {
  auto source = AerSourceAt(s);
  bool bus_error = Has(s, "PCIe Bus Error");
  if (source == std::string_view::npos && !bus_error) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kPcieAer;
  std::string_view target = source != std::string_view::npos ? s.substr(source) : s;
  m.pci = NormalizeKernelPci(FindPci(target));
  m.detail = AerSeverity(s);
  m.nvidia = IsNvidiaAerLine(s);
  return m;
}

// The recovery that follows an uncorrected error (drivers/pci/pcie/err.c,
// aer.c): "nvidia 0000:03:00.0: AER: can't recover (no error_detected
// callback)", "pcieport 0000:00:03.0: AER: device recovery failed",
// "pcieport 0000:00:03.0: AER: Root Port link has been reset (0)". The
// device is the one the line's prefix names.
std::optional<LineMatch> MatchAerRecovery(std::string_view s) {
  std::string detail;
  if (Has(s, "can't recover (no error_detected callback)")) {
    detail = std::string(kAerCantRecover);
  } else if (Has(s, "evice recovery failed")) {  // "device" (5.x+), "Device" (4.x)
    detail = std::string(kAerRecoveryFailed);
  } else if (Has(s, "link has been reset")) {
    detail = std::string(kAerLinkReset);
  } else {
    return std::nullopt;
  }
  LineMatch m;
  m.kind = KernelEventKind::kPcieAer;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::move(detail);
  m.nvidia = IsNvidiaAerLine(s);
  return m;
}

std::optional<LineMatch> MatchProbe(std::string_view s) {
  if (s.substr(0, 6) != "nvidia" || !Has(s, "probe") || !Has(s, "failed with error")) {
    return std::nullopt;
  }
  LineMatch m;
  m.kind = KernelEventKind::kProbeFailed;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::string(s.substr(s.find("failed with ") + 12));
  return m;
}

std::string FabricManagerDetail(std::string_view s) {
  if (Has(s, "NV_WARN_NOTHING_TO_DO")) return "nothing to do (no NVSwitch)";
  if (Has(s, "system topology")) return "topology mismatch";
  if ((Has(s, "don't match") || Has(s, "doesn't match")) && Has(s, "driver version")) {
    return "version mismatch";
  }
  if (Has(s, "failed! Exit code")) return "exited";
  if ((Has(s, "status=") && Has(s, "FAILURE")) || Has(s, "Failed with result") ||
      Has(s, "Failed to start")) {
    return "service failed";
  }
  if (Has(s, "error") || Has(s, "Error") || Has(s, "ERROR") || Has(s, "failed")) return "error";
  return {};
}

std::optional<LineMatch> MatchFabricManager(std::string_view s, std::string_view ident) {
  LineMatch m;
  m.kind = KernelEventKind::kFabricManagerError;
  if (s.substr(0, 13) == "[ERROR] [tid ") {  // fabricmanager.log
    if (auto at = s.find("detected NVSwitch "); at != std::string_view::npos) {
      TextCursor c(s, at + 18);
      m.detail = c.Lit("fatal") ? "fatal" : (c.Lit("non-fatal") ? "non-fatal" : "error");
      c.Lit(" error ");
      int code = 0;
      if (c.Int(code, 1, 6)) m.code = code;
      m.pci = NormalizeKernelPci(FindPci(s.substr(at)));
    } else {
      // "failed to find the GPU handle ... in the multicast team", "failed to
      // release multicast team ...": NVLink multicast (NVLS) set-up, while
      // the service runs.
      m.detail = Has(s, "multicast") ? "multicast" : "error";
    }
    return m;
  }
  // Fabric Manager's own words name it where no ident does (`journalctl -u
  // nvidia-fabricmanager -o cat`, a pasted excerpt).
  if (!(Has(ident, "fabricmanager") || Has(s, "fabricmanager") || Has(s, "fabric manager") ||
        Has(s, "from NVSwitch driver failed"))) {
    return std::nullopt;
  }
  m.detail = FabricManagerDetail(s);
  if (m.detail.empty()) return std::nullopt;
  if (Has(ident, "fabricmanager")) {
    ProcessAndPid(std::string(ident) + ":", m);
  } else if (s.find("fabricmanager") < s.find(' ')) {  // "nv-fabricmanager[12]: ..."
    ProcessAndPid(s, m);
  }
  return m;
}

// mlx5_core (ConnectX) lines that mean the NIC is in trouble. The texts are
// the driver's (drivers/net/ethernet/mellanox/mlx5/core: cmd.c, health.c,
// events.c) as NVIDIA NVSentinel's and leptonai/gpud's kernel-log matchers
// quote them: "mlx5_core 0000:1a:00.0: wait_func:1130:(pid 12): CREATE_QP(0x500)
// timeout. Will cause a leak of a command resource", "... cmd_exec timeout",
// "... health poll failed", "device's health compromised - reached miss
// count", "... unrecoverable ...", "mlx5_pcie_event:299:(pid 0): Detected
// insufficient power on the PCIe slot (27W).", "mlx5_port_module_event:...:
// Port module event[error]: module 0, Cable error, High Temperature".
std::optional<LineMatch> MatchMlx5(std::string_view s) {
  if (!Has(s, "mlx5_core")) return std::nullopt;
  std::string detail;
  if (Has(s, "insufficient power on the PCIe slot")) {
    detail = std::string(kMlx5InsufficientPower);
  } else if (Has(s, "Port module event") && (Has(s, "High Temperature") || Has(s, "high temperature"))) {
    detail = std::string(kMlx5ModuleHighTemperature);
  } else if (Has(s, "unrecoverable")) {
    detail = std::string(kMlx5Unrecoverable);
  } else if (Has(s, "health poll failed") || Has(s, "health compromised")) {
    detail = std::string(kMlx5HealthPoll);
  } else if (Has(s, "cmd_exec timeout") || Has(s, "timeout. Will cause a leak of a command")) {
    detail = std::string(kMlx5CommandTimeout);
  } else {
    return std::nullopt;
  }
  LineMatch m;
  m.kind = KernelEventKind::kMlx5;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::move(detail);
  return m;
}

}  // namespace

bool IsNvidiaAerLine(std::string_view s) { return s.substr(0, 7) == "nvidia " || Has(s, "[10de:"); }

bool IsSurpriseDownLine(std::string_view s) {
  return Has(s, "] SDES") || Has(s, "Surprise Down");
}

// "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid
// context, skipping further processing" (GPUDirect RDMA's module); the
// detail is the function that printed it.
std::optional<LineMatch> MatchPeermem(std::string_view s) {
  auto at = s.find("nvidia-peermem");
  if (at == std::string_view::npos || !(Has(s, "ERROR") || Has(s, "error"))) return std::nullopt;
  LineMatch m;
  m.kind = KernelEventKind::kPeermemError;
  std::string_view rest = TrimLeft(s.substr(at + 14));
  if (!rest.empty() && rest.front() == ':') rest = TrimLeft(rest.substr(1));
  std::string_view function = rest.substr(0, rest.find_first_of(" :"));
  if (!function.empty() && function.find("ERROR") == std::string_view::npos)
    m.detail = std::string(function);
  return m;
}

std::optional<LineMatch> MatchOther(std::string_view message, std::string_view ident) {
  if (auto m = MatchSxid(message)) return m;
  if (auto m = MatchPeermem(message)) return m;
  if (auto m = MatchNcclTimeout(message)) return m;
  if (auto m = MatchNcclCrash(message)) return m;
  if (auto m = MatchOom(message)) return m;
  if (auto m = MatchPcieLimited(message)) return m;
  if (auto m = MatchAerHead(message)) return m;
  if (auto m = MatchAerRecovery(message)) return m;
  if (auto m = MatchProbe(message)) return m;
  if (auto m = MatchMlx5(message)) return m;
  return MatchFabricManager(message, ident);
}

bool IsOtherFollowUp(std::string_view message, const KernelEvent& open) {
  switch (open.kind) {
    case KernelEventKind::kSxid: {
      auto m = MatchSxid(message);
      return m && m->pci == open.pci_bus_id && m->code == open.code && m->detail.empty();
    }
    case KernelEventKind::kNcclTimeout:
      return !Has(message, "Watchdog caught") && (Has(message, "NCCL") || Has(message, "atchdog"));
    case KernelEventKind::kPcieAer: {
      // The bus-error line, its "device [10de:2204] error status/mask=..." line
      // and the status bits ("[ 5] SDES (First)"), or "AER:   TLP Header: ...".
      bool detail_line = Has(message, "status/mask") || IsSurpriseDownLine(message);
      if (!Has(message, "AER") && !Has(message, "PCIe Bus Error") && !detail_line) return false;
      if (AerSourceAt(message) != std::string_view::npos || MatchAerRecovery(message)) return false;
      if (open.detail == kAerCantRecover || open.detail == kAerRecoveryFailed ||
          open.detail == kAerLinkReset) {
        return false;  // a recovery line is one event of its own
      }
      auto pci = NormalizeKernelPci(FindPci(message));
      return pci.empty() || pci == open.pci_bus_id;
    }
    default:
      return false;
  }
}

}  // namespace gpudoctor::kevents
