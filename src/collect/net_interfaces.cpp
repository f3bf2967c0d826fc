#include "collect/net_interfaces.h"

#include <algorithm>
#include <filesystem>

#include "parse/proc_text.h"
#include "parse/sysfs_net.h"

namespace gpudoctor {

namespace {

std::optional<std::string> ReadAttr(const CollectContext& ctx, NetInterface& nif,
                                    const std::string& path) {
  auto text = ReadRootFile(ctx, path, 4096);
  if (text.ok()) return std::string(Trim(*text));
  // The kernel answers EINVAL for `speed` on a link that is down: that is
  // "unknown", not a failure worth listing.
  if (text.error().code != ErrorCode::kNotFound && text.error().code != ErrorCode::kInvalid) {
    nif.sources.push_back(SourceStatus{path, false, text.error().message});
  }
  return std::nullopt;
}

void ReadCounter(const CollectContext& ctx, NetInterface& nif, const std::string& dir,
                 const char* name, std::optional<std::uint64_t>& into) {
  if (auto text = ReadAttr(ctx, nif, dir + "statistics/" + name)) into = ParseUnsigned(*text);
}

std::optional<double> Rate(const std::optional<std::uint64_t>& a,
                           const std::optional<std::uint64_t>& b, double seconds) {
  if (!a || !b || seconds <= 0) return std::nullopt;
  if (*b < *a) return 0.0;
  return static_cast<double>(*b - *a) / seconds;
}

}  // namespace

NetSnapshot ReadNet(const CollectContext& ctx) {
  NetSnapshot snap;
  snap.taken = std::chrono::steady_clock::now();
  auto names = ListRootDir(ctx, "/sys/class/net");
  snap.sources.push_back(StatusOf("/sys/class/net", names));
  if (!names.ok()) return snap;
  for (const auto& name : *names) {
    if (name == "lo") continue;
    const std::string dir = "/sys/class/net/" + name + "/";
    NetInterface nif;
    nif.name = name;
    if (auto t = ReadAttr(ctx, nif, dir + "operstate")) nif.operstate = *t;
    if (auto t = ReadAttr(ctx, nif, dir + "speed")) nif.speed_mbps = ParseNetSpeedMbps(*t);
    if (auto t = ReadAttr(ctx, nif, dir + "mtu")) {
      auto mtu = ParseUnsigned(*t);
      if (mtu && *mtu < 1u << 20) nif.mtu = static_cast<int>(*mtu);
    }
    std::error_code ec;
    nif.physical = std::filesystem::exists(UnderRoot(ctx, dir + "device"), ec);
    NetCounters& c = nif.counters;
    ReadCounter(ctx, nif, dir, "rx_bytes", c.rx_bytes);
    ReadCounter(ctx, nif, dir, "tx_bytes", c.tx_bytes);
    ReadCounter(ctx, nif, dir, "rx_errors", c.rx_errors);
    ReadCounter(ctx, nif, dir, "tx_errors", c.tx_errors);
    ReadCounter(ctx, nif, dir, "rx_dropped", c.rx_dropped);
    ReadCounter(ctx, nif, dir, "tx_dropped", c.tx_dropped);
    snap.interfaces.push_back(std::move(nif));
  }
  return snap;
}

std::vector<NetInterfaceRates> NetRatesBetween(const NetSnapshot& a, const NetSnapshot& b) {
  std::vector<NetInterfaceRates> out;
  const double seconds = std::chrono::duration<double>(b.taken - a.taken).count();
  for (const auto& now : b.interfaces) {
    NetInterfaceRates r;
    r.interface = now;
    r.window_s = seconds;
    auto before = std::find_if(a.interfaces.begin(), a.interfaces.end(),
                               [&](const NetInterface& n) { return n.name == now.name; });
    if (before != a.interfaces.end()) {
      const NetCounters& x = before->counters;
      const NetCounters& y = now.counters;
      r.rx_bytes_per_s = Rate(x.rx_bytes, y.rx_bytes, seconds);
      r.tx_bytes_per_s = Rate(x.tx_bytes, y.tx_bytes, seconds);
      if (r.rx_bytes_per_s) r.rx_mbps = *r.rx_bytes_per_s * 8 / 1e6;
      if (r.tx_bytes_per_s) r.tx_mbps = *r.tx_bytes_per_s * 8 / 1e6;
      r.rx_errors_per_s = Rate(x.rx_errors, y.rx_errors, seconds);
      r.tx_errors_per_s = Rate(x.tx_errors, y.tx_errors, seconds);
      r.rx_dropped_per_s = Rate(x.rx_dropped, y.rx_dropped, seconds);
      r.tx_dropped_per_s = Rate(x.tx_dropped, y.tx_dropped, seconds);
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace gpudoctor
