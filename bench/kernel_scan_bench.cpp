// Micro-benchmarks of the kernel-log hot path: the needle prefilter, a
// buffer scan over ordinary traffic with a few Xid lines, and the per-line
// prefix parser for each format.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "parse/kernel_events.h"
#include "parse/kernel_line.h"
#include "parse/kernel_prefilter.h"

namespace {

// About 8 MiB of syslog-style traffic; one line in 1000 is an Xid.
const std::string& MixedLog() {
  static const std::string text = [] {
    const char* noise[] = {
        "kernel: [%d.123456] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode.",
        "kernel: [%d.200000] IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
        "systemd[1]: Started Session %d of user ubuntu.",
        "kernel: [%d.300000] audit: type=1400 apparmor=\"DENIED\" operation=\"open\" pid=42",
        "containerd[2210]: time=\"2025-02-15T17:37:45Z\" level=info msg=\"shim disconnected\"",
        "kubelet[3301]: I0215 17:37:45.123456 3301 kubelet_pods.go:1082] \"Clean up pod\"",
    };
    std::string out;
    char buf[512];
    for (int i = 0; out.size() < (8u << 20); ++i) {
      std::string fmt = "Feb 15 17:37:45 gpu-node-07 ";
      if (i % 1000 == 999) {
        fmt += "kernel: [%d.5] NVRM: Xid (PCI:0000:3b:00): 31, pid=77, name=python3, Ch 00000008";
      } else {
        fmt += noise[i % 6];
      }
      std::snprintf(buf, sizeof buf, fmt.c_str(), i);
      out += buf;
      out += '\n';
    }
    return out;
  }();
  return text;
}

void BM_Prefilter(benchmark::State& state) {
  const std::string& text = MixedLog();
  for (auto _ : state) {
    std::size_t hits = 0;
    for (std::size_t pos = 0; (pos = gpudoctor::NextKernelNeedle(text, pos)) != std::string::npos;
         ++pos) {
      ++hits;
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_Prefilter);

void BM_ScanBuffer(benchmark::State& state) {
  const std::string& text = MixedLog();
  for (auto _ : state) {
    gpudoctor::KernelEventScanner scanner;
    gpudoctor::ScanKernelLogBuffer(text, "bench.log", 1, scanner);
    benchmark::DoNotOptimize(scanner.Finish());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ScanBuffer);

void BM_ParseKernelLine(benchmark::State& state) {
  const std::vector<std::string> lines = {
      "[  123.456789] NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
      "[Sun Feb 23 16:24:18 2025] NVRM: GPU Board Serial Number: 1650124014249",
      "kern  :warn  : 2025-01-21T04:41:44,285060+00:00 pt_main_thread[2536443]: segfault",
      "Feb 15 17:37:45 Gipfeli kernel: [82659.755847] NVRM: Xid (PCI:0000:41:00): 13, G",
      "4,9921,9370042162,-;NVRM: Xid (PCI:0000:01:00): 79, x",
  };
  const gpudoctor::LineTimeContext ctx{2025, std::chrono::seconds{0}};
  for (auto _ : state) {
    for (const auto& l : lines) benchmark::DoNotOptimize(gpudoctor::ParseKernelLine(l, ctx));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * lines.size()));
}
BENCHMARK(BM_ParseKernelLine);

}  // namespace
