// fabricmanager.errors: errors in the Fabric Manager log
// (/var/log/fabricmanager.log): NVSwitch fatal and non-fatal errors,
// failed multicast setups, topology mismatches. Errors from more than a day
// before the window are reported as past, not current. Facts section 5.
#include <fmt/format.h>

#include <ctime>
#include <iomanip>
#include <sstream>

#include "rules/system/group.h"
#include "rules/system/system_util.h"

namespace gpudoctor {
namespace {
namespace fabricmanager_errors_rule {

constexpr auto kRecent = std::chrono::hours(24);

// "Feb 25 2025 15:10:02", written in the machine's local time.
std::optional<WallTime> ParseFmTime(const std::string& text) {
  std::tm tm{};
  std::istringstream in(text);
  in >> std::get_time(&tm, "%b %d %Y %H:%M:%S");
  if (in.fail()) return std::nullopt;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t == -1) return std::nullopt;
  return std::chrono::system_clock::from_time_t(t);
}

// Logged by Fabric Manager on systems that have nothing for it to do; harmless.
bool Harmless(const FmLogError& e) {
  return e.entry.message.find("NV_WARN_NOTHING_TO_DO") != std::string::npos;
}

bool Fatal(const FmLogError& e) {
  return e.entry.message.find("fatal error") != std::string::npos &&
         e.entry.message.find("non-fatal") == std::string::npos;
}

struct Judged {
  std::vector<const FmLogError*> recent;
  std::vector<const FmLogError*> past;
  bool recent_fatal = false;
};

Judged Judge(const DiagnosisInput& input, const FmLogSummary& log) {
  std::optional<WallTime> reference = input.window_to ? input.window_to : input.window_from;
  Judged j;
  for (const FmLogError& e : log.last_errors) {
    if (Harmless(e)) continue;
    auto when = ParseFmTime(e.entry.time_text);
    bool recent = !reference || !when || *when >= *reference - kRecent;
    (recent ? j.recent : j.past).push_back(&e);
    j.recent_fatal |= recent && Fatal(e);
  }
  return j;
}

void AddEvidence(const FabricManagerFacts& fm, const std::vector<const FmLogError*>& errors,
                 Finding& f) {
  for (const FmLogError* e : errors) {
    std::string line =
        fmt::format("[{}] [{}] {}", e->entry.time_text, e->entry.level, e->entry.message);
    f.evidence.push_back(LogLineEvidence(line, SourceRef{fm.log_path, e->line_number},
                                         ParseFmTime(e->entry.time_text)));
  }
  if (fm.log_skipped_bytes > 0) {
    std::string mib = MibText(static_cast<double>(fm.log_skipped_bytes));
    f.evidence.push_back(TextEvidence(
        fmt::format("only the log's tail was read ({} MiB skipped): line numbers count from there",
                    mib),
        fmt::format("只读取了日志末尾（跳过 {} MiB）：行号从该处开始计数", mib)));
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const FabricManagerFacts& fm = input.versions->fabric_manager;
  if (!fm.nvswitch_present || !fm.log || fm.log->error_count == 0) return;
  Judged j = Judge(input, *fm.log);
  if (j.recent.empty() && j.past.empty()) return;
  // A fatal NVSwitch error leaves the fabric unusable until the GPUs and
  // switches are reset; other errors degrade it.
  Severity severity = j.recent_fatal ? Severity::kCritical
                                     : (j.recent.empty() ? Severity::kInfo : Severity::kWarning);
  Finding& f = out.Add(severity);
  const auto& shown = j.recent.empty() ? j.past : j.recent;
  std::size_t count = shown.size();
  f.title = j.recent.empty()
                ? Text{fmt::format("{} past errors in the Fabric Manager log", count),
                       fmt::format("Fabric Manager 日志中有 {} 条以往的错误", count)}
                : Text{fmt::format("{} recent errors in the Fabric Manager log", count),
                       fmt::format("Fabric Manager 日志中有 {} 条近期错误", count)};
  f.explanation = Text{
      "Fabric Manager logged errors about the NVSwitch fabric. \"detected NVSwitch fatal error\" "
      "leaves the fabric unusable until a reset; non-fatal errors and failed multicast setups "
      "point to a link or switch going bad and can make NCCL jobs fail or slow down.",
      "Fabric Manager 记录了有关 NVSwitch 互联的错误。`detected NVSwitch fatal error` "
      "表示互联在重置前都无法使用；"
      "非致命错误和组播配置失败说明某条链路或某个交换芯片在劣化，可能导致 NCCL 任务失败或变慢。"};
  AddEvidence(fm, shown, f);
  if (j.recent_fatal) {
    f.actions.push_back(Action{Text{"Reboot the node to reset the GPUs and NVSwitches.",
                                    "重启节点以重置 GPU 和 NVSwitch。"},
                               "sudo reboot"});
  }
  f.actions.push_back(Action{Text{"Read the errors around these lines, and the service's journal.",
                                  "查看这些行前后的错误以及该服务的 journal。"},
                             fmt::format("grep -n -E 'ERROR|FATAL' {} | tail -50", fm.log_path)});
  f.actions.push_back(
      Action{Text{"If the same switch or port repeats, report the node for hardware service.",
                  "如果同一个交换芯片或端口反复出错，请报修该节点的硬件。"},
             ""});
}

}  // namespace fabricmanager_errors_rule
}  // namespace

const Rule kFabricManagerErrorsRule{"fabricmanager.errors", "fabricmanager",
                                    "Errors in the Fabric Manager log (NVSwitch errors, failed "
                                    "fabric setup)",
                                    kNeedsVersions, fabricmanager_errors_rule::Evaluate};

}  // namespace gpudoctor
