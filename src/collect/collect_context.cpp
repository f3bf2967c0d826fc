#include "collect/collect_context.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace gpudoctor {

void WaitSampleWindow(const CollectContext& ctx, std::chrono::milliseconds window) {
  if (window.count() <= 0) return;
  if (!ctx.stop_requested) {
    std::this_thread::sleep_for(window);
    return;
  }
  const auto end = std::chrono::steady_clock::now() + window;
  while (!ctx.stop_requested()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= end) return;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        end - now, std::chrono::milliseconds(50)));
  }
}

std::filesystem::path UnderRoot(const CollectContext& ctx, std::string_view absolute_path) {
  std::string_view rel = absolute_path;
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  return ctx.root / std::filesystem::path(rel);
}

Result<std::string> ReadRootFile(const CollectContext& ctx, std::string_view absolute_path,
                                 std::size_t max_bytes) {
  const std::string shown(absolute_path);
  const auto path = UnderRoot(ctx, absolute_path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ErrnoError(errno, shown);
  std::string data;
  char buf[65536];
  while (data.size() < max_bytes) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, max_bytes - data.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return ErrnoError(err, shown);
    }
    if (n == 0) break;
    data.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return data;
}

Result<std::vector<std::string>> ListRootDir(const CollectContext& ctx,
                                             std::string_view absolute_path) {
  std::error_code ec;
  std::vector<std::string> names;
  std::filesystem::directory_iterator it(UnderRoot(ctx, absolute_path), ec);
  if (ec) return ErrnoError(ec.value(), std::string(absolute_path));
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return ErrnoError(ec.value(), std::string(absolute_path));
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace gpudoctor
