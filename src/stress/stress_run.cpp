#include "stress/stress_run.h"

#include <fmt/format.h>

#include <atomic>
#include <ostream>
#include <thread>

#include "stress/gpu_tests.h"
#include "stress/p2p_expectation.h"
#include "stress/stop_signal.h"

namespace gpudoctor {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsBetween(SteadyTime from, SteadyTime to) {
  return std::chrono::duration<double>(to - from).count();
}

// One GPU over the run: its CUDA handle (null when it could not be opened or
// failed in an earlier test) and its results.
struct StressGpu {
  std::unique_ptr<CudaGpu> cuda;
  ActiveGpuResult* result = nullptr;
};

void NoteError(StressGpu& gpu, const std::optional<GpuTestError>& error, StressTest test,
               SteadyTime run_start) {
  if (!error || !gpu.result->cuda_error.empty()) return;
  gpu.result->cuda_error = error->message;
  gpu.result->cuda_error_at_s = SecondsBetween(run_start, error->at);
  gpu.result->cuda_error_test = StressTestName(test);
}

void NoteLoad(StressGpu& gpu, const std::optional<SteadyTime>& first, SteadyTime run_start) {
  if (first && !gpu.result->load_started_s) {
    gpu.result->load_started_s = SecondsBetween(run_start, *first);
  }
}

// What one test does on one GPU, on its own thread.
void RunOneTest(StressTest test, const StressPlan& plan, StressGpu& gpu, std::size_t position,
                std::size_t count, SteadyTime test_start, SteadyTime run_start) {
  if (auto current = gpu.cuda->MakeCurrent(); !current) {
    NoteError(gpu, GpuTestError{current.error().message, Clock::now()}, test, run_start);
    return;
  }
  SteadyTime deadline = test_start + plan.duration;
  if (test == StressTest::kPower) {
    auto step = plan.staggered ? plan.duration / (2 * static_cast<long>(count))
                               : std::chrono::milliseconds(0);
    BurnOutcome burn = RunBurn(*gpu.cuda, test_start + step * static_cast<long>(position), deadline);
    NoteLoad(gpu, burn.first_launch, run_start);
    if (burn.first_launch) {
      gpu.result->burn_started_s = SecondsBetween(run_start, *burn.first_launch);
      gpu.result->burn_ended_s = SecondsBetween(run_start, Clock::now());
    }
    if (burn.kernel_ms > 0) gpu.result->burn_tflops = burn.flops / (burn.kernel_ms * 1e9);
    NoteError(gpu, burn.error, test, run_start);
  } else if (test == StressTest::kHbm) {
    HbmOutcome hbm = RunHbm(*gpu.cuda, deadline);
    NoteLoad(gpu, hbm.first_launch, run_start);
    gpu.result->hbm_gbps = MedianOf(hbm.gbps);
    NoteError(gpu, hbm.error, test, run_start);
  } else if (test == StressTest::kPcie) {
    PcieOutcome pcie = RunPcie(*gpu.cuda, deadline);
    NoteLoad(gpu, pcie.first_copy, run_start);
    if (pcie.first_copy) {
      gpu.result->pcie_started_s = SecondsBetween(run_start, *pcie.first_copy);
      gpu.result->pcie_ended_s = SecondsBetween(run_start, Clock::now());
    }
    gpu.result->pcie_h2d_gbps = MedianOf(pcie.h2d_gbps);
    gpu.result->pcie_d2h_gbps = MedianOf(pcie.d2h_gbps);
    gpu.result->pcie_bidir_gbps = MedianOf(pcie.bidir_gbps);
    NoteError(gpu, pcie.error, test, run_start);
  } else {
    MemoryOutcome memory = RunMemory(*gpu.cuda, plan.memory_fraction, deadline);
    NoteLoad(gpu, memory.first_launch, run_start);
    if (!memory.result.patterns.empty()) gpu.result->memory = memory.result;
    NoteError(gpu, memory.error, test, run_start);
  }
}

// The p2p test over every GPU still usable, on one thread: pairs one at a time.
void RunP2pTest(std::vector<StressGpu>& gpus, ActiveRun& run, SteadyTime test_start,
                const StressPlan& plan, SteadyTime run_start) {
  std::vector<CudaGpu*> cuda;
  std::vector<StressGpu*> used;
  for (StressGpu& g : gpus) {
    if (!g.cuda || !g.result->cuda_error.empty()) continue;
    cuda.push_back(g.cuda.get());
    used.push_back(&g);
  }
  P2pOutcome p2p = RunP2p(cuda, test_start + plan.duration);
  for (StressGpu* g : used) NoteLoad(*g, p2p.first_copy, run_start);
  for (const PeerCopyOutcome& pair : p2p.pairs) {
    const ActiveGpuResult& src = *used[pair.src]->result;
    const ActiveGpuResult& dst = *used[pair.dst]->result;
    run.p2p.push_back(ActivePeerCopy{src.index, dst.index, src.pci_bus_id, dst.pci_bus_id, pair.peer_access,
                                     MedianOf(pair.gbps), ExpectPeerCopy(src, dst, pair.peer_access)});
  }
  if (p2p.error) NoteError(*used[p2p.error_gpu], p2p.error, StressTest::kP2p, run_start);
}

class StressSampler {
 public:
  StressSampler(NvmlSession& session, NvmlXidWatcher* xids, StressRunResult& out)
      : session_(session), xids_(xids), out_(out) {}

