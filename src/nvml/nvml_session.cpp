#include "nvml/nvml_session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <vector>

#include "nvml/call_worker.h"
#include "nvml/driver_opener.h"
#include "nvml/field_ids.h"
#include "nvml/gpu_reader.h"
#include "nvml/nvml_error.h"
#include "nvml/nvml_library.h"
#include "nvml/read_lanes.h"

namespace gpudoctor {
namespace {

// The median of a reading's call times, in ms; nullopt when it made none.
std::optional<double> MedianCallMs(std::vector<std::int64_t> call_ns) {
  if (call_ns.empty()) return std::nullopt;
  auto mid = call_ns.begin() + static_cast<std::ptrdiff_t>(call_ns.size() / 2);
  std::nth_element(call_ns.begin(), mid, call_ns.end());
  return static_cast<double>(*mid) / 1e6;
}

class Session final : public NvmlSession {
 public:
  explicit Session(const NvmlOptions& options)
      : options_(options),
        opener_(options.opener ? options.opener
                               : std::make_shared<DriverOpener>(options.call_deadline)) {}

  ~Session() override {
    if (!HasAbandonedCalls() && open_ && open_->library) {
      for (auto& [index, state] : gpm_) FreeGpm(open_->library->fn, *state);
      // Balanced with nvmlInit; skipped when a call is stuck in the driver.
      open_->library->fn.nvmlShutdown();
    }
  }

  SystemStatus Sample() override {
    SystemStatus status;
    if (!EnsureOpen(status)) return status;
    status.nvml_loaded = true;
    status.driver_version = open_->driver_version;
    status.cuda_driver_version = open_->cuda_driver_version;
    status.nvml_version = open_->nvml_version;

    std::vector<unsigned> todo;
    for (unsigned i = 0; i < open_->gpu_count; ++i) {
      if (!sticky_.count(i)) todo.push_back(i);
    }
    std::map<unsigned, Outcome> outcomes;
    PrimeGpm(todo, outcomes);
    const auto started = std::chrono::steady_clock::now();
    ReadGpus(todo, outcomes, Pass::kRead);
    lanes_ = NextReadLanes(lanes_ == 0 ? open_->gpu_count : lanes_,
                           std::chrono::steady_clock::now() - started, todo.size(),
                           open_->gpu_count, options_.slow_read);
    for (unsigned i = 0; i < open_->gpu_count; ++i) {
      status.gpus.push_back(Collect(i, outcomes));
    }
    // The NVLink peers by bus id, from each peer's own reading (no driver
    // call a pair).
    for (GpuStatus& g : status.gpus) {
      for (NvLinkPeer& p : g.nvlink_peers) {
        if (p.peer_index < status.gpus.size()) p.peer_pci_bus_id = status.gpus[p.peer_index].pci_bus_id;
      }
    }
    return status;
  }

  bool HasAbandonedCalls() const override {
    return opener_->HasHungAttempt() || !abandoned_.empty();
  }

  std::size_t read_lanes() const override {
    if (lanes_ == 0 && open_ && open_->error.empty()) return std::max(1u, open_->gpu_count);
    return lanes_;
  }

 private:
  bool EnsureOpen(SystemStatus& status) {
    if (!open_) open_ = opener_->Open(ResolveNvmlLibraryPath(options_.library_path));
    if (!open_->error.empty()) {
      status.nvml_loaded = false;
      status.nvml_error = open_->error;
      return false;
    }
    return true;
  }

  // What one read of a GPU gave: its status, or the call that hung.
  struct Outcome {
    GpuStatus gpu;
    std::string hung_call;  // non-empty when the GPU did not answer in time
  };

  // GPUs read in turn on one worker (a lane). results[0, done) are complete.
  struct Batch {
    std::vector<unsigned> indexes;
    std::vector<GpuStatus> results;
    std::atomic<std::size_t> done{0};
  };

  enum class Pass { kPrimeGpm, kRead };

