// The catalog's rows (kernel_catalog.h), and the functions that read the
// fields of the messages whose fields are not fixed. To add a message: a
// row in kNvrmMessages or kOtherMessages (with a function above when its
// fields must be read from the line), its example line, and the words of
// its lines in `needles` unless it is an NVRM row.
#include "parse/kernel_catalog.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

#include "parse/kernel_catalog_host.h"
#include "parse/kernel_prefilter.h"
#include "parse/text_cursor.h"

namespace gpudoctor::kevents {
namespace {

// A row that reads its fields: the event's fields, nullopt when the line is
// not this message. The row's kind is set on the result.
using ReadFn = std::optional<LineMatch> (*)(std::string_view text, std::string_view ident);
// For an event of the row's kind that is open, whether the next line (of
// the same source: NVRM text after "NVRM:" and leading blanks, or the
// message) continues it.
using ContinuesFn = bool (*)(std::string_view line, const KernelEvent& open);

enum class Bus {
  kNone,  // the event names no bus id
  kLine,  // the first PCI address of the line
};

// A row reads a line that holds one of `any` (begins with it, with
// `at_start`): the event has `detail` and the bus id `bus` says, or what
// `read` makes of the line (nullopt: the line is no event, and no later row
// is tried). A row without `any` leaves it all to `read` (nullopt: the next
// row is tried).
struct Message {
  std::string_view name{};
  KernelEventKind kind = KernelEventKind::kXid;
  std::array<std::string_view, 2> any{};
  bool at_start = false;
  Bus bus = Bus::kNone;
  std::string_view detail{};
  ReadFn read = nullptr;
  // Words every line of the message holds, and every line that continues
  // it, for the prefilter (NVRM rows: "NVRM" is enough).
  std::array<std::string_view, 5> needles{};
  // Which lines continue an open event of this kind (at most one row of a
  // kind and source says).
  ContinuesFn continues = nullptr;
  std::string_view example{};  // a line the row reads (the tests check it does)
};

// Whether the line holds one of the row's `any`.
bool Holds(const Message& row, std::string_view s) {
  for (std::string_view text : row.any) {
    if (text.empty()) continue;
    if (row.at_start ? s.substr(0, text.size()) == text : Has(s, text)) return true;
  }
  return false;
}

// The event of the first of `rows` that reads the line; the row's index
// into `row_index`.
template <std::size_t N>
std::optional<LineMatch> ReadRows(const Message (&rows)[N], std::string_view s,
                                  std::string_view ident, std::size_t* row_index = nullptr,
                                  std::uint64_t row_mask = ~std::uint64_t{0}) {
  for (std::size_t i = 0; i < N; ++i) {
    if (i < 64 && (row_mask >> i & 1) == 0) continue;
    const Message& row = rows[i];
    std::optional<LineMatch> m;
    if (row.any[0].empty()) {
      if (!(m = row.read(s, ident))) continue;
    } else {
      if (!Holds(row, s)) continue;
      if (row.read) {
        m = row.read(s, ident);
      } else {
        m.emplace();
        if (row.bus == Bus::kLine) m->pci = NormalizeKernelPci(FindPci(s));
        m->detail = std::string(row.detail);
      }
    }
    if (row_index) *row_index = i;
    if (m) m->kind = row.kind;
    return m;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// NVRM lines (the NVIDIA kernel driver): Xid, fallen off the bus,
// RmInitAdapter, GSP timeouts and heartbeats, driver load, GPU UUID, probe
// failures, NVLink set-up. `s` is the text after "NVRM:", leading blanks
// and a leading "GPUn " removed.

// "Expected function 103 (GSP_RM_ALLOC) (0x2081 0x4)." -> "103 (GSP_RM_ALLOC)";
// later drivers put "sequence 5" before the data.
std::string RpcFunction(std::string_view s) {
  auto at = s.find("Expected function ");
  if (at == std::string_view::npos) return {};
  std::string_view f = s.substr(at + 18);
  auto end = std::min(f.find(" (0x"), f.find(" sequence "));
  if (end == std::string_view::npos) end = f.find_first_of(".!");
  return std::string(f.substr(0, end));
}

// Xid 154: "... changed from 0x0 (None) to 0x2 (Node Reboot Required)". The
// value decides, not the text (610-series drivers print other words).
constexpr int kXidRecoveryAction = 154;
std::string RecoveryAction(std::string_view s) {
  static constexpr std::string_view kNames[] = {
      "None",      "GPU Reset Required", "Node Reboot Required",
      "Drain P2P", "Drain and Reset",    "Recover IMEX Domain"};
  auto at = s.find(" to 0x");
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + 6);
  unsigned value = 0;
  std::size_t n = 0;
  while (n < v.size() && IsHex(v[n]) && n < 8) {
    char ch = static_cast<char>(std::tolower(static_cast<unsigned char>(v[n++])));
    value = value * 16 + static_cast<unsigned>(ch <= '9' ? ch - '0' : ch - 'a' + 10);
  }
  if (n > 0 && value < std::size(kNames)) return std::string(kNames[value]);
  auto open = v.find('('), close = v.find(')');
  if (open != std::string_view::npos && close > open) {
    return std::string(v.substr(open + 1, close - open - 1));
  }
  return std::string(v.substr(0, n));
}

// "Xid (PCI:0000:a1:00 GPU-I:01): 79, pid='<unknown>', name=<unknown>, msg":
// the MIG suffix is the detail (Xid 154: the recovery action), the text
// after pid and name the message.
std::optional<LineMatch> ReadXid(std::string_view s, std::string_view) {
  TextCursor c(s);
  if (!c.Lit("Xid (")) return std::nullopt;
  auto close = c.rest().find("): ");
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view inside = c.rest().substr(0, close);
  c.set_pos(c.pos() + close + 3);
  int code = 0;
  if (!c.Int(code, 1, 6)) return std::nullopt;
  LineMatch m;
  m.code = code;
  if (inside.substr(0, 4) == "PCI:") inside.remove_prefix(4);
  auto space = inside.find(' ');
  m.pci = NormalizeKernelPci(inside.substr(0, space));
  if (space != std::string_view::npos) m.detail = std::string(TrimLeft(inside.substr(space)));
  c.Lit(',');
  c.SkipSpaces();
  if (c.Lit("pid=")) {
    std::string_view pid;
    auto comma = c.rest().find(',');
    pid = c.rest().substr(0, comma);
    std::uint64_t v = 0;
    TextCursor pc(pid);
    if (pc.Uint64(v) && pc.done()) m.pid = static_cast<std::int64_t>(v);
    c.set_pos(c.pos() + (comma == std::string_view::npos ? pid.size() : comma + 1));
    c.SkipSpaces();
  }
  if (c.Lit("name=")) {
    auto comma = c.rest().find(", ");
    std::string_view name = c.rest().substr(0, comma);
    if (name != "<unknown>") m.process = std::string(name);
    c.set_pos(c.pos() + (comma == std::string_view::npos ? name.size() : comma + 2));
  }
  m.message = c.rest();
  if (code == kXidRecoveryAction) m.detail = RecoveryAction(m.message);
  return m;
}

// After an Xid: "PMU has halted", and the device line that follows an Xid
// 79 line (not another Xid 79 line of the same GPU, which says "fallen off
// the bus" too: that is a repeat).
bool XidContinues(std::string_view s, const KernelEvent& open) {
  if (Has(s, "PMU has halted")) return true;
  if (open.code == 79 && s.substr(0, 4) != "Xid " && Has(s, "fallen off the bus")) {
    return NormalizeKernelPci(FindPci(s)) == open.pci_bus_id;
  }
  return false;
}

// "The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330)": the first line of the
// three-line probe message (ProbeMessageEvent).
std::optional<LineMatch> ReadProbeHead(std::string_view s, std::string_view) {
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.probe_head = true;
  return m;
}

// "The NVIDIA probe routine failed for 1 device(s)." -> "1 device(s)".
std::optional<LineMatch> ReadProbeRoutine(std::string_view s, std::string_view) {
  auto n = s.find(" for ");
  LineMatch m;
  m.detail = std::string(n == std::string_view::npos ? s : s.substr(n + 5));
  while (!m.detail.empty() && m.detail.back() == '.') m.detail.pop_back();
  return m;
}

// "GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:742)": the codes.
std::optional<LineMatch> ReadRmInitAdapter(std::string_view s, std::string_view) {
  auto at = s.find("RmInitAdapter failed!");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view codes = TrimLeft(s.substr(at + 21));
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s.substr(0, at)));
  m.detail = std::string(codes.substr(0, codes.find(' ')));
  return m;
}

// "GPU 0000:3b:00.0: rm_init_adapter failed, device minor number 0": the
// line after "RmInitAdapter failed!" for the same GPU says it again.
bool RmInitContinues(std::string_view s, const KernelEvent& open) {
  return Has(s, "rm_init_adapter failed") && NormalizeKernelPci(FindPci(s)) == open.pci_bus_id;
}

// "Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected
// function 76 (GSP_RM_CONTROL) ...": the RPC function.
std::optional<LineMatch> ReadRpcTimeout(std::string_view s, std::string_view) {
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = RpcFunction(s);
  return m;
}

bool HeartbeatContinues(std::string_view s, const KernelEvent&) { return Has(s, "eartbeat"); }

// "loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb ..." -> the version.
std::optional<LineMatch> ReadDriverLoaded(std::string_view s, std::string_view) {
  LineMatch m;
  auto at = s.find("Module");
  if (at == std::string_view::npos) return m;
  TextCursor c(s, at);
  std::string_view tok;
  while (c.SkipSpaces(), c.Token(tok)) {
    if (TextCursor::IsDigit(tok.front()) && Has(tok, ".")) {
      m.detail = std::string(tok);
      break;
    }
  }
  return m;
}

// "GPU at PCI:0000:a1:00: GPU-979426f2-..." (and without "PCI:"): the UUID.
// A "GPU at " line without one is no event.
std::optional<LineMatch> ReadGpuAt(std::string_view s, std::string_view) {
  auto uuid = s.find(": GPU-");
  if (uuid == std::string_view::npos) return std::nullopt;
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s.substr(0, uuid + 1)));
  std::string_view u = s.substr(uuid + 2);
  m.detail = std::string(u.substr(0, u.find(' ')));
  return m;
}

