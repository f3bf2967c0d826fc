// The agent's embedded store: one SQLite database (WAL mode) in the data
// directory. GPU samples are kept per GPU in compressed, time-ordered chunks
// (most fields barely change, so they compress to almost nothing); recent
// samples sit in a small pending table until a chunk is sealed, so a kill -9
// loses at most the sample being written. Per-minute min/avg/max roll-ups,
// kernel/NVML events and finding intervals live beside them. Retention and a
// size bound keep it fit for a node's disk.
//
// Thread-safety: one Store object per thread; the agent writes from one
// thread. Several processes may read while the agent writes (WAL).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/kernel_event.h"
#include "core/metric_summary.h"
#include "core/result.h"
#include "facts/diagnosis_input.h"
#include "facts/latch.h"
#include "facts/timeline.h"

namespace gpudoctor {

struct StoreOptions {
  std::string data_dir;            // the database is data_dir + "/gpudoctor.db"
  bool read_only = false;          // `report`: never writes, never locks
  int raw_retention_days = 14;     // raw samples
  int rollup_retention_days = 180; // per-minute roll-ups, events, findings
  std::int64_t max_store_bytes = 1024LL * 1024 * 1024;  // --max-store-mb
  // Test hook: SQLite's max_page_count (0: none), so that a full disk
  // (SQLITE_FULL) can be provoked without filling one.
  std::int64_t max_pages = 0;
};

struct StoreStats {
  std::int64_t file_bytes = 0;       // database + WAL on disk
  std::int64_t raw_samples = 0;      // GPU-samples held raw (sealed + pending)
  std::int64_t rdma_readings = 0;    // RDMA port readings held (sealed + pending)
  std::int64_t rollup_minutes = 0;   // GPU-minutes of roll-ups
  std::int64_t events = 0;
  std::int64_t finding_intervals = 0;
  std::optional<WallTime> oldest;    // oldest raw or roll-up time
  std::optional<WallTime> newest;
  bool writes_stopped = false;       // disk full or size bound: see last_error
  // The store's file was deleted (its data directory removed) or replaced
  // under the running agent: unhealthy until it is made again.
  bool file_gone = false;
  std::string last_error;            // one line, empty when writes succeed
};

// A window read back for `report`.
struct StoredWindow {
  // Readings per GPU in time order (identity fields filled from the GPU's
  // last known identity). For long windows the readings are per-minute
  // averages instead of raw samples, so that a day reads fast; `downsampled`
  // says so.
  std::vector<GpuSeries> gpus;
  bool downsampled = false;
  // Exact min/avg/max per GPU (bus id) per numeric status field over the
  // window, from raw samples and roll-ups.
  std::map<std::string, std::map<std::string, MetricSummary>> summaries;
  std::vector<KernelEvent> events;   // in time order
  Timeline timeline;                 // finding intervals overlapping the window, throttle time
  std::vector<LatchedFinding> latched;  // latched and not acknowledged at the window's end
  std::optional<WallTime> first_sample;
  std::optional<WallTime> last_sample;
  // The RDMA port readings in the window, oldest first (read_at set). A
  // window with more than kMaxRdmaReadings keeps evenly spaced readings plus
  // every reading in which a port's state changed and the one before it, so
  // that no flap or drop is lost; `rdma_downsampled` says so.
  std::vector<RdmaFacts> rdma;
  bool rdma_downsampled = false;
  // Parts of the window whose stored bytes do not decode (a chunk or a day of
  // roll-ups damaged on disk): left out, so that the rest of the window
  // still reads.
  struct DamagedPart {
    std::string pci_bus_id;
    std::string uuid;
    unsigned index = 0;    // the GPU's index as last recorded
    std::string message;  // one line naming the file, the GPU and the time span
  };
  std::vector<DamagedPart> damaged;
};

// Readings of the RDMA ports a window brings back at most, beside those at
// state changes.
inline constexpr std::size_t kMaxRdmaReadings = 720;

// The database's name in the data directory.
inline constexpr const char* kStoreFile = "gpudoctor.db";

// A note when `db_path`-wal ends inside a frame (a write cut short by a crash
// or a power loss, or a truncated copy): SQLite ignores the incomplete frame
// and every commit in it is lost. One line naming the file, the bytes and
// what was kept; empty when the WAL is whole or absent. Reads the header only.
std::string WalDamageNote(const std::string& db_path);

// Moves data_dir/gpudoctor.db, and its -wal and -shm, aside as
// gpudoctor.db.corrupt-<UTC time> (-wal, -shm beside it, so that sqlite3
// opens the pair), keeping them. Returns the new path of the database.
Result<std::string> MoveDamagedStoreAside(const std::string& data_dir, WallTime now);

class Store {
 public:
  virtual ~Store() = default;

