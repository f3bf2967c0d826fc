#include "collect/pstore.h"

#include <filesystem>
#include <system_error>

#include "collect/kernel_log_files.h"

namespace gpudoctor {
namespace {
namespace pstore_files {

namespace fs = std::filesystem;

// A record is at most a few hundred KiB (the firmware's or RAM's space).
constexpr std::size_t kRecordLimitBytes = 4u << 20;
constexpr std::size_t kMaxRecords = 64;

WallTime FileTime(const fs::file_time_type& t) {
  return std::chrono::time_point_cast<WallTime::duration>(std::chrono::file_clock::to_sys(t));
}

void ReadDir(const CollectContext& ctx, const std::string& dir, WallTime from, int depth,
             PstoreRecords& out) {
  std::error_code ec;
  const fs::path real = UnderRoot(ctx, dir);
  fs::directory_iterator it(real, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    if (depth == 0) out.sources.push_back({dir, false, ec.message()});
    return;
  }
  if (depth == 0) out.sources.push_back({dir, true, {}});
  for (; it != fs::directory_iterator() && out.records.size() < kMaxRecords; it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    std::string shown = dir;
    shown.append("/").append(name);
    // Links are not followed: the directory may hold what others wrote.
    if (entry.is_symlink(ec)) continue;
    if (entry.is_directory(ec)) {
      if (depth < 2) ReadDir(ctx, shown, from, depth + 1, out);
      continue;
    }
    if (!entry.is_regular_file(ec) || name.rfind("dmesg", 0) != 0) continue;
    auto mtime = entry.last_write_time(ec);
    if (ec || FileTime(mtime) < from) continue;
    auto lines = ReadKernelLogFile(entry.path(), kRecordLimitBytes);
    if (!lines) {
      out.sources.push_back({shown, false, lines.error().message});
      continue;
    }
    for (LogLine& l : *lines) l.ref.file = shown;
    out.records.push_back(PstoreRecord{shown, std::move(*lines)});
  }
}

}  // namespace pstore_files
}  // namespace

PstoreRecords ReadPstore(const CollectContext& ctx, WallTime from) {
  PstoreRecords out;
  for (const char* dir : {"/sys/fs/pstore", "/var/lib/systemd/pstore"}) {
    pstore_files::ReadDir(ctx, dir, from, 0, out);
  }
  return out;
}

}  // namespace gpudoctor