// "nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446",
// "nvCheckFailedNoLog: Check failed: pKernelChannel != NULL @ kernel_gsp.c:640":
// the driver's check on its GSP channel failed -> "assertion at kernel_gsp.c:1446".
std::optional<LineMatch> ReadGspAssertion(std::string_view s, std::string_view) {
  if (!Has(s, "Assertion failed") && !Has(s, "Check failed")) return std::nullopt;
  auto at = s.find("@ kernel_gsp.c:");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view where = s.substr(at + 2);
  std::size_t end = 13;  // past "kernel_gsp.c:"
  while (end < where.size() && TextCursor::IsDigit(where[end])) ++end;
  LineMatch m;
  m.detail = "assertion at " + std::string(where.substr(0, end));
  return m;
}

// "_issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn
// 76!", "rpcRecvPoll timedout for fn 76 sequence 4129!", "rpcRmApiFree_GSP:
// GspRmFree failed: hClient=...; status=0x0000000f" (and GspRmAlloc,
// GspRmControl): "<what> failed, fn <n>, status <s>" as far as printed.
std::optional<LineMatch> ReadRpcFailed(std::string_view s, std::string_view) {
  static constexpr std::string_view kCalls[] = {"rpcSendMessage failed", "rpcRecvPoll timedout",
                                                "GspRmAlloc failed", "GspRmFree failed",
                                                "GspRmControl failed"};
  std::string_view call;
  for (std::string_view c : kCalls) {
    if (Has(s, c)) {
      call = c;
      break;
    }
  }
  if (call.empty()) return std::nullopt;
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = "RPC failed: " + std::string(call.substr(0, call.find(' ')));
  if (auto fn = s.find("for fn "); fn != std::string_view::npos) {
    std::string_view n = s.substr(fn + 7);
    std::size_t digits = 0;
    while (digits < n.size() && digits < 5 && TextCursor::IsDigit(n[digits])) ++digits;
    if (digits > 0) m.detail += ", fn " + std::string(n.substr(0, digits));
  }
  std::string_view status;
  if (auto at = s.find("status "); at != std::string_view::npos) status = s.substr(at + 7);
  if (auto at = s.find("status="); at != std::string_view::npos) status = s.substr(at + 7);
  status = status.substr(0, status.find_first_of(" ;!,"));
  if (status.substr(0, 2) == "0x" && status.size() > 2)
    m.detail += ", status " + std::string(status);
  return m;
}

