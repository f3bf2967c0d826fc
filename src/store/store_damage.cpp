// A damaged store: the note on a torn write-ahead log, and moving a damaged
// database aside so that the agent can record into a fresh one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>

#include "core/time_format.h"
#include "store/store.h"

namespace gpudoctor {
namespace {

constexpr std::size_t kWalHeaderBytes = 32;
constexpr std::size_t kWalFrameHeaderBytes = 24;

std::uint32_t BigEndian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// "20261202T061502Z": sortable, no characters a shell or SQLite minds.
std::string CompactUtc(WallTime t) {
  std::string s = FormatRfc3339(t);  // 2026-12-02T06:15:02Z (maybe with fraction)
  std::string out;
  for (char c : s) {
    if (c == '.') break;
    if (c != '-' && c != ':') out += c;
  }
  if (out.empty() || out.back() != 'Z') out += 'Z';
  return out;
}

}  // namespace

std::string WalDamageNote(const std::string& db_path) {
  const std::string path = db_path + "-wal";
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  std::array<unsigned char, kWalHeaderBytes> header{};
  const bool stat_ok = fstat(fd, &st) == 0;
  const ssize_t n = stat_ok ? pread(fd, header.data(), header.size(), 0) : -1;
  close(fd);
  if (!stat_ok || st.st_size == 0) return "";
  const auto size = static_cast<std::size_t>(st.st_size);
  if (n != static_cast<ssize_t>(header.size())) {
    return path + ": the write-ahead log is cut short (" + std::to_string(size) +
           " bytes, less than its header): what it held since the last checkpoint is lost";
  }
  const std::uint32_t magic = BigEndian32(header.data());
  const std::uint32_t page = BigEndian32(header.data() + 8);
  const bool page_ok = page >= 512 && page <= 65536 && (page & (page - 1)) == 0;
  if ((magic != 0x377f0682 && magic != 0x377f0683) || !page_ok) {
    return path + ": not a write-ahead log SQLite can read (bad header): what it held since the "
                  "last checkpoint is lost";
  }
  const std::size_t frame = kWalFrameHeaderBytes + page;
  const std::size_t tail = (size - kWalHeaderBytes) % frame;
  if (tail == 0) return "";
  return path + ": the write-ahead log ends inside a frame (" + std::to_string(size) +
         " bytes, " + std::to_string(tail) + " past its last whole frame of " +
         std::to_string(frame) + "): the write cut short there is lost; every commit before it "
         "was read";
}

Result<std::string> MoveDamagedStoreAside(const std::string& data_dir, WallTime now) {
  const std::string db = data_dir + "/" + kStoreFile;
  std::string aside = db + ".corrupt-" + CompactUtc(now);
  struct stat st {};
  for (int i = 1; stat(aside.c_str(), &st) == 0 && i < 100; ++i) {
    aside = db + ".corrupt-" + CompactUtc(now) + "-" + std::to_string(i);
  }
  // The database last: while it is in place, a crash half-way leaves a store
  // that is still recognised as damaged at the next start.
  for (const char* suffix : {"-wal", "-shm", ""}) {
    const std::string from = db + suffix;
    if (stat(from.c_str(), &st) != 0) continue;
    if (std::rename(from.c_str(), (aside + suffix).c_str()) != 0) {
      return ErrnoError(errno, from + " (moving the damaged store aside to " + aside + suffix + ")");
    }
  }
  return aside;
}

}  // namespace gpudoctor
