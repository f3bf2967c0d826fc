// kernel_log.undecoded: a log whose lines mention NVRM or Xid, none of which
// could be read as an event (a wrapper or format gpudoctor does not know).
// Saying "no problem found" there would hide what may be a lost GPU, so the
// report says how many such lines there are and shows the first. A warning
// when those lines name an Xid, else info.
#include <fmt/format.h>

#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace kernel_log_undecoded_rule {

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  if (!input.kernel) return;
  for (const UndecodedLog& log : input.kernel->undecoded) {
    const bool xid = log.first_text.find("Xid") != std::string::npos;
    Finding& f = out.Add(xid ? Severity::kWarning : Severity::kInfo);
    f.title = Text{fmt::format("{}: {} line(s) mention NVRM or Xid but none could be read",
                               log.file, log.lines),
                   fmt::format("{}：{} 行提到 NVRM 或 Xid，但均无法解读", log.file, log.lines)};
    f.explanation = Text{
        "The file holds NVIDIA driver messages in a form gpudoctor does not recognise, so "
        "\"no problem found\" would not be a conclusion: read these lines yourself, or convert "
        "the file to plain dmesg, syslog or journalctl text and analyse it again.",
        "文件中含有 gpudoctor 无法识别格式的 NVIDIA 驱动消息，因此不能据此得出“未发现问题”："
        "请人工查看这些行，或将文件转换为普通的 dmesg、syslog 或 journalctl 文本后重新分析。"};
    EvidenceItem first;
    first.text = Text{fmt::format("first such line ({}): {}", log.first_line, log.first_text),
                      fmt::format("第一行（第 {} 行）：{}", log.first_line, log.first_text)};
    first.value = static_cast<double>(log.lines);
    first.unit = "count";
    first.source = SourceRef{log.file, log.first_line};
    f.evidence.push_back(std::move(first));
    f.actions.push_back(Action{Text{"List the lines that mention NVRM or Xid.",
                                    "列出提到 NVRM 或 Xid 的行。"},
                               "grep -nE 'NVRM|Xid' " + log.file});
  }
}

}  // namespace kernel_log_undecoded_rule
}  // namespace

const Rule kKernelLogUndecodedRule{
    "kernel_log.undecoded", "kernel_log",
    "A log whose NVRM / Xid lines could not be read (unknown format): shown instead of "
    "'no problem found'",
    kNeedsKernelLog, kernel_log_undecoded_rule::Evaluate};

}  // namespace gpudoctor
