// From what is known about the node (the agent's latest state, or a short
// diagnosis) to one health answer: ok, problem or unknown, with a one-line
// reason, per condition. Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/check_state.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// The conditions `check --condition NAME` can judge (node-problem-detector
// conditions):
//   GPUHealthy    no finding at or above the severity threshold
//   GPUDropped    no GPU lost or missing: gpu.dropped, gpu.lost, xid.fallen_off_bus
//                 or a GPU state lost/hung/error, at any severity from warning
//   GPUThrottled  no clock slowdown: thermal.slowdown, thermal.high_temperature,
//                 power.brake, power.cap, clocks.hw_slowdown at or above the threshold
//   XidErrors     no driver-reported GPU fault: xid.* except xid.application
//                 (an application's own bug), nvswitch.sxid, at or above the threshold
enum class CheckCondition { kGpuHealthy, kGpuDropped, kGpuThrottled, kXidErrors };

const char* CheckConditionName(CheckCondition condition);
std::optional<CheckCondition> ParseCheckCondition(std::string_view name);
const std::vector<CheckCondition>& AllCheckConditions();

enum class CheckStatus { kOk, kProblem, kUnknown };

// What check knows, from either source.
struct CheckSource {
  std::string origin;          // "agent state" or "diagnosis"
  bool gpus_visible = true;    // false: NVML did not load and no finding explains why
  std::string unknown_reason;  // why nothing can be said when !gpus_visible
  std::vector<CheckGpu> gpus;
  std::vector<CheckFinding> findings;  // most severe first
};

struct ConditionResult {
  CheckCondition condition = CheckCondition::kGpuHealthy;
  CheckStatus status = CheckStatus::kOk;
  std::string reason;              // one line, English, may hold non-ASCII finding titles
  std::string slurm_reason;        // short and stable per cause: "GPU 1 lost 0000:19:00.0"
  Severity worst = Severity::kOk;  // of the findings that made it a problem
  RecoveryAction recommended = RecoveryAction::kNone;  // the strictest among those findings
};

struct CheckResult {
  CheckStatus status = CheckStatus::kOk;  // worst of the conditions
  std::string reason;                     // the first problem's, else a summary
  std::string slurm_reason;               // the first problem's short stable reason
  Severity worst = Severity::kOk;
  RecoveryAction recommended = RecoveryAction::kNone;  // the strictest among the problems
  std::vector<ConditionResult> conditions;
};

// GPUs in state lost/hung/error that no gpu.lost finding names become
// gpu.lost findings (critical), so both sources are judged alike.
void AddGpuStateFindings(CheckSource& source);

// Judges `conditions` (in the given order) with `threshold` the lowest
// severity that counts as a problem.
CheckResult EvaluateCheck(const CheckSource& source, const std::vector<CheckCondition>& conditions,
                          Severity threshold);

// ASCII only: common symbols spelled out ("°" dropped, "—" as "-", "≥" as
// ">="), any other non-ASCII character or control character becomes '?',
// whitespace runs one space; cut to at most max_chars with "..." when longer.
std::string AsciiLine(std::string_view text, std::size_t max_chars);

// node-problem-detector's message: ASCII, at most 80 characters.
std::string NpdLine(const CheckResult& result);

// What ends every Slurm reason gpudoctor writes, so the health-check script
// tells its own drains from an operator's.
inline constexpr std::string_view kSlurmReasonTag = "[gpudoctor]";

// "<short stable reason>, <its recovery action> [gpudoctor]" (e.g. "GPU 1
// lost 0000:19:00.0, reboot_node [gpudoctor]"): what matters first, since `sinfo -R` shows about 20
// characters; at most 100 characters, holding only letters, digits, spaces
// and . , : _ / + = @ % - [ ] so it is safe inside
// scontrol update ... reason="..." and in a shell word.
std::string SlurmReason(const CheckResult& result);

}  // namespace gpudoctor
