#include "rules/engine/cause_fold.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gpudoctor {
namespace {
namespace cause_fold_detail {

// The key under which finding `i` is folded: a later key of its own that
// another finding has as its first, else its first.
std::string GroupKey(const std::vector<Finding>& findings, std::size_t i,
                     const std::map<std::string, std::size_t>& first_owner) {
  const std::vector<std::string>& causes = findings[i].causes;
  for (std::size_t k = 1; k < causes.size(); ++k) {
    auto owner = first_owner.find(causes[k]);
    if (owner != first_owner.end() && owner->second != i) return causes[k];
  }
  return causes.front();
}

template <typename T, typename Same>
void AppendNew(std::vector<T>& to, const std::vector<T>& from, Same same) {
  for (const T& item : from) {
    if (std::none_of(to.begin(), to.end(), [&](const T& have) { return same(have, item); })) to.push_back(item);
  }
}

// `members` (two or more, in diagnosis order) of the cause `key` as one
// finding. It names the GPUs of the members whose own cause it is: a pair
// copied through GPU 3's slow link is GPU 3's trouble, not its peer's.
Finding Merged(std::vector<Finding>& findings, std::vector<std::size_t> members, const std::string& key) {
  // The first finding whose own cause it is speaks for it.
  auto own = std::find_if(members.begin(), members.end(),
                          [&](std::size_t i) { return findings[i].causes.front() == key; });
  std::rotate(members.begin(), own, own + 1);
  Finding out = std::move(findings[members.front()]);
  for (std::size_t m = 1; m < members.size(); ++m) {
    Finding& f = findings[members[m]];
    out.severity = std::max(out.severity, f.severity);
    if (f.recommended &&
        Stricter(out.recommended.value_or(RecoveryAction::kNone), *f.recommended) !=
            out.recommended.value_or(RecoveryAction::kNone)) {
      out.recommended = f.recommended;
      out.recommended_by_driver = f.recommended_by_driver;
    }
    if (f.causes.front() == key) {
      AppendNew(out.gpus, f.gpus, [](const std::string& a, const std::string& b) { return a == b; });
    }
    AppendNew(out.xids, f.xids, [](int a, int b) { return a == b; });
    out.evidence.push_back(EvidenceItem{Text{fmt::format("also: {}", f.title.en), fmt::format("同时：{}", f.title.zh)},
                                        std::nullopt, "", std::nullopt, std::nullopt});
    AppendNew(out.evidence, f.evidence,
              [](const EvidenceItem& a, const EvidenceItem& b) { return a.text.en == b.text.en; });
    AppendNew(out.actions, f.actions, [](const Action& a, const Action& b) {
      return a.text.en == b.text.en && a.command == b.command;
    });
  }
  std::sort(out.xids.begin(), out.xids.end());
  return out;
}

}  // namespace cause_fold_detail
}  // namespace

void FoldCauses(Diagnosis& d) {
  using namespace cause_fold_detail;
  std::map<std::string, std::size_t> first_owner;  // a first key -> the first finding with it
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (!d.findings[i].causes.empty()) first_owner.emplace(d.findings[i].causes.front(), i);
  }
  std::map<std::string, std::vector<std::size_t>> groups;
  std::vector<std::string> key_of(d.findings.size());
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (d.findings[i].causes.empty()) continue;
    key_of[i] = GroupKey(d.findings, i, first_owner);
    groups[key_of[i]].push_back(i);
  }
  std::vector<Finding> out;
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (key_of[i].empty()) {
      out.push_back(std::move(d.findings[i]));
      continue;
    }
    const std::vector<std::size_t>& members = groups[key_of[i]];
    if (members.front() != i) continue;  // folded into the group's first
    out.push_back(members.size() == 1 ? std::move(d.findings[i]) : Merged(d.findings, members, key_of[i]));
  }
  d.findings = std::move(out);
  RecomputeGpuVerdicts(d);
}

}  // namespace gpudoctor
