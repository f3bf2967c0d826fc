// Live kernel messages from /dev/kmsg (below ctx.root): a one-shot read of
// the ring buffer and a follower for the agent that never reads a record
// twice and counts the records it lost.
//
// /dev/kmsg gives one record per read(): "prio,seq,usec,flags;message\n",
// then dictionary lines (" KEY=VALUE\n") that we skip. EAGAIN means no more
// records; EPIPE means records were overwritten before we read them. A
// regular file with the same content also works (tests); its end counts as
// EAGAIN. Times: monotonic µs -> wall time with /proc/stat btime.
// Never throws; failures come back in `status`. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collect_context.h"
#include "core/kernel_event.h"

namespace gpudoctor {

struct KmsgRecord {
  int level = 6;
  std::uint64_t seq = 0;
  std::uint64_t usec = 0;  // since boot
  std::string_view message;
};

// One record line ("6,1234,5678,-;text"); nullopt when it is not one
// (dictionary lines start with a space and are not records).
std::optional<KmsgRecord> ParseKmsgRecord(std::string_view line);

// Boot time from /proc/stat "btime" below the root.
Result<WallTime> ReadBootTime(const CollectContext& ctx);

struct KmsgBatch {
  std::vector<LogLine> lines;  // ref = {"/dev/kmsg", 0}, time and monotonic_s set
  SourceStatus status;
  std::uint64_t lost = 0;  // records overwritten before they were read
};

class KmsgFollower {
 public:
  explicit KmsgFollower(CollectContext ctx);
  ~KmsgFollower();
  KmsgFollower(const KmsgFollower&) = delete;
  KmsgFollower& operator=(const KmsgFollower&) = delete;

  // Records that arrived since the last Poll (the whole buffer the first time).
  KmsgBatch Poll();
  std::optional<std::uint64_t> last_seq() const { return last_seq_; }
  std::uint64_t lost_total() const { return lost_total_; }

 private:
  void Accept(std::string_view line, KmsgBatch& batch);

  CollectContext ctx_;
  int fd_ = -1;
  std::optional<WallTime> boot_;
  std::optional<std::uint64_t> last_seq_;
  std::uint64_t lost_total_ = 0;
  std::string partial_;  // a regular file may end mid-record
};

// Everything now in the kernel ring buffer.
KmsgBatch ReadKmsg(const CollectContext& ctx);

}  // namespace gpudoctor
