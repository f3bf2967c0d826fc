#include "rules/engine/rule.h"

namespace gpudoctor {

Finding& RuleOutput::Add(Severity severity) {
  Finding& f = findings_.emplace_back();
  f.id = std::string(id_);
  f.category = std::string(category_);
  f.severity = severity;
  return f;
}

void RuleOutput::NotCheckedBecause(Text reason) {
  not_checked_.push_back(NotChecked{std::string(id_), std::move(reason)});
}

}  // namespace gpudoctor
