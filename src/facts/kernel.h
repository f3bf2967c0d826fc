// Kernel-log evidence of a time window: the events (Xid, SXid, NVRM, AER,
// NCCL, OOM, ... as core/kernel_event.h defines them), the log files that
// mention the driver in a form not understood, and the sources read
// (KernelFacts). collect/kernel_facts.h and analyze fill them; rules and
// renderers read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/kernel_event.h"
#include "facts/source_status.h"

namespace gpudoctor {

// A log file whose lines mention NVRM or Xid but none of which could be
// read as an event (an unknown wrapper, a format not yet known).
struct UndecodedLog {
  std::string file;
  std::size_t lines = 0;       // lines mentioning NVRM or Xid
  std::size_t first_line = 0;  // 1-based line (or record) of the first
  std::string first_text;      // its text, at most 300 bytes
};

// The kernel-log events of a window and where they came from.
struct KernelFacts {
  std::vector<KernelEvent> events;    // in time order where known
  std::vector<UndecodedLog> undecoded;
  std::vector<SourceStatus> sources;  // journal, /dev/kmsg, each file
  std::uint64_t kmsg_records_lost = 0;
  // NVML's Xid event set was watched over the window: its Xids are among
  // `events` (the kernel log's own line for each counted once, collect/xid_paths.h).
  bool nvml_xid_events = false;
  // Occurrences of further causes a scanner left out at its kMaxKernelEvents
  // (parse/kernel_events.h).
  std::size_t events_left_out = 0;
};

}  // namespace gpudoctor
