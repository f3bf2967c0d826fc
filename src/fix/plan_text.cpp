#include "fix/plan_text.h"

#include <fmt/format.h>

#include "fix/plan_steps.h"

namespace gpudoctor {
namespace {

using fix_internal::StepGpuLabel;

const char* L(Lang lang, const char* en, const char* zh) { return lang == Lang::kZh ? zh : en; }

template <typename... Args>
std::string F(Lang lang, const char* en, const char* zh, Args&&... args) {
  return fmt::format(fmt::runtime(L(lang, en, zh)), std::forward<Args>(args)...);
}

// Outside text (commands, ids, values, errors) inside Chinese sentences goes
// in backquotes.
std::string Q(Lang lang, const std::string& s) { return lang == Lang::kZh ? "`" + s + "`" : s; }

const char* RiskText(Risk risk, Lang lang) {
  switch (risk) {
    case Risk::kLow:
      return L(lang, "low", "低");
    case Risk::kMedium:
      return L(lang, "medium", "中");
    case Risk::kHigh:
      return L(lang, "high", "高");
  }
  return "?";
}

std::string Headline(const FixStep& s, std::size_t n, Lang lang) {
  std::string who = s.pci_bus_id.empty() ? L(lang, "host", "主机") : StepGpuLabel(s);
  return fmt::format("{:>3}. {}{}{}", n, who, L(lang, ": ", "："), s.what.In(lang));
}

std::string StepDetails(const FixStep& s, Lang lang) {
  std::string out;
  std::string finding = s.finding_id.empty()
                            ? L(lang, "(asked by --power-limit)", "（由 `--power-limit` 指定）")
                            : Q(lang, s.finding_id);
  out += fmt::format("       {}{}", L(lang, "finding: ", "对应发现："), finding);
  if (!s.field.empty()) {
    out += fmt::format("{}{} {} -> {}", L(lang, "; ", "；"), Q(lang, s.field), Q(lang, s.before),
                       Q(lang, s.target));
  }
  out += "\n";
  if (!s.command.empty()) {
    out += fmt::format("       {}{}\n", L(lang, "command: ", "命令："), Q(lang, s.command));
  }
  out += fmt::format(
      "       {}{}{}{}{}{}{}\n", L(lang, "safe while processes run: ", "进程运行时可安全执行："),
      s.safe_with_processes ? L(lang, "yes", "是") : L(lang, "no", "否"), L(lang, "; ", "；"),
      L(lang, "risk: ", "风险："), RiskText(s.risk, lang), L(lang, "; ", "；"),
      s.automatic ? L(lang, "applied by gpudoctor", "由 gpudoctor 执行")
                  : L(lang, "by hand only", "仅手动执行"));
  if (!s.note.en.empty()) out += fmt::format("       {}\n", s.note.In(lang));
  return out;
}

std::string Outcome(const FixStep& s, const StepResult& r, Lang lang) {
  std::string out;
  switch (r.outcome) {
    case StepOutcome::kApplied:
      out = fmt::format("       {}", L(lang, "=> applied", "=> 已执行"));
      if (!r.after.empty()) {
        out += fmt::format("{}{} -> {}", L(lang, ", now ", "，当前"), Q(lang, s.before),
                           Q(lang, r.after));
      }
      if (r.finding_gone) {
        out +=
            *r.finding_gone
                ? F(lang, "; finding {} gone", "；发现 {} 已消失", Q(lang, s.finding_id))
                : F(lang, "; finding {} still there", "；发现 {} 仍然存在", Q(lang, s.finding_id));
      }
      if (!r.error.empty()) out += F(lang, "; but {}", "；但 {}", Q(lang, r.error));
      break;
    case StepOutcome::kFailed:
      out = fmt::format("       {}{}", L(lang, "=> FAILED: ", "=> 失败："), Q(lang, r.error));
      break;
    case StepOutcome::kSkipped:
      out = fmt::format("       {} {}", L(lang, "=> skipped:", "=> 已跳过："),
                        s.skip_reason.In(lang));
      break;
    case StepOutcome::kNotRun:
      out = fmt::format("       {}",
                        L(lang, "=> not run: an earlier step failed", "=> 未执行：前面的步骤失败"));
      break;
    case StepOutcome::kManual:
      return "";
  }
  return out + "\n";
}

std::string Summary(const FixView& v) {
  const FixPlan& plan = *v.plan;
  Lang lang = v.lang;
  std::string out;
  if (!plan.unaddressed.empty()) {
    std::string ids;
    for (const auto& id : plan.unaddressed) ids += (ids.empty() ? "" : ", ") + Q(lang, id);
    out += fmt::format("\n{} {}\n",
                       L(lang, "Findings no step addresses (see gpudoctor diagnose):",
                         "没有对应步骤的发现（详见 `gpudoctor diagnose`）："),
                       ids);
  }
  std::size_t applicable = ApplicableSteps(plan);
  if (v.results == nullptr) {
    if (applicable > 0) {
      out +=
          F(lang, "\nTo apply the {} step(s) gpudoctor can do: gpudoctor fix --apply (as root)\n",
            "\n如需执行 gpudoctor 可完成的 {} 个步骤：以 root 身份运行 `gpudoctor fix --apply`\n",
            applicable);
    }
    return out;
  }
  std::size_t counts[5] = {};
  for (const StepResult& r : *v.results) ++counts[static_cast<int>(r.outcome)];
  out += F(lang, "\nResult: {} applied, {} failed, {} skipped, {} not run, {} by hand.\n",
           "\n结果：已执行 {} 个，失败 {} 个，跳过 {} 个，未执行 {} 个，需手动 {} 个。\n",
           counts[0], counts[1], counts[2], counts[3], counts[4]);
  if (!v.audit_log.empty()) {
    out += fmt::format("{}{}\n", L(lang, "Audit log: ", "审计日志："), Q(lang, v.audit_log));
  }
  return out;
}

}  // namespace

std::string FixToText(const FixView& v) {
  const FixPlan& plan = *v.plan;
  Lang lang = v.lang;
  std::size_t automatic = 0;
  for (const FixStep& s : plan.steps) automatic += s.automatic ? 1 : 0;
  std::string out = F(lang, "Fix plan ({}): {} step(s), {} by gpudoctor, {} by hand\n",
                      "修复计划（{}）：共 {} 步，其中 {} 步由 gpudoctor 执行，{} 步需手动执行\n",
                      v.report_file.empty() ? L(lang, "from a live diagnosis", "基于实时诊断")
                                            : F(lang, "from {}", "基于 {}", Q(lang, v.report_file)),
                      plan.steps.size(), automatic, plan.steps.size() - automatic);
  if (plan.steps.empty()) {
    out += L(lang, "Nothing to fix: no finding has a remedy gpudoctor knows.\n",
             "无需修复：没有 gpudoctor 知道如何处理的发现。\n");
  }
  bool by_hand_heading = false;
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const FixStep& s = plan.steps[i];
    if (i == 0 && s.automatic) {
      // Before --apply nothing has been done yet: the heading says what
      // gpudoctor would do, and after it what it did.
      out += v.results == nullptr ? L(lang, "\nSteps gpudoctor can apply itself:\n", "\ngpudoctor 可自动执行的步骤：\n")
                                  : L(lang, "\nApplied by gpudoctor:\n", "\n由 gpudoctor 执行：\n");
    }
    if (!s.automatic && !by_hand_heading) {
      out += L(lang, "\nTo do by hand (gpudoctor never runs these):\n",
               "\n需手动执行（gpudoctor 从不执行这些步骤）：\n");
      by_hand_heading = true;
    }
    out += Headline(s, i + 1, lang) + "\n" + StepDetails(s, lang);
    if (v.results != nullptr) {
      out += Outcome(s, (*v.results)[i], lang);
    } else if (s.skipped) {
      out += fmt::format("       {} {}\n", L(lang, "will be skipped:", "将被跳过："),
                         s.skip_reason.In(lang));
    }
  }
  return out + Summary(v);
}

}  // namespace gpudoctor