  // Opens (creating when writable) data_dir/gpudoctor.db. A writable store
  // takes an exclusive lock on data_dir/agent.lock: a second writer gets an
  // error naming the pid holding it. A corrupt or unreadable database is a
  // one-line error naming the file; nothing is deleted.
  static Result<std::unique_ptr<Store>> Open(const StoreOptions& options);

  // Records one reading of every GPU. Sealing a chunk, roll-ups and
  // retention happen here as they fall due. On disk-full or the size bound
  // the store stops writing (Stats().writes_stopped) and returns the error;
  // later calls retry now and then.
  virtual Status AppendSample(WallTime time, const SystemStatus& status) = 0;
  // Records one reading of the RDMA ports (state, rate, counters), sealed
  // into compressed chunks like GPU samples and kept as long as they. A
  // reading without devices is not recorded.
  virtual Status AppendRdma(WallTime time, const RdmaFacts& facts) = 0;
  virtual Status AppendEvent(const KernelEvent& event) = 0;
  // Starts or extends an interval: the same (id, gpus) with no end recorded
  // is updated (severity raised to the worst, title refreshed); otherwise a
  // new interval starts at `time`.
  virtual Status FindingSeen(const FindingInterval& finding, WallTime time) = 0;
  // Closes the open interval of (id, gpus) at `time`.
  virtual Status FindingCleared(const std::string& finding_id,
                                      const std::vector<std::string>& gpus, WallTime time) = 0;
  // Seals pending samples into a chunk now (on SIGTERM).
  virtual Status Flush() = 0;
  // The time of the newest GPU sample stored; nullopt when there is none.
  virtual Result<std::optional<WallTime>> LastSampleTime() = 0;
  // Ends every finding interval still open at `at` (at its start when that
  // is later): a run that was killed or lost its power never closed them.
  // Returns how many it ended.
  virtual Result<std::int64_t> CloseOpenFindings(WallTime at) = 0;
  // How many events of `kind` (KernelEventKindName) the store holds from
  // `from` to `to`, both included.
  virtual Result<std::int64_t> CountEvents(KernelEventKind kind, WallTime from, WallTime to) = 0;

  // The escalation ledger (agent/escalation.h). `gpu_identity` is the GPU's
  // UUID, or its key when NVML never gave one. Records that `cause` was seen
  // on the GPU at `time` during boot `boot_id`: once per boot, the first time.
  virtual Status RecordOccurrence(const std::string& gpu_identity, const std::string& gpu_key,
                                  const RecurringCause& cause, const std::string& boot_id,
                                  WallTime time) = 0;
  // The occurrences of `cause` on the GPU from `from`, and only after the
  // last acknowledgement of its latch: an acknowledged GPU starts afresh.
  virtual Result<std::vector<Occurrence>> Occurrences(const std::string& gpu_identity,
                                                      const RecurringCause& cause,
                                                      WallTime from) = 0;
  // Latches `latch` (its uuid the GPU's identity as above) unless the same
  // cause is latched and unacknowledged on that GPU already, and records a
  // `latched` event. Returns whether it latched now.
  virtual Result<bool> Latch(const LatchedFinding& latch) = 0;
  // The latches not acknowledged at `at`, oldest first.
  virtual Result<std::vector<LatchedFinding>> OpenLatches(WallTime at) = 0;

  virtual Result<StoredWindow> ReadWindow(WallTime from, WallTime to,
                                          const std::vector<std::string>& gpu_bus_ids) = 0;
  virtual StoreStats Stats() = 0;
};

}  // namespace gpudoctor
