// Kernel messages and fabric manager entries from the systemd journal
// (sd-journal), for the time window [ctx.now - ctx.since, ctx.now].
//
// Entries: _TRANSPORT=kernel, SYSLOG_IDENTIFIER=nv-fabricmanager,
// _SYSTEMD_UNIT=nvidia-fabricmanager.service and UNIT=nvidia-fabricmanager.service
// (systemd's own lines about the unit). Kernel entries become their MESSAGE;
// others "ident[pid]: MESSAGE". Times are the journal's realtime stamps.
//
// With ctx.root == "/" the local journal is opened; otherwise
// <root>/var/log/journal, and when that does not exist the status says
// "not available". Never throws. Not thread-safe.
#pragma once

#include <cstddef>
#include <vector>

#include "collect/collect_context.h"
#include "core/kernel_event.h"

namespace gpudoctor {

struct JournalBatch {
  std::vector<LogLine> lines;  // ref = {"journal", 0}
  SourceStatus status;
  bool truncated = false;  // stopped at max_entries
};

JournalBatch ReadJournalKernel(const CollectContext& ctx, std::size_t max_entries = 500000);

}  // namespace gpudoctor
