#include "collect/kernel_limits.h"

#include <string>

#include "parse/text_cursor.h"

namespace gpudoctor {

std::optional<std::pair<std::uint64_t, std::uint64_t>> ParseFileNr(std::string_view text) {
  TextCursor c(text);
  std::uint64_t allocated = 0, unused = 0, max = 0;
  c.SkipSpaces();
  if (!c.Uint64(allocated)) return std::nullopt;
  if (c.SkipSpaces() == 0 || !c.Uint64(unused)) return std::nullopt;
  if (c.SkipSpaces() == 0 || !c.Uint64(max)) return std::nullopt;
  c.SkipSpaces();
  c.Lit('\n');
  if (!c.done() || max == 0) return std::nullopt;
  return std::make_pair(allocated, max);
}

std::optional<std::uint64_t> ParseSingleNumber(std::string_view text) {
  TextCursor c(text);
  std::uint64_t n = 0;
  c.SkipSpaces();
  if (!c.Uint64(n)) return std::nullopt;
  c.SkipSpaces();
  c.Lit('\n');
  if (!c.done()) return std::nullopt;
  return n;
}

KernelLimits ReadKernelLimits(const CollectContext& ctx, std::optional<std::uint64_t> threads) {
  KernelLimits out;
  out.threads = threads;
  auto note = [&out](std::string_view path, bool ok, std::string why) {
    out.sources.push_back(SourceStatus{std::string(path), ok, std::move(why)});
  };
  constexpr std::string_view kFileNr = "/proc/sys/fs/file-nr";
  if (auto text = ReadRootFile(ctx, kFileNr, 256); !text.ok()) {
    note(kFileNr, false, text.error().message);
  } else if (auto nr = ParseFileNr(*text)) {
    out.open_files = nr->first;
    out.open_files_max = nr->second;
    note(kFileNr, true, {});
  } else {
    note(kFileNr, false, "not three numbers (allocated, unused, max)");
  }
  const std::pair<std::string_view, std::optional<std::uint64_t>*> singles[] = {
      {"/proc/sys/kernel/pid_max", &out.pid_max},
      {"/proc/sys/kernel/threads-max", &out.threads_max}};
  for (const auto& [path, into] : singles) {
    if (auto text = ReadRootFile(ctx, path, 256); !text.ok()) {
      note(path, false, text.error().message);
    } else if (auto n = ParseSingleNumber(*text); n && *n > 0) {
      *into = n;
      note(path, true, {});
    } else {
      note(path, false, "not a number");
    }
  }
  return out;
}

}  // namespace gpudoctor
