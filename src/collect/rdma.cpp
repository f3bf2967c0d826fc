#include "collect/rdma.h"

#include <algorithm>

#include "parse/proc_text.h"

namespace gpudoctor {

namespace {

std::optional<std::string> ReadAttr(const CollectContext& ctx, std::vector<SourceStatus>& sources,
                                    const std::string& path) {
  auto text = ReadRootFile(ctx, path, 4096);
  if (text.ok()) return std::string(Trim(*text));
  sources.push_back(SourceStatus{path, false, text.error().message});
  return std::nullopt;
}

RdmaPort ReadPort(const CollectContext& ctx, const std::string& dir, unsigned number) {
  RdmaPort port;
  port.port = number;
  if (auto t = ReadAttr(ctx, port.sources, dir + "state")) port.state = ParseIbPortState(*t);
  if (auto t = ReadAttr(ctx, port.sources, dir + "phys_state"))
    port.phys_state = ParseIbPortState(*t);
  if (auto t = ReadAttr(ctx, port.sources, dir + "rate")) {
    port.rate_text = *t;
    port.rate_gbps = ParseIbRateGbps(*t);
  }
  if (auto t = ReadAttr(ctx, port.sources, dir + "link_layer")) port.link_layer = *t;
  port.roce = port.link_layer == "Ethernet";
  port.active = port.state && port.state->code == 4;
  return port;
}

}  // namespace

RdmaFacts ReadRdma(const CollectContext& ctx) {
  RdmaFacts facts;
  auto names = ListRootDir(ctx, "/sys/class/infiniband");
  if (!names.ok()) {
    SourceStatus s = StatusOf("/sys/class/infiniband", names);
    if (names.error().code == ErrorCode::kNotFound)
      s.why = "no RDMA devices (/sys/class/infiniband absent)";
    facts.sources.push_back(std::move(s));
    return facts;
  }
  facts.sources.push_back(SourceStatus{"/sys/class/infiniband", true, ""});
  for (const auto& name : *names) {
    RdmaDevice dev;
    dev.name = name;
    const std::string dir = "/sys/class/infiniband/" + name + "/";
    if (auto fw = ReadRootFile(ctx, dir + "fw_ver", 256); fw.ok())
      dev.fw_version = std::string(Trim(*fw));
    auto ports = ListRootDir(ctx, dir + "ports");
    if (!ports.ok()) {
      facts.sources.push_back(StatusOf(dir + "ports", ports));
    } else {
      for (const auto& p : *ports) {
        auto number = ParseUnsigned(p);
        if (!number) continue;
        dev.ports.push_back(
            ReadPort(ctx, dir + "ports/" + p + "/", static_cast<unsigned>(*number)));
      }
    }
    std::sort(dev.ports.begin(), dev.ports.end(),
              [](const RdmaPort& a, const RdmaPort& b) { return a.port < b.port; });
    facts.devices.push_back(std::move(dev));
  }
  return facts;
}

}  // namespace gpudoctor
