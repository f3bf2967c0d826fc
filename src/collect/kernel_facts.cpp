#include "collect/kernel_facts.h"

#include <algorithm>
#include <ctime>

#include "collect/journal.h"
#include "collect/kernel_log_files.h"
#include "collect/kmsg.h"
#include "collect/pstore.h"
#include "parse/kernel_events.h"

namespace gpudoctor {

namespace {

// Year-less stamps (syslog, journalctl short) take this machine's year and
// local time zone at collection time.
ExtractOptions LocalTimeOptions(const CollectContext& ctx) {
  ExtractOptions opts;
  std::time_t now = std::chrono::system_clock::to_time_t(ctx.now);
  std::tm local{};
  localtime_r(&now, &local);
  opts.time.year = local.tm_year + 1900;
  opts.time.utc_offset = std::chrono::seconds(local.tm_gmtoff);
  return opts;
}

}  // namespace

void KeepWindow(std::vector<KernelEvent>& events, WallTime from) {
  std::erase_if(events, [&](const KernelEvent& e) { return e.time && *e.time < from; });
}

KernelFacts CollectKernelFacts(const CollectContext& ctx, const KernelFactsOptions& options) {
  KernelFacts facts;
  const WallTime from = ctx.now - ctx.since;
  const ExtractOptions extract = LocalTimeOptions(ctx);
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
    ExtractOptions live_extract = extract;
    live_extract.aer_owner = options.aer_owner;
    auto events = ExtractKernelEvents(lines, live_extract);
    KeepWindow(events, from);
    facts.events.insert(facts.events.end(), events.begin(), events.end());
    // A crash of an earlier boot, kept for this one (pstore).
    PstoreRecords pstore = ReadPstore(ctx, from);
    facts.sources.insert(facts.sources.end(), pstore.sources.begin(), pstore.sources.end());
    for (const PstoreRecord& record : pstore.records) {
      auto kept = ExtractKernelEvents(record.lines, extract);
      facts.events.insert(facts.events.end(), kept.begin(), kept.end());
    }
  }
  for (const auto& file : options.files) {
    auto lines = ReadKernelLogFile(file);
    facts.sources.push_back(StatusOf(file.string(), lines));
    if (!lines) continue;
    auto events = ExtractKernelEvents(*lines, extract);
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
