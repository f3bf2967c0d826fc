#include "collect/kmsg.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "parse/text_cursor.h"

namespace gpudoctor {

std::optional<KmsgRecord> ParseKmsgRecord(std::string_view line) {
  TextCursor c(line);
  std::uint64_t prio = 0;
  KmsgRecord r;
  if (!(c.Uint64(prio) && c.Lit(',') && c.Uint64(r.seq) && c.Lit(',') && c.Uint64(r.usec))) {
    return std::nullopt;
  }
  auto semi = line.find(';', c.pos());
  if (semi == std::string_view::npos) return std::nullopt;
  r.level = static_cast<int>(prio & 7);
  r.message = line.substr(semi + 1);
  while (!r.message.empty() && r.message.back() == '\n') r.message.remove_suffix(1);
  return r;
}

Result<WallTime> ReadBootTime(const CollectContext& ctx) {
  auto stat = ReadRootFile(ctx, "/proc/stat", 1 << 20);
  if (!stat) return stat.error();
  std::string_view s = *stat;
  auto at = s.find("\nbtime ");
  if (at == std::string_view::npos) return Error{ErrorCode::kCorrupt, "/proc/stat: no btime line"};
  TextCursor c(s, at + 7);
  std::uint64_t secs = 0;
  if (!c.Uint64(secs)) return Error{ErrorCode::kCorrupt, "/proc/stat: bad btime"};
  return WallTime(std::chrono::seconds(secs));
}

KmsgFollower::KmsgFollower(CollectContext ctx) : ctx_(std::move(ctx)) {}

KmsgFollower::~KmsgFollower() {
  if (fd_ >= 0) ::close(fd_);
}

void KmsgFollower::Accept(std::string_view line, KmsgBatch& batch) {
  auto r = ParseKmsgRecord(line);
  if (!r) return;                                 // dictionary line or noise
  if (last_seq_ && r->seq <= *last_seq_) return;  // already seen
  if (last_seq_ && r->seq > *last_seq_ + 1) batch.lost += r->seq - *last_seq_ - 1;
  last_seq_ = r->seq;
  LogLine out;
  out.text = std::string(r->message);
  out.ref = SourceRef{"/dev/kmsg", 0};
  out.monotonic_s = static_cast<double>(r->usec) / 1e6;
  if (boot_) out.time = *boot_ + std::chrono::microseconds(r->usec);
  batch.lines.push_back(std::move(out));
}

KmsgBatch KmsgFollower::Poll() {
  KmsgBatch batch;
  batch.status.source = "/dev/kmsg";
  if (fd_ < 0) {
    fd_ = ::open(UnderRoot(ctx_, "/dev/kmsg").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      batch.status.why = ErrnoError(errno, "/dev/kmsg").message;
      return batch;
    }
    if (auto boot = ReadBootTime(ctx_)) boot_ = *boot;
  }
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EPIPE) continue;  // overwritten: the next read resumes; seq shows the gap
    if (n < 0 && errno != EAGAIN) {
      batch.status.why = ErrnoError(errno, "/dev/kmsg").message;
      break;
    }
    if (n <= 0) break;  // EAGAIN on the device, end of a regular file
    partial_.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0, nl;
    while ((nl = partial_.find('\n', start)) != std::string::npos) {
      Accept(std::string_view(partial_).substr(start, nl - start), batch);
      start = nl + 1;
    }
    partial_.erase(0, start);
  }
  lost_total_ += batch.lost;
  batch.status.available = batch.status.why.empty();
  return batch;
}

KmsgBatch ReadKmsg(const CollectContext& ctx) {
  KmsgFollower follower(ctx);
  return follower.Poll();
}

}  // namespace gpudoctor