  void SampleNow() {
    out_.samples.push_back(StressSample{session_.Sample(), std::chrono::system_clock::now()});
    if (xids_ == nullptr) return;
    for (const NvmlXidEvent& e : xids_->Take()) {
      for (ActiveGpuResult& gpu : out_.run.gpus) {
        if (gpu.pci_bus_id != e.pci_bus_id) continue;
        double at = std::chrono::duration<double>(e.time - out_.run.started_at).count();
        gpu.xids.push_back(ActiveXid{at, e.xid});
      }
    }
  }

  // Samples every kStressSampleInterval until `running` reaches zero.
  void SampleWhile(const std::atomic<int>& running) {
    SteadyTime next = Clock::now();
    while (running.load() > 0) {
      SampleNow();
      next += kStressSampleInterval;
      while (running.load() > 0 && Clock::now() < next) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      if (Clock::now() > next + kStressSampleInterval) next = Clock::now();
    }
  }

 private:
  NvmlSession& session_;
  NvmlXidWatcher* xids_;
  StressRunResult& out_;
};

const GpuStatus* GpuIn(const StressSample& sample, const std::string& bus) {
  for (const GpuStatus& g : sample.status.gpus) {
    if (g.pci_bus_id == bus && g.state == GpuState::kOk) return &g;
  }
  return nullptr;
}

std::optional<std::int64_t> Sum(const std::optional<std::int64_t>& a,
                                const std::optional<std::int64_t>& b) {
  if (!a && !b) return std::nullopt;
  return a.value_or(0) + b.value_or(0);
}

// NVML's memory-error counters before and after, into each memory result.
void AddMemoryCounters(StressRunResult& out) {
  if (out.samples.empty()) return;
  for (ActiveGpuResult& gpu : out.run.gpus) {
    if (!gpu.memory) continue;
    const GpuStatus* before = GpuIn(out.samples.front(), gpu.pci_bus_id);
    const GpuStatus* after = GpuIn(out.samples.back(), gpu.pci_bus_id);
    MemoryTestResult& m = *gpu.memory;
    if (before) {
      m.ecc_uncorrected_before = before->ecc_aggregate_uncorrected;
      m.ecc_corrected_before = before->ecc_aggregate_corrected;
      m.retired_pages_before = Sum(before->retired_pages_sbe, before->retired_pages_dbe);
      m.remapped_rows_before = Sum(before->remapped_rows_corrected, before->remapped_rows_uncorrected);
    }
    if (after) {
      m.ecc_uncorrected_after = after->ecc_aggregate_uncorrected;
      m.ecc_corrected_after = after->ecc_aggregate_corrected;
      m.retired_pages_after = Sum(after->retired_pages_sbe, after->retired_pages_dbe);
      m.remapped_rows_after = Sum(after->remapped_rows_corrected, after->remapped_rows_uncorrected);
    }
  }
}

// The fastest link each GPU's samples showed during its pcie test.
void AddPcieLinks(StressRunResult& out) {
  for (ActiveGpuResult& gpu : out.run.gpus) {
    if (!gpu.pcie_started_s) continue;
    for (const StressSample& sample : out.samples) {
      double at = std::chrono::duration<double>(sample.time - out.run.started_at).count();
      if (at < *gpu.pcie_started_s || at > gpu.pcie_ended_s.value_or(at)) continue;
      const GpuStatus* g = GpuIn(sample, gpu.pci_bus_id);
      if (g == nullptr || !g->pcie_link_gen_current || !g->pcie_link_width_current) continue;
      std::int64_t lanes = *g->pcie_link_gen_current * *g->pcie_link_width_current;
      if (gpu.pcie_link_gen && lanes <= *gpu.pcie_link_gen * *gpu.pcie_link_width) continue;
      gpu.pcie_link_gen = g->pcie_link_gen_current;
      gpu.pcie_link_width = g->pcie_link_width_current;
      gpu.pcie_link_gen_max = g->pcie_link_gen_max;
      gpu.pcie_link_width_max = g->pcie_link_width_max;
    }
  }
}

}  // namespace

