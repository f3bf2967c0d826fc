// Kernel-log scanning on two threads, as `zcat | grep` splits its work over
// a pipe: this thread reads the log and finds each buffer's candidate lines
// (FindKernelCandidates: the needle search and the lines' parse, which need
// no scanner state), a worker feeds them to the scanner in order, a buffer
// or two behind. The events are those StreamLines + ScanKernelLogBuffer give
// over the same bytes: the same buffers, fed in the same order to one
// scanner. A log of one buffer, or a process allowed one CPU, is scanned on
// this thread alone. Memory: kScanAheadBuffers buffers of chunk_bytes and
// their candidate lists. The worker is joined on every path.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

inline constexpr std::size_t kScanAheadBuffers = 4;

// `read` fills up to n bytes (0 at the end); `inspect` sees each buffer of
// whole lines on this thread before it is scanned (may be empty); `name`
// names the log in the scanner's events and in errors. Returns the bytes
// read, or read's error once the buffers before it are scanned. An
// exception of the scanner is rethrown here.
Result<std::size_t> ScanKernelLogAhead(
    const std::function<Result<std::size_t>(char*, std::size_t)>& read, const std::string& name,
    KernelEventScanner& scanner, const std::function<void(std::string_view)>& inspect,
    std::size_t chunk_bytes = 1u << 20);

// CPUs this process may run on (its affinity mask), at least 1.
std::size_t UsableCpus();

}  // namespace gpudoctor
