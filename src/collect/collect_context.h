// What every collector is given: the root directory it reads below (so tests
// run collectors over a fake /proc, /sys, /var/log tree), the clock, and the
// time window for logs. Collectors never fail: a source that cannot be read
// is recorded as a SourceStatus (facts/source_status.h) with the reason.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "facts/source_status.h"

namespace gpudoctor {

struct CollectContext {
  std::filesystem::path root = "/";
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  std::chrono::milliseconds since{24LL * 3600 * 1000};  // log window
  // When set and true, a collector waiting out its sample window stops
  // waiting (diagnose interrupted by Ctrl-C); its rates cover the time waited.
  std::function<bool()> stop_requested = nullptr;
};

// Sleeps for window, or until ctx.stop_requested says stop (checked every
// 50 ms).
void WaitSampleWindow(const CollectContext& ctx, std::chrono::milliseconds window);

// root + an absolute path ("/proc/stat" -> "<root>/proc/stat").
std::filesystem::path UnderRoot(const CollectContext& ctx, std::string_view absolute_path);

// Reads a whole file below the root, at most max_bytes. Errors name the path
// as the user knows it (without the root prefix).
Result<std::string> ReadRootFile(const CollectContext& ctx, std::string_view absolute_path,
                                 std::size_t max_bytes = 16 << 20);

// Lists directory entries (names only, sorted); error when unreadable.
Result<std::vector<std::string>> ListRootDir(const CollectContext& ctx,
                                             std::string_view absolute_path);

// SourceStatus from a result.
template <typename T>
SourceStatus StatusOf(std::string_view source, const Result<T>& r) {
  return SourceStatus{std::string(source), r.ok(), r.ok() ? std::string() : r.error().message};
}

}  // namespace gpudoctor