// After the GSP Timeout banner: the note that follows the function name
// NV_PRINTF puts first.
bool GspTimeoutContinues(std::string_view s, const KernelEvent& open) {
  return open.detail == "GSP Timeout" && Has(s, "Note: Please also check logs above");
}

constexpr Message kNvrmMessages[] = {
    {.name = "Xid",
     .kind = KernelEventKind::kXid,
     .read = ReadXid,
     .continues = XidContinues,
     .example = "NVRM: Xid (PCI:0000:3b:00): 13, pid=1234, name=python3, Graphics Exception: "
                "ESR 0x504648=0x1"},
    {.name = "GPU fallen off the bus",
     .kind = KernelEventKind::kFallenOffBus,
     .any = {"fallen off the bus"},
     .bus = Bus::kLine,
     .example = "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."},
    {.name = "probe message (three lines)",
     .kind = KernelEventKind::kProbeFailed,
     .any = {"The NVIDIA GPU "},
     .at_start = true,
     .read = ReadProbeHead,
     .example = "NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:2330)"},
    {.name = "probe routine failed",
     .kind = KernelEventKind::kProbeFailed,
     .any = {"The NVIDIA probe routine"},
     .at_start = true,
     .read = ReadProbeRoutine,
     .example = "NVRM: The NVIDIA probe routine failed for 1 device(s)."},
    {.name = "RmInitAdapter failed",
     .kind = KernelEventKind::kRmInitFailed,
     .read = ReadRmInitAdapter,
     .continues = RmInitContinues,
     .example = "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:742)"},
    // The line after it (and the only one of some open-module drivers).
    {.name = "rm_init_adapter failed",
     .kind = KernelEventKind::kRmInitFailed,
     .any = {"rm_init_adapter failed"},
     .bus = Bus::kLine,
     .example = "NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0"},
    {.name = "GSP firmware failed to start",
     .kind = KernelEventKind::kRmInitFailed,
     .any = {"Cannot initialize GSP firmware RM"},
     .bus = Bus::kLine,
     .detail = "GSP firmware init",
     .example = "NVRM: GPU 0000:3b:00.0: RmInitAdapter: Cannot initialize GSP firmware RM"},
    {.name = "GSP RPC timeout",
     .kind = KernelEventKind::kGspTimeout,
     .any = {"waiting for RPC"},
     .read = ReadRpcTimeout,
     .example = "NVRM: _kgspRpcRecvPoll: Timeout after 45s of waiting for RPC response from GPU1 "
                "GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)."},
    {.name = "GSP RPC error prints rate-limited",
     .kind = KernelEventKind::kGspTimeout,
     .any = {"Rate limiting GSP RPC error print"},
     .at_start = true,
     .bus = Bus::kLine,
     .detail = "rate limited",
     .example = "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:0000:3b:00 (printing 1 "
                "of every 30).  The GPU likely needs to be reset."},
    {.name = "GSP heartbeat timeout",
     .kind = KernelEventKind::kGspHeartbeat,
     .any = {"eartbeat timed out"},
     .continues = HeartbeatContinues,
     .example = "NVRM: GPU1 _kgspIsHeartbeatTimedOut: Heartbeat timed out, diff 10000000"},
    {.name = "driver loaded",
     .kind = KernelEventKind::kDriverLoaded,
     .any = {"loading NVIDIA UNIX"},
     .at_start = true,
     .read = ReadDriverLoaded,
     .example = "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.07  Sat Feb 17 "
                "22:55:48 UTC 2024"},
    {.name = "GPU UUID",
     .kind = KernelEventKind::kGpuUuid,
     .any = {"GPU at "},
     .at_start = true,
     .read = ReadGpuAt,
     .example = "NVRM: GPU at PCI:0000:3b:00: GPU-509665ad-b600-ac93-3616-d754b23d636d"},
    // The driver could not set up NVLink with its peers after link training
    // (kernel_nvlink_gh100.c and later).
    {.name = "NVLink Rx detect failed",
     .kind = KernelEventKind::kNvlinkRxDetect,
     .any = {"Failed to update Rx Detect Link mask", "postRxDetLinkMask failed"},
     .example = "NVRM: knvlinkDiscoverPostRxDetLinks_GH100: Getting peer0's postRxDetLinkMask "
                "failed!"},
    // The driver's own status codes where a call failed: the GPU must be
    // reset (NV_ERR_RESET_REQUIRED, NV_ERR_GPU_IN_FULLCHIP_RESET, as
    // "... [NV_ERR_X] (0x..) returned from ..."), or it is gone
    // (NV_ERR_GPU_IS_LOST). Not the checks that merely name a code
    // ("(status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c").
    {.name = "reset required (driver status)",
     .kind = KernelEventKind::kRecoveryAction,
     .any = {"[NV_ERR_RESET_REQUIRED]", "[NV_ERR_GPU_IN_FULLCHIP_RESET]"},
     .bus = Bus::kLine,
     .detail = "GPU Reset Required",
     .example = "NVRM: GPU0 nvCheckOkFailedNoLog: Check failed: Reset required "
                "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from "
                "_gpushareddataSendDataPollRpc(pGpu, polle>"},
    {.name = "GPU lost (driver status)",
     .kind = KernelEventKind::kFallenOffBus,
     .any = {"[NV_ERR_GPU_IS_LOST]"},
     .bus = Bus::kLine,
     .detail = "NV_ERR_GPU_IS_LOST",
     .example = "NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus "
                "[NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ kernel_ce_gv100.c:106"},
    // A call to the GSP firmware that failed outright (not a timeout with
    // its banner): the send itself, the poll for the answer, or the
    // allocation, control or free the RPC carried.
    {.name = "GSP RPC failed",
     .kind = KernelEventKind::kGspTimeout,
     .read = ReadRpcFailed,
     .example = "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 76!"},
    // GSP trouble printed without an Xid (kernel_gsp.c, kern_gmmu.c).
    {.name = "GSP assertion failed",
     .kind = KernelEventKind::kGspTimeout,
     .read = ReadGspAssertion,
     .example = "NVRM: nvAssertFailedNoLog: Assertion failed: 0 @ kernel_gsp.c:1446"},
    {.name = "GSP Timeout banner",
     .kind = KernelEventKind::kGspTimeout,
     .any = {"* GSP Timeout *"},
     .detail = "GSP Timeout",
     .continues = GspTimeoutContinues,
     .example = "NVRM: _kgspRpcRecvPoll: ********** GSP Timeout **********"},
    {.name = "memory subsystem error",
     .kind = KernelEventKind::kGspTimeout,
     .any = {"Memory Subsystem Error detected"},
     .detail = "memory subsystem error",
     .example = "NVRM: kgmmuServiceFaultBuffer: Memory Subsystem Error detected!"},
    {.name = "PMU halted",
     .kind = KernelEventKind::kGspTimeout,
     .any = {"PMU has halted"},
     .detail = "PMU halted",
     .example = "NVRM: GPU0 _kgspRpcGspEventPmuHalted: PMU has halted"},
};

