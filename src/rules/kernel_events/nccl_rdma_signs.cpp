#include "rules/kernel_events/nccl_rdma_signs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <string>
#include <vector>

#include "rules/engine/rdma_ports.h"

namespace gpudoctor::events {
namespace {

// How far before the first port reading an NCCL event still belongs to the
// same window: PyTorch's NCCL watchdog fires after 10 minutes of a stalled
// collective by default, so the port's trouble may precede it by that much.
constexpr double kNcclBeforePortsS = 600;
constexpr double kNcclAfterPortsS = 60;

}  // namespace

bool AddRdmaSignsNear(const DiagnosisInput& input, const EventList& nccl, std::string_view what,
                      Finding& f) {
  std::vector<RdmaPortHistory> ports = RdmaPortHistories(input);
  if (ports.empty()) return false;
  const auto& first = ports.front().readings.front().at;
  const auto& last = ports.front().readings.back().at;
  if (!first || !last) return false;
  const auto from = *first - std::chrono::seconds(static_cast<long>(kNcclBeforePortsS));
  const auto to = *last + std::chrono::seconds(static_cast<long>(kNcclAfterPortsS));
  bool in_window = false;
  for (const KernelEvent* e : nccl) in_window |= e->time && *e->time >= from && *e->time <= to;
  if (!in_window) return false;
  bool any = false;
  for (const RdmaPortHistory& h : ports) {
    std::vector<std::string> trouble = RdmaPortTrouble(h, input.config.ib);
    if (trouble.empty()) continue;
    any = true;
    std::string line = fmt::format("{}: {}, in the window of {}", RdmaPortDescription(h),
                                   fmt::join(trouble, "; "), what);
    f.evidence.push_back(
        NumberEvidence(Text{line, "`" + line + "`"}, static_cast<double>(trouble.size()), "count"));
  }
  return any;
}

}  // namespace gpudoctor::events
