// Kernel-log evidence for a time window: events extracted from the systemd
// journal (preferred: it has real times and older boots) or, when the journal
// cannot be read, the kernel ring buffer (/dev/kmsg), an earlier boot's
// crash kept in pstore (collect/pstore.h), plus any log files the user
// names. Never fails: unreadable sources are listed with the reason.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "collect/collect_context.h"
#include "core/kernel_event.h"
#include "facts/kernel.h"

namespace gpudoctor {

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