// ---------------------------------------------------------------------------
// Lines not from NVRM: NVSwitch SXid, NCCL watchdog timeouts and libnccl
// crashes, PCIe bandwidth limits and AER errors, OOM kills, nvidia probe
// failures, ConnectX NIC trouble, GPUDirect RDMA errors, and fabric manager
// errors (journal and fabricmanager.log). `s` is the line's message.

// "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 ..."
std::optional<LineMatch> ReadSxid(std::string_view s, std::string_view) {
  auto at = s.find("SXid (");
  if (at == std::string_view::npos) return std::nullopt;
  auto close = s.find("): ", at);
  if (close == std::string_view::npos) return std::nullopt;
  LineMatch m;
  m.pci = NormalizeKernelPci(s.substr(at + 6, close - at - 6));
  TextCursor c(s, close + 3);
  int code = 0;
  if (!c.Int(code, 1, 6)) return std::nullopt;
  m.code = code;
  if (c.Lit(", Fatal")) m.detail = "fatal";
  if (c.Lit(", Non-fatal") || c.Lit(", Non-Fatal")) m.detail = "non-fatal";
  return m;
}

// An SXid's detail lines: SXid lines of the same switch and code that carry
// no severity.
bool SxidContinues(std::string_view s, const KernelEvent& open) {
  auto m = ReadSxid(s, {});
  return m && m->pci == open.pci_bus_id && m->code == open.code && m->detail.empty();
}

// "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid
// context, skipping further processing" (GPUDirect RDMA's module); the
// detail is the function that printed it.
std::optional<LineMatch> ReadPeermem(std::string_view s, std::string_view) {
  auto at = s.find("nvidia-peermem");
  if (at == std::string_view::npos || !(Has(s, "ERROR") || Has(s, "error"))) return std::nullopt;
  LineMatch m;
  std::string_view rest = TrimLeft(s.substr(at + 14));
  if (!rest.empty() && rest.front() == ':') rest = TrimLeft(rest.substr(1));
  std::string_view function = rest.substr(0, rest.find_first_of(" :"));
  if (!function.empty() && function.find("ERROR") == std::string_view::npos)
    m.detail = std::string(function);
  return m;
}

std::string_view Field(std::string_view s, std::string_view key, std::string_view stops) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view v = s.substr(at + key.size());
  return v.substr(0, v.find_first_of(stops));
}

// PyTorch ProcessGroupNCCL, old and new formats: rank, operation, sequence
// number, timeout and run time.
std::optional<LineMatch> ReadNcclTimeout(std::string_view s, std::string_view) {
  if (!Has(s, "Watchdog caught collective operation timeout")) return std::nullopt;
  LineMatch m;
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

bool NcclContinues(std::string_view s, const KernelEvent&) {
  return !Has(s, "Watchdog caught") && (Has(s, "NCCL") || Has(s, "atchdog"));
}

// What an InfiniBand work completion status means (enum ibv_wc_status of
// libibverbs), for the ones NCCL users meet.
std::string_view WcStatusMeaning(int status) {
  switch (status) {
    case 1:
      return "local length error";
    case 2:
      return "local QP operation error";
    case 4:
      return "local protection error";
    case 5:
      return "work request flushed";
    case 9:
      return "remote invalid request";
    case 10:
      return "remote access error";
    case 11:
      return "remote operation error";
    case 12:
      return "transport retry counter exceeded";
    case 13:
      return "RNR retry counter exceeded";
    default:
      return {};
  }
}

// The number after `key` in `s` ("status=12", "error 12,"); nullopt when none.
std::optional<int> NumberAfter(std::string_view s, std::string_view key) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  TextCursor c(s, at + key.size());
  int v = 0;
  if (!c.Int(v, 1, 6)) return std::nullopt;
  return v;
}

// A peer as NCCL prints it: "172.36.143.59<44206>", "gpu004.example.com<55693>".
std::string_view PeerAfter(std::string_view s, std::string_view key) {
  auto at = s.find(key);
  if (at == std::string_view::npos) return {};
  std::string_view v = TrimLeft(s.substr(at + key.size()));
  v = v.substr(0, v.find_first_of(" ,"));
  return v.find('<') == std::string_view::npos ? std::string_view{} : v;
}

