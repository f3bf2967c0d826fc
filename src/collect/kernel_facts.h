// Kernel-log evidence for a time window: events extracted from the systemd
// journal (preferred: it has real times and older boots) or, when the journal
// cannot be read, the kernel ring buffer (/dev/kmsg), plus any log files the
// user names. Never fails: unreadable sources are listed with the reason.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "core/kernel_event.h"

namespace gpudoctor {

// A log file whose lines mention NVRM or Xid but none of which could be
// read as an event (an unknown wrapper, a format not yet known).
struct UndecodedLog {
  std::string file;
  std::size_t lines = 0;       // lines mentioning NVRM or Xid
  std::size_t first_line = 0;  // 1-based line (or record) of the first
  std::string first_text;      // its text, at most 300 bytes
};

struct KernelFacts {
  std::vector<KernelEvent> events;    // in time order where known
  std::vector<UndecodedLog> undecoded;
  std::vector<SourceStatus> sources;  // journal, /dev/kmsg, each file
  std::uint64_t kmsg_records_lost = 0;
  // NVML's Xid event set was watched over the window: its Xids are among
  // `events` (the kernel log's own line for each counted once, xid_paths.h).
  bool nvml_xid_events = false;
  // Occurrences of further causes a scanner left out at its kMaxKernelEvents
  // (parse/kernel_events.h).
  std::size_t events_left_out = 0;
};

struct KernelFactsOptions {
  bool live = true;  // read the journal / kmsg under ctx.root
  std::vector<std::filesystem::path> files;  // --kernel-log FILE
  // This machine's PCI tree (AerOwnerOfBus): which GPU an AER report from
  // the live log concerns. Not applied to files, which may come from
  // another machine.
  std::map<std::string, std::string> aer_owner;
};

KernelFacts CollectKernelFacts(const CollectContext& ctx, const KernelFactsOptions& options);

// Drops events whose known time is before `from` (events without a time stay).
void KeepWindow(std::vector<KernelEvent>& events, WallTime from);

}  // namespace gpudoctor