  std::shared_ptr<NvLinkPeerCache> PeersOf(unsigned index) {
    if (options_.nvlink_peers_refresh.count() <= 0) return nullptr;
    auto& slot = peer_caches_[index];
    if (!slot) slot = std::make_shared<NvLinkPeerCache>();
    return slot;
  }

  std::shared_ptr<GpmState> GpmOf(unsigned index) {
    if (!options_.read_gpm) return nullptr;
    auto& slot = gpm_[index];
    if (!slot) slot = std::make_shared<GpmState>();
    return slot;
  }

  // GPM's first samples of the GPUs that have none, all before the read, so
  // that each GPU's read finds its first sample old enough (kGpmMinInterval)
  // instead of waiting for it in turn. A GPU that hangs here is hung for the
  // read too (and left out of `todo`).
  void PrimeGpm(std::vector<unsigned>& todo, std::map<unsigned, Outcome>& out) {
    std::vector<unsigned> prime;
    for (unsigned i : todo) {
      if (auto state = GpmOf(i); state && state->NeedsPrime()) prime.push_back(i);
    }
    if (prime.empty()) return;
    std::map<unsigned, Outcome> primed;
    ReadGpus(prime, primed, Pass::kPrimeGpm);
    for (auto& [index, outcome] : primed) {
      if (outcome.hung_call.empty()) continue;
      out[index] = std::move(outcome);
      todo.erase(std::remove(todo.begin(), todo.end(), index), todo.end());
    }
  }

  // Reads `todo` on lanes_ workers (read_lanes.h), each GPU in turn on its lane. When a call
  // hangs, its GPU is marked hung, the lane's worker is abandoned, and the
  // lane's GPUs not yet read are read again on fresh workers.
  void ReadGpus(std::vector<unsigned> todo, std::map<unsigned, Outcome>& out, Pass pass) {
    GpuReadOptions read{options_.read_processes, options_.read_nvlink,
                        options_.read_nvlink_topology,
                        ThermalSlowdownFieldId(open_->driver_version),
                        options_.nvlink_peers_refresh};
    // After a hang, the GPUs left are read each on its own worker: when the
    // whole driver hangs, the sample costs two deadlines, not one per GPU.
    // The first read (lanes_ 0) does the same: its speed is not known yet.
    std::size_t lanes_now = lanes_ == 0 ? todo.size() : lanes_;
    while (!todo.empty()) {
      const std::size_t lanes = std::min(lanes_now, todo.size());
      std::vector<std::shared_ptr<Batch>> batches;
      for (std::size_t l = 0; l < lanes; ++l) batches.push_back(std::make_shared<Batch>());
      for (std::size_t k = 0; k < todo.size(); ++k) {
        batches[k % lanes]->indexes.push_back(todo[k]);
      }
      for (std::size_t l = 0; l < lanes; ++l) {
        auto batch = batches[l];
        batch->results.resize(batch->indexes.size());
        std::vector<std::shared_ptr<GpmState>> gpm;
        std::vector<std::shared_ptr<NvLinkPeerCache>> peers;
        for (unsigned index : batch->indexes) {
          gpm.push_back(GpmOf(index));
          peers.push_back(PeersOf(index));
        }
        auto lib = open_->library;
        Lane(l).Submit([lib, batch, read, pass, gpm, peers](CallTracker& tracker) {
          for (std::size_t k = 0; k < batch->indexes.size(); ++k) {
            if (pass == Pass::kPrimeGpm) {
              gpudoctor::PrimeGpm(lib->fn, batch->indexes[k], tracker, *gpm[k],
                                  batch->results[k]);
            } else {
              tracker.TakeCallNs();  // what an earlier GPU's read left
              ReadGpu(lib->fn, batch->indexes[k], read, tracker, batch->results[k],
                      gpm[k].get(), peers[k].get());
              batch->results[k].nvml_call_latency_ms = MedianCallMs(tracker.TakeCallNs());
            }
            // A read during which a call was given up on is never complete.
            if (tracker.abandoned()) break;
            batch->done.store(k + 1);
          }
        });
      }
      todo.clear();
      for (std::size_t l = 0; l < lanes; ++l) {
        Batch& batch = *batches[l];
        const bool finished = lane_workers_[l]->Wait();
        // Complete results are never written again, even by an abandoned
        // job, which never counts the GPU it was reading when it was given up
        // on (CallTracker::End): that GPU is indexes[done].
        const std::size_t done = batch.done.load();
        for (std::size_t k = 0; k < done; ++k) {
          out[batch.indexes[k]].gpu = std::move(batch.results[k]);
        }
        if (finished) continue;
        if (done < batch.indexes.size()) {
          out[batch.indexes[done]].hung_call = lane_workers_[l]->hung_call();
          todo.insert(todo.end(), batch.indexes.begin() + static_cast<std::ptrdiff_t>(done) + 1,
                      batch.indexes.end());
        }
        abandoned_.push_back(std::move(lane_workers_[l]));  // Lane(l) starts a fresh one
      }
      std::sort(todo.begin(), todo.end());
      if (!todo.empty()) lanes_now = todo.size();
    }
  }

