// Helpers the host.* rules over kernel-log events share: which tasks belong
// to the NVIDIA driver or to a training job, a short list of names, and the
// detail fields of the host events ("DEVICE: WHAT", parse/kernel_catalog_host.h).
// Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/engine/task_names.h"
#include "rules/kernel_events/event_util.h"

namespace gpudoctor::host_events {

// The names of NVIDIA and training tasks (rules/engine/task_names.h).
using ::gpudoctor::IsNvidiaTask;
using ::gpudoctor::IsTrainingTask;

// "`a`, `b`, `c` and 2 more" (at most `named` names, each once, in order).
std::string NameList(const std::vector<std::string>& names, std::size_t named, Lang lang);

// "1 report" / "3 reports"; "3 次报告".
std::string Reports(std::size_t n, Lang lang);

// "DEVICE: WHAT" -> {"DEVICE", "WHAT"}; no ": " -> {"", detail}.
std::pair<std::string, std::string> SplitDetail(const std::string& detail);

// The task a crash or lockup names: the event's own, else the "CPU: N PID:
// N Comm: NAME" line after it. Empty name: none.
EventProcess TaskOf(const KernelEvent& e);
// Whether the crash's lines place it in the NVIDIA driver (a "RIP:" in the
// nvidia modules, or an NVIDIA task).
bool InNvidiaDriver(const KernelEvent& e);

}  // namespace gpudoctor::host_events
