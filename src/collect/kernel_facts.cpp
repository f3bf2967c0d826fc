#include "collect/kernel_facts.h"

#include <algorithm>

#include "collect/journal.h"
#include "collect/kernel_log_files.h"
#include "collect/kmsg.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

void KeepWindow(std::vector<KernelEvent>& events, WallTime from) {
  std::erase_if(events, [&](const KernelEvent& e) { return e.time && *e.time < from; });
}

KernelFacts CollectKernelFacts(const CollectContext& ctx, const KernelFactsOptions& options) {
  KernelFacts facts;
  const WallTime from = ctx.now - ctx.since;
  if (options.live) {
    JournalBatch journal = ReadJournalKernel(ctx);
    facts.sources.push_back(journal.status);
    std::vector<LogLine> lines;
    if (journal.status.available && !journal.lines.empty()) {
      lines = std::move(journal.lines);
      facts.sources.push_back({"/dev/kmsg", false, "not needed: the journal holds the kernel log"});
    } else {
      KmsgBatch kmsg = ReadKmsg(ctx);
      facts.sources.push_back(kmsg.status);
      facts.kmsg_records_lost = kmsg.lost;
      lines = std::move(kmsg.lines);
    }
    auto events = ExtractKernelEvents(lines);
    KeepWindow(events, from);
    facts.events.insert(facts.events.end(), events.begin(), events.end());
  }
  for (const auto& file : options.files) {
    auto lines = ReadKernelLogFile(file);
    facts.sources.push_back(StatusOf(file.string(), lines));
    if (!lines) continue;
    auto events = ExtractKernelEvents(*lines);
    facts.events.insert(facts.events.end(), events.begin(), events.end());
  }
  std::stable_sort(facts.events.begin(), facts.events.end(),
                   [](const KernelEvent& a, const KernelEvent& b) {
                     if (a.time && b.time) return *a.time < *b.time;
                     return false;
                   });
  return facts;
}

}  // namespace gpudoctor
