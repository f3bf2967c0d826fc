// The store's file under a running agent: when its data directory is
// deleted (or the file replaced), SQLite goes on writing into the unlinked
// file and everything recorded since would be lost when the agent stops.
// Checked before writes, at most every few seconds: the agent then reports
// the store unhealthy (StoreStats::file_gone, /healthz 503) and, as soon as
// the directory can be made again, copies the whole open database into a
// new file there (SQLite's online backup), locks the new directory and
// records on into it: nothing recorded is lost.
#include <sqlite3.h>
#include <sys/stat.h>

#include "core/data_dir.h"
#include "store/store_sqlite.h"

namespace gpudoctor {
namespace store_presence_local {

constexpr std::int64_t kCheckEveryMs = 2000;

}  // namespace store_presence_local
using namespace store_presence_local;

void SqliteStore::RememberFile() {
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    file_dev_ = st.st_dev;
    file_ino_ = st.st_ino;
  }
}

Status SqliteStore::CheckFileStillThere(std::int64_t now_ms) {
  if (options_.read_only || file_ino_ == 0) return OkStatus();
  if (!file_gone_ && now_ms < presence_check_at_ms_) return OkStatus();
  presence_check_at_ms_ = now_ms + kCheckEveryMs;
  struct stat st {};
  const bool there = ::stat(path_.c_str(), &st) == 0;
  if (there && st.st_dev == file_dev_ && st.st_ino == file_ino_) return OkStatus();
  file_gone_ = true;
  if (there) {
    gone_error_ = path_ +
                  ": replaced by another file under the running agent; recording on into "
                  "the file it opened (lost when the agent stops) until that file is "
                  "moved away";
    return Error{ErrorCode::kIo, gone_error_};
  }
  auto fail = [&](const std::string& why) -> Status {
    gone_error_ = path_ + ": deleted under the running agent (its data directory removed?); " +
                  why +
                  "; recording on into the deleted file, which is lost when the agent "
                  "stops, and retrying";
    return Error{ErrorCode::kIo, gone_error_};
  };
  if (auto made = EnsureDataDir(options_.data_dir, true); !made) {
    return fail("cannot make it again: " + made.error().message);
  }
  auto lock = LockStoreDir(options_.data_dir);
  if (!lock) return fail(lock.error().message);
  auto fresh = Db::Open(path_, false);
  if (!fresh) return fail(fresh.error().message);
  sqlite3_backup* copy = sqlite3_backup_init((*fresh)->handle(), "main", db_->handle(), "main");
  if (copy == nullptr) {
    return fail("cannot copy the store: " + std::string(sqlite3_errmsg((*fresh)->handle())));
  }
  const int rc = sqlite3_backup_step(copy, -1);
  sqlite3_backup_finish(copy);
  if (rc != SQLITE_DONE) {
    ::unlink(path_.c_str());
    return fail("cannot copy the store: " + std::string(sqlite3_errstr(rc)));
  }
  db_ = std::move(*fresh);
  lock_ = std::move(*lock);
  if (auto prepared = Prepare(); !prepared) return fail(prepared.error().message);
  if (auto loaded = LoadState(); !loaded) return fail(loaded.error().message);
  RememberFile();
  file_gone_ = false;
  writes_stopped_ = false;
  gone_error_.clear();
  return OkStatus();
}

}  // namespace gpudoctor
