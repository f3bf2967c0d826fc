// Kernel-log scanning on several threads. Of its three kinds of work, the
// reading (buffers of whole lines, as StreamLines cuts them) and the
// feeding of the scanner go in the log's order, one thread at a time; the
// finding of each buffer's candidate lines (FindKernelCandidates: the
// needle search and the lines' parse, which need no scanner state) runs
// on any thread, on any buffer read. Each thread takes the work that is
// ready, so the scan takes the time of the slower of what is in order and
// what is not, over the threads, instead of their sum.
// The events are those StreamLines + ScanKernelLogBuffer give over the same
// bytes: the same buffers, fed in the same order to one scanner. A log of
// one buffer, or a process allowed one CPU, is scanned on the caller's
// thread alone. Memory: threads + 2 buffers of chunk_bytes and their
// candidate lists. The threads are joined on every path.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

inline constexpr std::size_t kScanAheadMaxThreads = 4;

// `read` fills up to n bytes (0 at the end); `inspect` sees each buffer of
// whole lines, in order, before it is scanned (may be empty). Both are
// called by one thread at a time, not always the caller's. `name` names the
// log in the scanner's events. `threads`: 0 for the usable CPUs, at most
// kScanAheadMaxThreads. Returns the bytes read, or read's error once the
// buffers before it are scanned. An exception of read, inspect or the
// scanner is rethrown here (the scanner then holds a part of the log).
Result<std::size_t> ScanKernelLogAhead(
    const std::function<Result<std::size_t>(char*, std::size_t)>& read, const std::string& name,
    KernelEventScanner& scanner, const std::function<void(std::string_view)>& inspect,
    std::size_t chunk_bytes = 1u << 20, std::size_t threads = 0);

// CPUs this process may run on (its affinity mask), at least 1.
std::size_t UsableCpus();

}  // namespace gpudoctor
