// The kernel's tables that fill up (facts/host.h KernelLimits): open file
// handles against fs.file-max, threads against kernel.pid_max and
// kernel.threads-max. Read below ctx.root; never fails (a file that cannot
// be read leaves its value unset and says why in `sources`).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include "collect/collect_context.h"
#include "facts/host.h"

namespace gpudoctor {

// /proc/sys/fs/file-nr: "allocated<TAB>unused<TAB>max" -> {allocated, max};
// nullopt when malformed.
std::optional<std::pair<std::uint64_t, std::uint64_t>> ParseFileNr(std::string_view text);
// A file holding one unsigned number (pid_max, threads-max); nullopt when not.
std::optional<std::uint64_t> ParseSingleNumber(std::string_view text);

// `threads`: /proc/loadavg's total, when the caller read it.
KernelLimits ReadKernelLimits(const CollectContext& ctx, std::optional<std::uint64_t> threads);

}  // namespace gpudoctor
