// The tests' oracle for the kernel-log scan: every line of a log fed to the
// scan's rules (src/parse/kernel_scan_rules.h) in turn, with nothing in
// front of them and nothing kept for speed: no needle search over the
// buffer and no candidate lines, no memo of the lines' parse or of the
// catalog's answers, no template of a flood's Xid lines, no shortcut for
// saturated causes. The production scan (KernelEventScanner, fed by
// ScanKernelLogBuffer or ScanKernelLogAhead) must find exactly what this
// finds: every field of every event, the counts left out, the GPU line
// statistics and nvidia-smi's messages. Not part of the gpudoctor binary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "parse/kernel_events.h"

namespace gpudoctor::test {

struct KernelScanResult {
  std::vector<KernelEvent> events;
  std::size_t left_out = 0;  // events_left_out()
  GpuLineStats gpu_lines;
  std::vector<NvsmiMessage> nvsmi_messages;
};

// The lines of `text` ('\n' ends a line; a last line without one counts),
// numbered from 1 in `file`, each fed to the rules alone.
KernelScanResult ReferenceKernelScan(std::string_view text, const std::string& file,
                                     const ExtractOptions& opts);

}  // namespace gpudoctor::test
