// What `gpudoctor stress` measured: the tests it ran, over which GPUs, and
// each GPU's results (burn rate, HBM bandwidth, memory patterns, CUDA errors,
// Xids and losses during the load). The 100 ms NVML samples of the run are
// the DiagnosisInput's GPU series; this is the rest, for the stress.* rules
// and the report's "active" section.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/kernel_event.h"

namespace gpudoctor {

struct ActiveXid {
  double at_s = 0;  // seconds since the run began
  int xid = 0;
};

struct MemoryTestResult {
  std::uint64_t tested_bytes = 0;
  std::vector<std::string> patterns;  // "0x00", "0xFF", "0xAA", "0x55", "address"
  std::uint64_t mismatches = 0;       // words that read back wrong, all patterns
  // Device addresses of the first bad words (at most 8 per pattern, no repeats).
  std::vector<std::uint64_t> mismatch_addresses;
  std::uint64_t buffer_address = 0;  // where the tested range began
  // NVML's counters before and after (absent where NVML does not report them).
  std::optional<std::int64_t> ecc_uncorrected_before, ecc_uncorrected_after;
  std::optional<std::int64_t> ecc_corrected_before, ecc_corrected_after;
  std::optional<std::int64_t> retired_pages_before, retired_pages_after;
  std::optional<std::int64_t> remapped_rows_before, remapped_rows_after;
};

// One NVLink link of a GPU as NVML read it before the run.
struct ActiveNvLink {
  unsigned link = 0;
  bool active = false;
  std::optional<std::int64_t> version;  // nvmlDeviceGetNvLinkVersion's encoding
  std::string remote_pci_bus_id;        // empty when unknown
  bool remote_is_gpu = false;           // a GPU of the node; otherwise an NVSwitch
};

struct ActiveGpuResult {
  unsigned index = 0;       // NVML index
  std::string pci_bus_id;   // "0000:3b:00.0"
  std::string name;
  std::optional<double> load_started_s;  // seconds since the run began
  // power: the burn's FP32 rate over its whole duration, and when it ran.
  std::optional<double> burn_tflops;
  std::optional<double> burn_started_s, burn_ended_s;
  // hbm: the copy kernel's bandwidth (read + write bytes / time), the median
  // of its repetitions, and the model's published peak where known.
  std::optional<double> hbm_gbps;
  std::optional<double> hbm_peak_gbps;
  std::string hbm_peak_source;  // where the peak comes from
  std::optional<MemoryTestResult> memory;
  // pcie: pinned host-to-device and device-to-host bandwidth (medians, GB/s),
  // and when the test ran (its NVML samples give the link it trained at).
  std::optional<double> pcie_h2d_gbps, pcie_d2h_gbps;
  std::optional<double> pcie_bidir_gbps;  // both directions at once, their bytes together
  std::optional<double> pcie_started_s, pcie_ended_s;
  // The fastest link NVML read during the pcie test (links idle at a lower
  // generation and train up under load), and the link's maximum.
  std::optional<std::int64_t> pcie_link_gen, pcie_link_width;
  std::optional<std::int64_t> pcie_link_gen_max, pcie_link_width_max;
  // Its NVLink links (empty without NVLink), for the p2p expectation.
  std::vector<ActiveNvLink> nvlinks;
  std::vector<ActiveXid> xids;
  // The first CUDA error of the run on this GPU, as CudaCallError writes it.
  std::string cuda_error;
  std::optional<double> cuda_error_at_s;
  std::string cuda_error_test;  // the test it happened in
};

// What a pair's path should carry, one direction: its NVLink links (direct,
// or each GPU's links to the NVSwitch fabric) x the per-link rate of their
// generation, or, without NVLink, the slower GPU's PCIe link.
struct PeerExpectation {
  std::string path;             // "nvlink", "nvswitch" or "pcie"
  int links = 0;                // NVLink links the path should have (0 on PCIe)
  int links_active = 0;         // of those, how many are up
  std::string link_name;        // "NVLink 4.0", "PCIe Gen4 x16"
  double link_gbps = 0;         // one NVLink link, or the PCIe link, one direction
  double theoretical_gbps = 0;  // what the path carries in theory
  double achievable_share = 0;  // the share of it a healthy path reaches
  std::string source;           // where the per-link rate comes from
};

// p2p: one direction of one GPU pair.
struct ActivePeerCopy {
  unsigned src_index = 0, dst_index = 0;  // NVML indices
  std::string src_bus, dst_bus;
  bool peer_access = false;     // the driver offered peer access (else staged through the host)
  std::optional<double> gbps;   // median of the timed copies, 1e9 bytes per second
  std::optional<PeerExpectation> expected;  // nullopt when the links do not say
};

struct ActiveRun {
  std::vector<std::string> tests;  // "hbm", "memory", "pcie", "p2p", "power", in the order run
  double duration_s = 0;           // --duration
  std::string start = "together";  // "together" | "staggered"
  double memory_fraction = 0.75;
  WallTime started_at;
  double ran_s = 0;                // how long it really ran
  bool interrupted = false;        // stopped by SIGINT / SIGTERM
  std::vector<ActiveGpuResult> gpus;
  std::vector<ActivePeerCopy> p2p;  // every ordered pair, when p2p ran on 2+ GPUs
};

}  // namespace gpudoctor
