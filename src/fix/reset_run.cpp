#include "fix/reset_run.h"

#include <fmt/format.h>

namespace gpudoctor {
namespace {
namespace reset_run_detail {

std::string LastLine(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::string Failure(const RanCommand& c) {
  return c.result.exit_status < 0
             ? "could not run: " + LastLine(c.result.output)
             : fmt::format("exit {}: {}", c.result.exit_status, LastLine(c.result.output));
}

}  // namespace reset_run_detail
}  // namespace

ResetRun RunReset(const ResetPlan& plan, const GpuStatus& before, const std::string& nvidia_smi,
                  const RunCommand& run, const ReadBack& read_back) {
  ResetRun out;
  const auto commands = ResetCommands(plan, nvidia_smi);
  auto exec = [&](const std::vector<std::string>& argv) -> const RanCommand& {
    out.ran.push_back(RanCommand{argv, run(argv)});
    return out.ran.back();
  };
  std::size_t next = 0;
  if (plan.persistence_on) {
    const RanCommand& off = exec(commands[next++]);
    if (off.result.exit_status != 0) {
      out.verdict = "persistence mode could not be turned off (" + reset_run_detail::Failure(off) +
                    "); the GPU was not reset";
      return out;
    }
  }
  const RanCommand& reset = exec(commands[next++]);
  out.reset_done = reset.result.exit_status == 0;
  const std::string reset_failure = out.reset_done ? "" : reset_run_detail::Failure(reset);
  if (plan.persistence_on) {
    const RanCommand& on = exec(commands[next]);
    out.persistence_restored = on.result.exit_status == 0;
  }
  std::string restore_note;
  if (out.persistence_restored && !*out.persistence_restored) {
    restore_note = fmt::format(
        "; persistence mode could not be turned back on ({}): turn it on "
        "with nvidia-smi -i {} -pm 1",
        reset_run_detail::Failure(out.ran.back()), plan.gpu);
  }
  if (!out.reset_done) {
    out.verdict = "the reset failed (" + reset_failure + ")" + restore_note;
    return out;
  }
  auto after = read_back(before.uuid);
  if (!after) {
    out.verdict = "the GPU did not come back: NVML no longer lists " + before.uuid + restore_note;
    return out;
  }
  if (after->state != GpuState::kOk) {
    out.verdict =
        "the GPU came back in error: " +
        (after->state_detail.empty() ? std::string("not answering") : after->state_detail) +
        restore_note;
    return out;
  }
  if (after->recovery_action && *after->recovery_action != 0) {
    out.verdict = fmt::format(
        "the GPU came back but the driver still asks for a recovery "
        "(recovery action {}){}",
        *after->recovery_action, restore_note);
    return out;
  }
  out.gpu_back = true;
  out.verdict = "the GPU was reset and answers again" + restore_note;
  return out;
}

}  // namespace gpudoctor
