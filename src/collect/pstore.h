// Kernel logs a crash left behind for the next boot: the pstore records
// (/sys/fs/pstore/dmesg-*, kept by the firmware or RAM across the reboot)
// and the copies systemd-pstore moves into /var/lib/systemd/pstore at boot.
// A panic or oops there is the reason the machine restarted. Read below
// ctx.root; records older than `from` (by their file's time) are left out,
// since systemd keeps them for good. Never fails: what could not be read is
// a SourceStatus.
#pragma once

#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "core/kernel_event.h"
#include "facts/source_status.h"

namespace gpudoctor {

struct PstoreRecord {
  std::string path;  // as the user knows it: "/var/lib/systemd/pstore/1733.../dmesg.txt"
  std::vector<LogLine> lines;
};

struct PstoreRecords {
  std::vector<PstoreRecord> records;
  std::vector<SourceStatus> sources;  // one per directory, and per record that failed
};

PstoreRecords ReadPstore(const CollectContext& ctx, WallTime from);

}  // namespace gpudoctor
