#include "prom/fleet_build.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "prom/fleet_assembly.h"
#include "prom/fleet_queries.h"
#include "prom/node_identity.h"
#include "prom/prom_labels.h"
#include "window/window.h"

namespace gpudoctor {
namespace {

using std::chrono::seconds;

// Which series are one machine's (see prom/node_identity.h): the agent's
// answers, then dcgm-exporter's with the time of each series' newest point.
NodeIdentities IdentitiesOf(const std::vector<Result<PromAnswer>>& answers) {
  NodeIdentities ids;
  for (std::size_t id = 0; id < answers.size(); ++id) {
    for (const auto& s : answers[id]->series) {
      double last_s = s.points.empty() ? 0 : s.points.back().time_s;
      if (id == kDcgmLastSeen && !s.points.empty()) last_s = s.points.front().value;
      ids.Add(s.labels, id <= kStrip, last_s);
    }
  }
  ids.Resolve();
  return ids;
}

}  // namespace

const char* FleetSourceName(FleetSource source) {
  return source == FleetSource::kGpudoctor ? "gpudoctor" : "dcgm-exporter";
}

Result<FleetView> BuildFleetView(const PromClient& client, const FleetRequest& request) {
  auto matchers = MatchersOf(request.match);
  if (!matchers) return matchers.error();
  if (request.from >= request.to) {
    return Error{ErrorCode::kInvalid, "the window is empty: --from is not before --to"};
  }
  FleetRequest r = request;
  const Window window_ms = Window{r.from, r.to}.InMilliseconds();
  r.from = window_ms.from;
  r.to = window_ms.to;
  r.strip_buckets = std::clamp(r.strip_buckets, 1, 1000);
  const seconds window = std::chrono::duration_cast<seconds>(r.to - r.from);
  seconds bucket{std::max<long>(1, (window.count() + r.strip_buckets - 1) / r.strip_buckets)};
  r.strip_buckets = static_cast<int>((window.count() + bucket.count() - 1) / bucket.count());
  const int sent_before = client.queries_sent();
  const std::vector<FleetQuery> plan = PlanQueries(r, *matchers, bucket);
  std::vector<Result<PromAnswer>> answers = RunAll(client, plan);
  const std::vector<std::string> silent_errors =
      LastSamplesOfSilentGpus(client, r, bucket, *matchers, answers);

  FleetView view;
  view.from = r.from;
  view.to = r.to;
  view.prometheus_url = client.url();
  view.stale_after_s = static_cast<double>(r.stale_after.count());
  std::set<std::string> notes;
  const Error* first_error = nullptr;
  int failed = 0;
  for (auto& a : answers) {
    if (!a) {
      if (first_error == nullptr) first_error = &a.error();
      ++failed;
      notes.insert(a.error().message);
      continue;
    }
    for (const auto& w : a->warnings) notes.insert("prometheus: " + w);
  }
  if (failed == static_cast<int>(answers.size())) return *first_error;
  notes.insert(silent_errors.begin(), silent_errors.end());
  for (auto& a : answers) {
    if (!a) a = PromAnswer{};
  }
  const NodeIdentities ids = IdentitiesOf(answers);
  FleetAssembly assembly(r, bucket, ids);
  assembly.AddAgentAnswers(answers);
  assembly.AddDcgmAnswers(answers);
  view = assembly.Finish(std::move(view));
  std::map<std::string_view, const NodeGroup*> group_named;  // a name shared: the last group
  for (const NodeGroup& g : ids.Groups()) group_named[g.name] = &g;
  for (auto& n : view.nodes) {
    if (auto it = group_named.find(n.node); it != group_named.end()) n.names = it->second->Names();
  }
  bool dcgm = false;
  for (const auto& n : view.nodes) dcgm = dcgm || n.source == FleetSource::kDcgmExporter;
  if (dcgm) {
    notes.insert(
        "dcgm-exporter nodes: the rules ran over its series in " + FleetSeconds(bucket) +
        " stretches (peaks kept, clocks at their lowest); DCGM_FI_DEV_XID_ERRORS holds only the "
        "last Xid code, so a repeat of the same code, or two Xids within one scrape, count once");
  }
  view.notes.assign(notes.begin(), notes.end());
  view.queries = client.queries_sent() - sent_before;
  return view;
}

}  // namespace gpudoctor
