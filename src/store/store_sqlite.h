// The SQLite implementation of Store (internal to src/store). Its methods are
// spread over store_sqlite.cpp (open, schema, writes), store_seal.cpp
// (pending samples into chunks and roll-ups), store_retention.cpp (retention,
// compaction, size bound) and store_read.cpp (ReadWindow, Stats).
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>

#include "store/rollup.h"
#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/store_lock.h"

namespace gpudoctor {

// 1: the first layout; 2: events.gpu_number (the driver's "GPUn" of GSP
// lines); 3: the RDMA port readings (rdma_pending, rdma_chunks); 4: each
// finding interval's recovery action; 5: the escalation ledger (occurrences)
// and the latched findings with their acknowledgements (latches). An older
// store is upgraded in place when opened for writing and read as it is
// otherwise (without what it lacks).
inline constexpr int kStoreSchemaVersion = 5;
// Samples are sealed into a chunk per GPU per this stretch of wall-clock
// time (aligned, so a minute never spans two chunks unless Flush cut it).
inline constexpr std::int64_t kChunkSpanMs = 10 * 60'000;
inline constexpr std::int64_t kMaintenanceEveryMs = 60'000;
inline constexpr std::int64_t kRetryWritesEveryMs = 60'000;
inline constexpr std::int64_t kDayMs = 86'400'000;
inline constexpr std::int64_t kHourMs = 3'600'000;

std::int64_t ToMs(WallTime t);
WallTime FromMs(std::int64_t ms);
// A store SQLite cannot read as it is: `what` (one line naming the file)
// plus that it was left alone and what to do.
Error DamagedStore(const std::string& what);

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> OpenStore(const StoreOptions& options);
  ~SqliteStore() override;

  Status AppendSample(WallTime time, const SystemStatus& status) override;
  Status AppendRdma(WallTime time, const RdmaFacts& facts) override;
  Status AppendEvent(const KernelEvent& event) override;
  Status FindingSeen(const FindingInterval& finding, WallTime time) override;
  Status FindingCleared(const std::string& finding_id, const std::vector<std::string>& gpus,
                              WallTime time) override;
  Status Flush() override;
  Result<std::optional<WallTime>> LastSampleTime() override;
  Result<std::int64_t> CloseOpenFindings(WallTime at) override;
  Result<std::int64_t> CountEvents(KernelEventKind kind, WallTime from, WallTime to) override;
  Status RecordOccurrence(const std::string& gpu_identity, const std::string& gpu_key,
                          const RecurringCause& cause, const std::string& boot_id,
                          WallTime time) override;
  Result<std::vector<Occurrence>> Occurrences(const std::string& gpu_identity,
                                              const RecurringCause& cause, WallTime from) override;
  Result<bool> Latch(const LatchedFinding& latch) override;
  Result<std::vector<LatchedFinding>> OpenLatches(WallTime at) override;
  Result<StoredWindow> ReadWindow(WallTime from, WallTime to,
                                  const std::vector<std::string>& gpu_bus_ids) override;
  StoreStats Stats() override;

  // Retention, roll-up compaction and the size bound as of `now_ms`; runs
  // from AppendSample once a minute. Public for tests.
  Status RunMaintenance(std::int64_t now_ms);

 private:
  struct GpuRow {
    std::int64_t id = 0;
    std::string bus_id;
    GpuStatus identity;  // index, name, uuid, serial as last recorded
  };
  struct PendingState {
    std::int64_t first_ms = 0;
    std::int64_t count = 0;
  };

  SqliteStore(StoreOptions options, std::unique_ptr<Db> db, std::unique_ptr<StoreDirLock> lock);
  Status Prepare();
  Status LoadState();

  // Writes run in one transaction; a disk error stops writes (see
  // writes_stopped_) and is returned.
  template <typename F>
  Status Transaction(std::int64_t now_ms, F&& body);
  Status NoteWriteError(const Error& error, std::int64_t now_ms);
  Result<StoredWindow> ReadWindowOnce(WallTime from, WallTime to,
                                      const std::vector<std::string>& gpu_bus_ids);
  // A chunk or roll-up blob that does not decode: one line naming the file,
  // the GPU and the span it held, saying it is left out.
  std::string DamagedPart(const std::string& gpu, std::int64_t from_ms, std::int64_t to_ms,
                          const Error& error) const;
  Status CheckWritable(std::int64_t now_ms);
  // store_presence.cpp: the file as opened (device, inode); whether it is
  // still at path_, and its recovery into a new file when it was deleted.
  void RememberFile();
  Status CheckFileStillThere(std::int64_t now_ms);

  Result<std::int64_t> GpuIdFor(const GpuStatus& gpu);
  Status SealGpu(std::int64_t gpu_id);
  // The pending samples of a GPU between the times, as one set.
  Result<ColumnSet> ReadPending(std::int64_t gpu_id, std::int64_t from_ms, std::int64_t to_ms);
  Status SealDue(std::int64_t now_ms);
  // The RDMA readings: pending rows into one chunk (store_rdma.cpp), and
  // the window's readings, bounded (see StoredWindow::rdma).
  Status SealRdma();
  Status ReadRdma(std::int64_t from_ms, std::int64_t to_ms, StoredWindow& window);
  Status ApplyRetention(std::int64_t now_ms);
  Status CompactRollups(std::int64_t now_ms);
  Status TrimRollups(std::int64_t cut_ms, std::int64_t now_ms);
  Status InsertRollups(std::int64_t gpu_id, const std::vector<MinuteAgg>& minutes);
  Status EnforceSizeBound(std::int64_t now_ms);
  std::int64_t FileBytes() const;
  Status ReadEvents(std::int64_t from_ms, std::int64_t to_ms,
                          const std::vector<std::string>& gpu_bus_ids,
                          std::vector<KernelEvent>& out);
  Status ReadFindings(std::int64_t from_ms, std::int64_t to_ms,
                            const std::vector<std::string>& gpu_bus_ids,
                            std::vector<FindingInterval>& out);

  StoreOptions options_;
  std::string path_;
  std::unique_ptr<Db> db_;
  std::unique_ptr<StoreDirLock> lock_;
  std::int64_t schema_version_ = kStoreSchemaVersion;  // of the file, after Prepare
  std::map<std::string, GpuRow> gpus_;            // by bus id
  std::map<std::int64_t, PendingState> pending_;  // by gpu id
  PendingState rdma_pending_;
  std::int64_t last_maintenance_ms_ = 0;
  bool writes_stopped_ = false;
  bool size_stopped_ = false;
  std::int64_t retry_at_ms_ = 0;
  std::string last_error_;
  dev_t file_dev_ = 0;
  ino_t file_ino_ = 0;
  bool file_gone_ = false;
  std::string gone_error_;  // what Stats() says while file_gone_
  std::int64_t presence_check_at_ms_ = 0;
};

}  // namespace gpudoctor

namespace gpudoctor {

// The rows of a bound SELECT of one pending blob each (GPU samples, RDMA
// readings), in order, as one set; a row that does not decode is skipped.
Result<ColumnSet> ConcatPendingBlobs(Statement& select);

template <typename F>
Status SqliteStore::Transaction(std::int64_t now_ms, F&& body) {
  if (auto begin = db_->Exec("BEGIN IMMEDIATE"); !begin)
    return NoteWriteError(begin.error(), now_ms);
  Status result = body();
  if (result) result = db_->Exec("COMMIT");
  if (!result) {
    (void)db_->Exec("ROLLBACK");
    return NoteWriteError(result.error(), now_ms);
  }
  return OkStatus();
}

}  // namespace gpudoctor