  CallWorker& Lane(std::size_t lane) {
    if (lane_workers_.size() <= lane) lane_workers_.resize(lane + 1);
    auto& slot = lane_workers_[lane];
    if (!slot) slot = std::make_unique<CallWorker>(options_.call_deadline);
    return *slot;
  }

  GpuStatus Collect(unsigned index, std::map<unsigned, Outcome>& outcomes) {
    if (auto it = sticky_.find(index); it != sticky_.end()) return it->second;
    Outcome& outcome = outcomes[index];
    GpuStatus gpu;
    if (outcome.hung_call.empty()) {
      gpu = std::move(outcome.gpu);
      if (gpu.state == GpuState::kOk) {
        last_good_[index] = gpu;
      } else {
        KeepIdentity(index, gpu);
        if (gpu.state == GpuState::kLost) sticky_[index] = gpu;
      }
      return gpu;
    }
    // Hung: keep what we knew of the GPU's identity; never call it again.
    if (auto it = last_good_.find(index); it != last_good_.end()) gpu = it->second;
    gpu.index = index;
    gpu.state = GpuState::kHung;
    gpu.state_detail = "the driver did not answer " + outcome.hung_call + " within " +
                       std::to_string(options_.call_deadline.count()) + " ms";
    sticky_[index] = gpu;
    return gpu;
  }

  // A GPU that failed early in a read still carries the name, UUID and bus
  // id it had when it last answered.
  void KeepIdentity(unsigned index, GpuStatus& gpu) const {
    auto it = last_good_.find(index);
    if (it == last_good_.end()) return;
    const GpuStatus& known = it->second;
    if (gpu.name.empty()) gpu.name = known.name;
    if (gpu.uuid.empty()) gpu.uuid = known.uuid;
    if (gpu.pci_bus_id.empty()) gpu.pci_bus_id = known.pci_bus_id;
    if (!gpu.serial) gpu.serial = known.serial;
  }

  NvmlOptions options_;
  std::shared_ptr<DriverOpener> opener_;
  std::shared_ptr<const DriverOpenResult> open_;
  std::size_t lanes_ = 0;  // 0: one per GPU, the first read
  std::vector<std::unique_ptr<CallWorker>> lane_workers_;
  std::vector<std::unique_ptr<CallWorker>> abandoned_;  // stuck in the driver
  std::map<unsigned, GpuStatus> sticky_;     // lost or hung: not called again
  std::map<unsigned, GpuStatus> last_good_;  // identity for later reports
  // GPM samples per GPU, kept from one Sample() to the next; shared with the
  // read jobs, which an abandoned worker may still run.
  std::map<unsigned, std::shared_ptr<GpmState>> gpm_;
  // NVLink P2P matrices per GPU, likewise (options_.nvlink_peers_refresh).
  std::map<unsigned, std::shared_ptr<NvLinkPeerCache>> peer_caches_;
};

}  // namespace

std::unique_ptr<NvmlSession> NvmlSession::Open(const NvmlOptions& options) {
  return std::make_unique<Session>(options);
}

}  // namespace gpudoctor