StressRunResult RunStress(const StressPlan& plan, std::shared_ptr<const CudaLibrary> lib,
                          const std::vector<StressTarget>& targets, NvmlSession& sampler,
                          NvmlXidWatcher* xids, std::ostream& progress) {
  StressRunResult out;
  out.run.duration_s = std::chrono::duration<double>(plan.duration).count();
  out.run.start = plan.staggered ? "staggered" : "together";
  out.run.memory_fraction = plan.memory_fraction;
  for (StressTest t : plan.tests) out.run.tests.emplace_back(StressTestName(t));
  out.run.gpus.reserve(targets.size());
  for (const StressTarget& t : targets) {
    ActiveGpuResult r;
    r.index = t.nvml.index;
    r.pci_bus_id = t.nvml.pci_bus_id;
    r.name = t.nvml.name;
    r.nvlinks = t.nvlinks;
    // The link's maximum, for the p2p expectation without NVLink; the pcie
    // test's samples replace it with what they read under load.
    r.pcie_link_gen_max = t.nvml.pcie_link_gen_max;
    r.pcie_link_width_max = t.nvml.pcie_link_width_max;
    out.run.gpus.push_back(std::move(r));
  }
  StressSampler sampling(sampler, xids, out);
  out.run.started_at = std::chrono::system_clock::now();
  SteadyTime run_start = Clock::now();
  sampling.SampleNow();

  std::vector<StressGpu> gpus(targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    gpus[i].result = &out.run.gpus[i];
    auto opened = CudaGpu::Open(lib, targets[i].cuda);
    if (opened) {
      gpus[i].cuda = std::move(*opened);
    } else {
      gpus[i].result->cuda_error = opened.error().message;
      gpus[i].result->cuda_error_at_s = SecondsBetween(run_start, Clock::now());
      gpus[i].result->cuda_error_test = "setup";
    }
  }
  for (StressTest test : plan.tests) {
    if (StressStopRequested()) break;
    progress << fmt::format("gpudoctor stress: {} on {} GPU(s), up to {} s\n", StressTestName(test),
                            targets.size(), out.run.duration_s)
             << std::flush;
    std::atomic<int> running{0};
    std::vector<std::thread> threads;
    SteadyTime test_start = Clock::now() + std::chrono::milliseconds(50);
    if (test == StressTest::kP2p) {
      ++running;
      threads.emplace_back([&] {
        RunP2pTest(gpus, out.run, test_start, plan, run_start);
        --running;
      });
    }
    for (std::size_t i = 0; i < gpus.size() && test != StressTest::kP2p; ++i) {
      if (!gpus[i].cuda || !gpus[i].result->cuda_error.empty()) continue;
      ++running;
      threads.emplace_back([&, i] {
        RunOneTest(test, plan, gpus[i], i, gpus.size(), test_start, run_start);
        --running;
      });
    }
    sampling.SampleWhile(running);
    for (std::thread& t : threads) t.join();
  }
  gpus.clear();  // frees every allocation and releases the contexts
  out.run.interrupted = StressStopRequested();
  out.run.ran_s = SecondsBetween(run_start, Clock::now());
  sampling.SampleNow();
  AddMemoryCounters(out);
  AddPcieLinks(out);
  return out;
}

}  // namespace gpudoctor
