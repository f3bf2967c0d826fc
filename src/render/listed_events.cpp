#include "render/listed_events.h"

namespace gpudoctor {
namespace {
namespace listed_events_detail {

bool SameLine(const KernelEvent& a, const KernelEvent& b) {
  return a.source.file == b.source.file && a.source.line == b.source.line && a.time == b.time &&
         a.monotonic_s == b.monotonic_s && a.pci_bus_id == b.pci_bus_id && a.message == b.message;
}

bool IsCopyKind(const KernelEvent& e) {
  return e.kind == KernelEventKind::kFallenOffBus || e.kind == KernelEventKind::kRecoveryAction ||
         e.kind == KernelEventKind::kGspTimeout;
}

}  // namespace listed_events_detail
}  // namespace

std::vector<const KernelEvent*> ListedEvents(const std::vector<KernelEvent>& events) {
  std::vector<const KernelEvent*> out;
  out.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const KernelEvent& e = events[i];
    // The copy is folded right after its Xid (or into an earlier copy, right
    // after that Xid's earlier occurrence): look back one event.
    if (i > 0 && listed_events_detail::IsCopyKind(e) &&
        events[i - 1].kind == KernelEventKind::kXid &&
        listed_events_detail::SameLine(events[i - 1], e)) {
      continue;
    }
    out.push_back(&e);
  }
  return out;
}

}  // namespace gpudoctor
