// Helpers shared by the kernel-log event rules (group_events.h): which rule
// owns which Xid code, picking events by kind, code and GPU, time gaps
// between events, GPU labels that use the readings or the kernel log's UUID
// lines, evidence items for log lines, and the remedies several rules give.
// Pure; every function reads only its arguments.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "facts/diagnosis_input.h"
#include "knowledge/xid_catalog.h"
#include "knowledge/xid_severity.h"
#include "rules/engine/finding.h"

namespace gpudoctor::events {

// The partition of Xid codes among the xid.* rules (see group_events.h).
enum class XidOwner {
  kFallenOffBus,
  kGsp,
  kMemory,
  kApplication,
  kRecoveryAction,
  kNvlink,
  kOther
};
XidOwner XidOwnerOf(int code);
// The catalog's severity as a finding's.
Severity FromXidSeverity(XidSeverity severity);

using EventList = std::vector<const KernelEvent*>;

// The events of the window (empty when there is no kernel log).
const std::vector<KernelEvent>& AllEvents(const DiagnosisInput& input);
// Events of these kinds, in log order.
EventList EventsOfKind(const DiagnosisInput& input, std::initializer_list<KernelEventKind> kinds);
// Xid events whose code `owner` owns.
EventList XidEventsOwnedBy(const DiagnosisInput& input, XidOwner owner);
// `xids` plus the events of `derived_kind` that do not repeat one of those
// Xid lines (the parser emits, e.g., a kFallenOffBus beside each Xid 79).
EventList WithDerived(const DiagnosisInput& input, EventList xids, KernelEventKind derived_kind);

// Events grouped by bus id ("" for events that name none), in first-seen order.
std::vector<std::pair<std::string, EventList>> ByGpu(const EventList& events);

// The one severity policy (knowledge/xid_severity.h) over these events: the
// least severity their Xids give a finding (info when none sets a floor).
// Every xid.* rule raises its finding to it.
Severity XidPolicyFloor(const EventList& events);

// The processes an event names: its own (when the line names one), then
// those of the flood's other lines counted into it (KernelEvent::other_processes).
std::vector<EventProcess> ProcessesOf(const KernelEvent& e);
// "and 4812 more" / "and at least 65536 more" (floor), in the language.
std::string LeftOutText(std::size_t n, bool at_least, Lang lang);

// Sum of the folded repeat counts.
std::size_t TotalCount(const EventList& events);
// The Xid codes of the events, ascending and unique.
std::vector<int> CodesOf(const EventList& events);
bool HasCode(const EventList& events, int code);

// Seconds from `a` to `b` (b later: positive), by wall time when both have
// it, else by seconds since boot; nullopt when neither pair is known.
std::optional<double> SecondsBetween(const KernelEvent& a, const KernelEvent& b);

// PCIe AER events (their `detail`, parse/kernel_events.h) that say the link
// to the device failed: an uncorrected error, fatal or not, Surprise Down, or
// the recovery lines ("can't recover", "recovery failed", "link reset").
bool IsLinkLossAer(const KernelEvent& e);
// Of those, the ones that are critical by themselves: fatal, Surprise Down,
// no recovery ("can't recover", "recovery failed").
bool IsFatalAer(const KernelEvent& e);
// How long before a GPU loss an AER report still explains it.
inline constexpr double kAerBeforeLossS = 600;
// True when `aer` comes before `lost` (by time when both have one, at most
// kAerBeforeLossS earlier, a few seconds later allowed for the order of
// printing; else by line in the same file) on the same GPU.
bool AerExplainsLoss(const KernelEvent& aer, const KernelEvent& lost);
// A PCIe port's own link loss that no NVIDIA line claimed (the extractor
// keeps it under the port's bus id, parse/kernel_events_aer.h): a
// "pcieport" line, fatal (IsFatalAer), on a bus that is no GPU of the input.
bool IsPortLinkLossAer(const DiagnosisInput& input, const KernelEvent& e);
// A port's link loss that comes before a GPU's loss (at most
// kAerBeforeLossS earlier, a few seconds later allowed), whatever the port:
// a file rarely says which port is above which GPU.
bool PortLossPrecedes(const KernelEvent& port, const KernelEvent& lost);
// When an event happened, as a person reads it: the wall time, else
// "74889 s" after boot, else its line.
std::string EventWhenText(const KernelEvent& e);

// The GPU's bus id -> UUID, from the driver's "GPU at PCI:...: GPU-<uuid>" lines.
std::map<std::string, std::string> UuidByBus(const DiagnosisInput& input);
// "GPU 2 (0000:3b:00.0)" when the readings know the GPU, else
// "GPU 0000:3b:00.0 (GPU-9794...)" with the UUID when the log names it, and
// a sentence part for an empty bus id ("a GPU the log does not name").
Text GpuText(const DiagnosisInput& input, const std::string& bus_id);
// The value for `nvidia-smi -i`: the bus id, or "<N>" when it is empty.
std::string SmiTarget(const std::string& bus_id);

// One evidence item per event (at most `max_items`), then one saying how
// many more there are. Each has the log line's source and time.
void AddEventEvidence(Finding& f, const EventList& events, std::size_t max_items = 10);
// A number with its unit, as evidence.
EvidenceItem NumberEvidence(Text text, double value, std::string unit);

// The steps several rules share.
Action CollectBugReportAction();
Action DrainAction(const std::string& bus_id);
Action ResetGpuAction(const std::string& bus_id);
Action RebootAction();

// Index of the last reading of `gpu` taken at or before `when` (the last
// reading when either time is unknown); nullopt when none qualifies.
std::optional<std::size_t> LastReadingAtOrBefore(const GpuSeries& gpu,
                                                 std::optional<WallTime> when);

}  // namespace gpudoctor::events