// NCCL's network failures (transport/net_ib, misc/ibvwrap, misc/socket), in
// the forms of NCCL 2.0 to 2.27: the detail names what failed and, where
// the line has them, the completion status and its meaning, the vendor
// error, the peer, the device and the GIDs.
std::optional<LineMatch> ReadNcclNetwork(std::string_view s, std::string_view) {
  if (!Has(s, "NCCL") && !Has(s, " WARN ")) return std::nullopt;
  std::string d;
  auto add = [&d](std::string_view part) {
    if (part.empty()) return;
    if (!d.empty()) d += ", ";
    d += part;
  };
  if (Has(s, "Got completion")) {
    std::optional<int> status = NumberAfter(s, "status=");
    if (!status) status = NumberAfter(s, "with error ");
    if (status) {
      std::string_view meaning = WcStatusMeaning(*status);
      add("completion error " + std::to_string(*status) +
          (meaning.empty() ? "" : " (" + std::string(meaning) + ")"));
    } else {
      add("completion error");
    }
    if (auto vendor = NumberAfter(s, "vendor err ")) add("vendor err " + std::to_string(*vendor));
    if (auto peer = PeerAfter(s, "from peer "); !peer.empty()) add("peer " + std::string(peer));
    if (auto gid = Field(s, "localGid ", " "); !gid.empty()) add("local GID " + std::string(gid));
    if (auto gid = Field(s, "remoteGids", " "); !gid.empty()) add("remote GID " + std::string(gid));
  } else if (auto at = s.find("ibv_");
             at != std::string_view::npos && (Has(s, "failed") || Has(s, "error"))) {
    std::string_view call = s.substr(at);
    add(std::string(call.substr(0, call.find_first_of(" :("))) + " failed");
    if (auto why = Field(s, "failed with ", ","); !why.empty()) {
      if (why.substr(0, 6) == "error ") why.remove_prefix(6);
      add(why);
    }
    if (auto dev = Field(s, "on dev ", ", "); !dev.empty()) add("device " + std::string(dev));
  } else if (Has(s, "closed by remote peer")) {
    add("connection closed by remote peer");
    if (auto peer = PeerAfter(s, "remote peer"); !peer.empty()) add("peer " + std::string(peer));
  } else if (Has(s, "Connection refused") && Has(s, "connect")) {
    add(Has(s, "retrying") ? "connection refused, retrying" : "connection refused");
  } else {
    return std::nullopt;
  }
  LineMatch m;
  m.detail = std::move(d);
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

// "python3[1234]: segfault at 0 ip ... in libnccl.so.2.18.3[...]": the library.
std::optional<LineMatch> ReadNcclCrash(std::string_view s, std::string_view) {
  auto lib = s.find("libnccl");
  if (lib == std::string_view::npos ||
      !(Has(s, "segfault") || Has(s, "general protection") || Has(s, "trap"))) {
    return std::nullopt;
  }
  LineMatch m;
  ProcessAndPid(s, m);
  std::string_view name = s.substr(lib);
  m.detail = std::string(name.substr(0, name.find_first_of("[ ")));
  return m;
}

// "Out of memory: Killed process 1234 (python3) ..." (the victim) and "X
// invoked oom-killer: ..." (the line before it; the rules pair the two).
std::optional<LineMatch> ReadOom(std::string_view s, std::string_view) {
  LineMatch m;
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

// "pci 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0
// GT/s PCIe x8 link at 0000:3a:00.0 (...)": what limits it.
std::optional<LineMatch> ReadPcieLimited(std::string_view s, std::string_view) {
  auto at = s.find("available PCIe bandwidth, limited by ");
  if (at == std::string_view::npos) return std::nullopt;
  LineMatch m;
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
  for (std::string_view key :
       {std::string_view("error received: "), std::string_view("error message received from ")}) {
    if (auto at = s.find(key); at != std::string_view::npos) return at + key.size();
  }
  return std::string_view::npos;
}

// "pcieport 0000:00:03.1: AER: Corrected error received: 0000:01:00.0" or
// "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, ...".
std::optional<LineMatch> ReadAerHead(std::string_view s, std::string_view) {
  auto source = AerSourceAt(s);
  bool bus_error = Has(s, "PCIe Bus Error");
  if (source == std::string_view::npos && !bus_error) return std::nullopt;
  LineMatch m;
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
std::optional<LineMatch> ReadAerRecovery(std::string_view s, std::string_view) {
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
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::move(detail);
  m.nvidia = IsNvidiaAerLine(s);
  return m;
}

// An AER error's detail lines: the bus-error line, its "device
// [10de:2204] error status/mask=..." line and the status bits ("[ 5] SDES
// (First)"), or "AER:   TLP Header: ..."; not another head or recovery
// line, and not after a recovery line (one event of its own).
bool AerContinues(std::string_view s, const KernelEvent& open) {
  bool detail_line = Has(s, "status/mask") || IsSurpriseDownLine(s);
  if (!Has(s, "AER") && !Has(s, "PCIe Bus Error") && !detail_line) return false;
  if (AerSourceAt(s) != std::string_view::npos || ReadAerRecovery(s, {})) return false;
  if (open.detail == kAerCantRecover || open.detail == kAerRecoveryFailed ||
      open.detail == kAerLinkReset) {
    return false;
  }
  auto pci = NormalizeKernelPci(FindPci(s));
  return pci.empty() || pci == open.pci_bus_id;
}

// "nvidia: probe of 0000:3b:00.0 failed with error -1": the error.
std::optional<LineMatch> ReadProbe(std::string_view s, std::string_view) {
  if (s.substr(0, 6) != "nvidia" || !Has(s, "probe") || !Has(s, "failed with error")) {
    return std::nullopt;
  }
  LineMatch m;
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::string(s.substr(s.find("failed with ") + 12));
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
std::optional<LineMatch> ReadMlx5(std::string_view s, std::string_view) {
  if (!Has(s, "mlx5_core")) return std::nullopt;
  std::string detail;
  if (Has(s, "insufficient power on the PCIe slot")) {
    detail = std::string(kMlx5InsufficientPower);
  } else if (Has(s, "Port module event") &&
             (Has(s, "High Temperature") || Has(s, "high temperature"))) {
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
  m.pci = NormalizeKernelPci(FindPci(s));
  m.detail = std::move(detail);
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

// fabricmanager.log's "[ERROR] [tid N] ..." lines, and the service's errors
// in the journal.
std::optional<LineMatch> ReadFabricManager(std::string_view s, std::string_view ident) {
  LineMatch m;
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

// The host rows' functions (kernel_catalog_host.h), defined here so that
// the table's checks at compile time see their addresses.
std::optional<LineMatch> HungTaskRow(std::string_view s, std::string_view i) {
  return ReadHungTask(s, i);
}
std::optional<LineMatch> CpuStallRow(std::string_view s, std::string_view i) {
  return ReadCpuStall(s, i);
}
std::optional<LineMatch> KernelCrashRow(std::string_view s, std::string_view i) {
  return ReadKernelCrash(s, i);
}
bool CrashContinuesRow(std::string_view line, const KernelEvent& open) {
  return CrashContinues(line, open);
}
std::optional<LineMatch> NvmeRow(std::string_view s, std::string_view i) {
  return ReadNvmeController(s, i);
}
std::optional<LineMatch> StorageRow(std::string_view s, std::string_view i) {
  return ReadStorage(s, i);
}
std::optional<LineMatch> FilesystemRow(std::string_view s, std::string_view i) {
  return ReadFilesystem(s, i);
}
std::optional<LineMatch> NetworkFsRow(std::string_view s, std::string_view i) {
  return ReadNetworkFs(s, i);
}
std::optional<LineMatch> MemoryErrorRow(std::string_view s, std::string_view i) {
  return ReadMemoryError(s, i);
}
bool GhesContinuesRow(std::string_view line, const KernelEvent& open) {
  return GhesContinues(line, open);
}
std::optional<LineMatch> HostLimitRow(std::string_view s, std::string_view i) {
  return ReadHostLimit(s, i);
}

constexpr Message kOtherMessages[] = {
    {.name = "NVSwitch SXid",
     .kind = KernelEventKind::kSxid,
     .read = ReadSxid,
     .needles = {"Xid"},
     .continues = SxidContinues,
     .example = "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up"},
    {.name = "nvidia-peermem error",
     .kind = KernelEventKind::kPeermemError,
     .read = ReadPeermem,
     .needles = {"peermem"},
     .example = "nvidia-peermem nv_get_p2p_free_callback:127 ERROR detected invalid context, "
                "skipping further processing"},
    {.name = "NCCL watchdog timeout",
     .kind = KernelEventKind::kNcclTimeout,
     .read = ReadNcclTimeout,
     .needles = {"NCCL"},
     .continues = NcclContinues,
     .example =
         "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, "
         "OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600042 milliseconds before timing out."},
    // NCCL's transport lost its network: an InfiniBand/RoCE work completion
    // in error (the job stops), a queue pair that could not be brought up,
    // a socket the peer closed, a connection refused.
    {.name = "NCCL network error",
     .kind = KernelEventKind::kNcclNetwork,
     .read = ReadNcclNetwork,
     .needles = {"Got completion", "ibv_", "closed by remote peer", "Connection refused"},
     .example = "host:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
                "172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) "
                "localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221"},
    {.name = "NCCL library crash",
     .kind = KernelEventKind::kNcclSegfault,
     .read = ReadNcclCrash,
     .needles = {"libnccl"},
     .example = "python3[1234]: segfault at 0 ip 00007f3e2b9c1d2e sp 00007ffd error 4 in "
                "libnccl.so.2.18.3[7f3e2b800000+1d00000]"},
    {.name = "OOM kill",
     .kind = KernelEventKind::kOomKill,
     .read = ReadOom,
     .needles = {"Killed process", "oom-killer"},
     .example = "Out of memory: Killed process 1234 (python3) total-vm:1000kB, anon-rss:900kB"},
    {.name = "PCIe bandwidth limited",
     .kind = KernelEventKind::kPcieBandwidthLimited,
     .read = ReadPcieLimited,
     .needles = {"PCIe bandwidth"},
     .example = "pci 0000:3b:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe "
                "x8 link at 0000:3a:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)"},
    // The status lines that continue an error hold "status/mask" and, for
    // a Surprise Down, "SDES" or "Surprise Down".
    {.name = "PCIe AER error",
     .kind = KernelEventKind::kPcieAer,
     .read = ReadAerHead,
     .needles = {"AER", "PCIe Bus Error", "status/mask", "SDES", "Surprise Down"},
     .continues = AerContinues,
     .example = "nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Corrected, type=Physical "
                "Layer, (Receiver ID)"},
    {.name = "PCIe AER recovery",
     .kind = KernelEventKind::kPcieAer,
     .read = ReadAerRecovery,
     .needles = {"AER", "link has been reset"},
     .example = "nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)"},
    {.name = "nvidia probe failed",
     .kind = KernelEventKind::kProbeFailed,
     .read = ReadProbe,
     .needles = {"failed with error"},
     .example = "nvidia: probe of 0000:3b:00.0 failed with error -1"},
    {.name = "ConnectX NIC trouble (mlx5)",
     .kind = KernelEventKind::kMlx5,
     .read = ReadMlx5,
     .needles = {"mlx5_core"},
     .example = "mlx5_core 0000:1a:00.0: mlx5_pcie_event:299:(pid 0): Detected insufficient "
                "power on the PCIe slot (27W)."},
    {.name = "fabric manager error",
     .kind = KernelEventKind::kFabricManagerError,
     .read = ReadFabricManager,
     .needles = {"fabric", "[ERROR]"},
     .example = "[ERROR] [tid 4177] detected NVSwitch fatal error 12028 on fid 0 on NVSwitch pci "
                "bus id 00000000:06:00.0 physical id 0 port 10"},
    // The host around the GPU (kernel_catalog_host.h). The lockup row
    // comes before the crash row: "BUG: soft lockup" is a lockup.
    {.name = "hung task",
     .kind = KernelEventKind::kHungTask,
     .read = HungTaskRow,
     .needles = {"INFO: task"},
     .example = "INFO: task python3:48213 blocked for more than 120 seconds."},
    {.name = "CPU lockup or RCU stall",
     .kind = KernelEventKind::kCpuStall,
     .read = CpuStallRow,
     .needles = {"BUG:", "hard LOCKUP", "INFO: rcu"},
     .example = "watchdog: BUG: soft lockup - CPU#12 stuck for 22s! [python3:48213]"},
    {.name = "kernel crash",
     .kind = KernelEventKind::kKernelCrash,
     .read = KernelCrashRow,
     .needles = {"Kernel panic", "BUG:", "BUG at", "general protection fault", "Oops:"},
     .continues = CrashContinuesRow,
     .example = "Kernel panic - not syncing: hung_task: blocked tasks"},
    // NVMe controllers by their messages' words, not by "nvme": every
    // healthy mount line of an NVMe disk holds that.
    {.name = "NVMe controller trouble",
     .kind = KernelEventKind::kStorageError,
     .read = NvmeRow,
     .needles = {"QID", "controller is down;", "Device not ready", "Removing after probe",
                 "Disabling device after"},
     .example = "nvme nvme1: I/O 775 QID 2 timeout, aborting"},
    {.name = "storage error",
     .kind = KernelEventKind::kStorageError,
     .read = StorageRow,
     .needles = {"I/O error", "I/O Error", "error, dev"},
     .example = "blk_update_request: I/O error, dev nvme1n1, sector 1134592 op 0x1:(WRITE) flags "
                "0x800 phys_seg 32 prio class 0"},
    {.name = "filesystem or array error",
     .kind = KernelEventKind::kStorageError,
     .read = FilesystemRow,
     .needles = {"XFS (", "Disk failure on", "beyond end of device", "-fs error",
                 "Remounting filesystem read-only"},
     .example = "md/raid1:md0: Disk failure on sdb1, disabling device."},
    {.name = "network file system",
     .kind = KernelEventKind::kNetworkFs,
     .read = NetworkFsRow,
     .needles = {"nfs: server", "lockd: server", "Lock reclaim", "Lustre"},
     .example = "nfs: server 10.0.0.5 not responding, still trying"},
    {.name = "memory hardware error",
     .kind = KernelEventKind::kMemoryError,
     .read = MemoryErrorRow,
     .needles = {"EDAC", "Machine check", "Machine Check", "Uncorrected hardware",
                 "[Hardware Error]:"},
     .continues = GhesContinuesRow,
     .example = "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 "
                "slot:0 page:0x5ef6e5 offset:0x0 grain:32 syndrome:0x0)"},
    {.name = "kernel limit reached",
     .kind = KernelEventKind::kHostLimit,
     .read = HostLimitRow,
     .needles = {"VFS: file-max", "nf_conntrack", "fork rejected"},
     .example = "nf_conntrack: nf_conntrack: table full, dropping packet"},
};

// The words of lines read for other reasons than a row: NVRM lines, lines
// that mention an Xid (counted), journald JSON whose message is a byte
// array (its text cannot be searched before it is decoded), and
// nvidia-smi's messages (nvsmi_messages.h) in a shell session pasted into
// a log.
constexpr std::string_view kOtherWords[] = {
    "NVRM",
    "Xid",
    "\"MESSAGE\":[",
    "the device handle for",
    "No devices were found",
    "Failed to initialize NVML",
    "NVIDIA-SMI has failed",
    // The lines after a crash that say where it happened (CrashContinues).
    "Comm:",
    "RIP:",
    "Hardware name:",
};

// Continuation rules by kind, one table per source.
constexpr std::size_t kKinds = static_cast<std::size_t>(kLastKernelEventKind) + 1;
template <std::size_t N>
constexpr std::array<ContinuesFn, kKinds> ContinuationsOf(const Message (&rows)[N]) {
  std::array<ContinuesFn, kKinds> out{};
  for (const Message& r : rows) {
    if (r.continues) out[static_cast<std::size_t>(r.kind)] = r.continues;
  }
  return out;
}
template <std::size_t N>
constexpr bool OneContinuationPerKind(const Message (&rows)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = i + 1; j < N; ++j) {
      if (rows[i].continues && rows[j].continues && rows[i].kind == rows[j].kind) return false;
    }
  }
  return true;
}
static_assert(OneContinuationPerKind(kNvrmMessages) && OneContinuationPerKind(kOtherMessages),
              "at most one row of a kind says which lines continue it");
constexpr auto kNvrmContinues = ContinuationsOf(kNvrmMessages);
constexpr auto kOtherContinues = ContinuationsOf(kOtherMessages);

template <std::size_t N>
constexpr bool RowsAreWellFormed(const Message (&rows)[N]) {
  for (const Message& r : rows) {
    if (r.name.empty() || r.example.empty() || (!r.read && r.any[0].empty())) return false;
  }
  return true;
}
static_assert(RowsAreWellFormed(kNvrmMessages) && RowsAreWellFormed(kOtherMessages),
              "every row has a name, an example, and a fixed text or a function");

// The NVRM text with its leading blanks and "GPUn " taken off, and the number.
std::string_view NvrmMessageText(std::string_view nvrm, std::optional<int>& number) {
  std::string_view s = TrimLeft(nvrm);
  number = GpuNumberIn(s);
  // "GPU0 _kgspRpcGspEventPmuHalted: ...": the message after the number.
  if (number && s.substr(0, 3) == "GPU") return TrimLeft(s.substr(s.find(' ')));
  return s;
}

}  // namespace

std::optional<int> GpuNumberIn(std::string_view nvrm) {
  std::string_view s = TrimLeft(nvrm);
  // At the start: "GPU4 RPC history"; inside a line only as " GPUn GSP".
  std::size_t at = 0;
  bool leading = s.substr(0, 3) == "GPU";
  if (!leading) {
    at = Find(s, " GPU");
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  std::size_t digits = 0;
  while (at + 3 + digits < s.size() && digits < 4 && TextCursor::IsDigit(s[at + 3 + digits])) {
    ++digits;
  }
  std::size_t after = at + 3 + digits;
  if (digits == 0 || after >= s.size() || s[after] != ' ') return std::nullopt;
  if (!leading && s.substr(after + 1, 3) != "GSP") return std::nullopt;
  int n = 0;
  for (std::size_t i = 0; i < digits; ++i) n = n * 10 + (s[at + 3 + i] - '0');
  return n;
}

// "GPU 18:00.0: GPU has fallen off the bus.": a bus id printed without its
// PCI domain after "GPU " (older drivers); read as domain 0000, the one
// domain of a host with a single PCI segment. "" when the line has none.
std::string DomainlessGpuBus(std::string_view s) {
  if (s.substr(0, 4) != "GPU ") return {};
  std::string_view id = s.substr(4);
  if (id.size() < 8 || id[2] != ':' || id[5] != '.' || !IsHex(id[0]) || !IsHex(id[1]) ||
      !IsHex(id[3]) || !IsHex(id[4]) || !IsHex(id[6]) || (id.size() > 7 && IsHex(id[7]))) {
    return {};
  }
  return NormalizeKernelPci("0000:" + std::string(id.substr(0, 7)));
}

std::optional<LineMatch> MatchNvrm(std::string_view nvrm) {
  std::optional<int> number;
  std::string_view s = NvrmMessageText(nvrm, number);
  auto m = ReadRows(kNvrmMessages, s, {});
  if (!m) return m;
  m->gpu_number = number;
  if (m->pci.empty()) m->pci = DomainlessGpuBus(s);
  return m;
}

namespace {

// The rows of kOtherMessages that may read a line: those with a needle in
// it (each row's lines hold one of its needles, the ident included). The
// needles found by the prefilter's search, each row's needles as bits.
struct RowGate {
  std::vector<std::string_view> words;      // KernelLineWords()
  std::vector<std::uint64_t> rows_of_word;  // per word, the rows holding it
};

const RowGate& Gate() {
  static const RowGate gate = [] {
    static_assert(std::size(kOtherMessages) <= 64, "rows are bits of a 64-bit mask");
    RowGate g;
    g.words = KernelLineWords();
    g.rows_of_word.assign(g.words.size(), 0);
    for (std::size_t r = 0; r < std::size(kOtherMessages); ++r) {
      for (std::string_view n : kOtherMessages[r].needles) {
        if (n.empty()) continue;
        for (std::size_t w = 0; w < g.words.size(); ++w) {
          if (g.words[w] == n) g.rows_of_word[w] |= std::uint64_t{1} << r;
        }
      }
    }
    return g;
  }();
  return gate;
}

std::uint64_t RowsWithNeedlesIn(std::string_view text) {
  const RowGate& g = Gate();
  std::uint64_t rows = 0;
  for (std::size_t at = NextKernelNeedle(text); at != std::string_view::npos;
       at = NextKernelNeedle(text, at + 1)) {
    const std::string_view rest = text.substr(at);
    for (std::size_t w = 0; w < g.words.size(); ++w) {
      const std::string_view word = g.words[w];
      if (rest.size() >= word.size() && rest[0] == word[0] && rest.substr(0, word.size()) == word)
        rows |= g.rows_of_word[w];
    }
  }
  return rows;
}

}  // namespace

std::optional<LineMatch> MatchOther(std::string_view message, std::string_view ident) {
  std::uint64_t rows = RowsWithNeedlesIn(message);
  if (!ident.empty()) rows |= RowsWithNeedlesIn(ident);
  if (rows == 0) return std::nullopt;
  return ReadRows(kOtherMessages, message, ident, nullptr, rows);
}

bool IsNvrmFollowUp(std::string_view nvrm, const KernelEvent& open) {
  if (nvrm.substr(0, 3) == "   ") return true;  // "NVRM:     entry function ..."
  std::string_view s = TrimLeft(nvrm);
  for (std::string_view lead : {"GPU Board Serial Number", "A GPU crash dump has been created",
                                "nvidia-bug-report.sh as root", "the NVIDIA kernel module is"}) {
    if (s.substr(0, lead.size()) == lead) return true;
  }
  // "GPU4 GSP RPC buffer contains", "GPU4 RPC history", "GPU4 RPC event history"
  if (s.substr(0, 3) == "GPU" && s.size() > 3 && TextCursor::IsDigit(s[3]) &&
      (Has(s, " RPC history") || Has(s, " RPC event history") || Has(s, "RPC buffer contains"))) {
    return true;
  }
  ContinuesFn continues = kNvrmContinues[static_cast<std::size_t>(open.kind)];
  return continues && continues(s, open);
}

bool IsOtherFollowUp(std::string_view message, const KernelEvent& open) {
  ContinuesFn continues = kOtherContinues[static_cast<std::size_t>(open.kind)];
  return continues && continues(message, open);
}

std::vector<std::string_view> KernelLineWords() {
  std::vector<std::string_view> out;
  auto add = [&out](std::string_view w) {
    if (!w.empty() && std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  };
  for (std::string_view w : kOtherWords) add(w);
  for (const Message& r : kNvrmMessages) {
    for (std::string_view w : r.needles) add(w);
  }
  for (const Message& r : kOtherMessages) {
    for (std::string_view w : r.needles) add(w);
  }
  return out;
}

std::vector<CatalogRow> KernelCatalogRows() {
  std::vector<CatalogRow> out;
  for (const Message& r : kNvrmMessages) out.push_back({r.name, true, r.kind, r.example});
  for (const Message& r : kOtherMessages) out.push_back({r.name, false, r.kind, r.example});
  return out;
}

std::optional<std::size_t> CatalogRowOf(std::string_view message, std::string_view ident) {
  std::size_t row = 0;
  if (auto at = message.find("NVRM:"); at != std::string_view::npos) {
    std::optional<int> number;
    if (ReadRows(kNvrmMessages, NvrmMessageText(message.substr(at + 5), number), {}, &row))
      return row;
    return std::nullopt;
  }
  if (ReadRows(kOtherMessages, message, ident, &row)) return std::size(kNvrmMessages) + row;
  return std::nullopt;
}

std::optional<KernelEventKind> XidDerivedEvent(int code, std::string_view message,
                                               std::string_view xid_detail, std::string& detail) {
  switch (code) {
    case 79:  // "GPU has fallen off the bus"
      detail = "Xid 79";
      return KernelEventKind::kFallenOffBus;
    case kXidRecoveryAction:
      detail.assign(xid_detail);
      return KernelEventKind::kRecoveryAction;
    case 119:  // a GSP RPC timeout, when the text says which RPC
      if (!Has(message, "RPC")) return std::nullopt;
      detail = RpcFunction(message);
      return KernelEventKind::kGspTimeout;
    default:
      return std::nullopt;
  }
}

bool XidCausesFixedByHeader(int code) { return code != kXidRecoveryAction && code != 119; }

bool ProbeMessageContinues(std::string_view nvrm, int lines_so_far) {
  return lines_so_far < 8 && (Has(nvrm, "fallen off the bus and") || !MatchNvrm(nvrm));
}

void ProbeMessageEvent(const std::vector<std::string>& continuation, KernelEventKind& kind,
                       std::string& detail) {
  bool lost = false, unsupported = false;
  for (const auto& c : continuation) {
    lost = lost || Has(c, "fallen off the bus");
    unsupported = unsupported || Has(c, "not supported");
  }
  kind = lost ? KernelEventKind::kFallenOffBus : KernelEventKind::kProbeFailed;
  detail = lost ? "probe" : (unsupported ? "unsupported GPU" : "probe");
}

void AddAerDetailLine(std::string_view message, std::string_view ident, KernelEvent& open,
                      bool& nvidia) {
  nvidia = nvidia || IsNvidiaAerLine(message);
  auto m = MatchOther(message, ident);
  if (open.detail.empty() && m && !m->detail.empty()) open.detail = m->detail;
  if (IsSurpriseDownLine(message) && !Has(open.detail, kAerSurpriseDown))
    open.detail += kAerSurpriseDown;
}

bool IsNvidiaAerLine(std::string_view s) { return s.substr(0, 7) == "nvidia " || Has(s, "[10de:"); }

bool IsSurpriseDownLine(std::string_view s) { return Has(s, "] SDES") || Has(s, "Surprise Down"); }

}  // namespace gpudoctor::kevents
