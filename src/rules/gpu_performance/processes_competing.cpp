// processes.competing: two or more compute processes each take a real share
// of one GPU's SMs for most of the window (per-process utilisation). Without
// MPS or MIG the driver time-slices between them, so each waits while the
// others run: uneven step times and stutter. Often one of them is a
// forgotten job. Names each process with its owner and its share.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "rules/gpu_performance/gpu_perf_util.h"
#include "rules/gpu_performance/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace processes_competing_rule {

void AddActions(Finding& f) {
  f.actions.push_back(Action{
      Text{"See which processes use the GPU now and stop a forgotten one (an idle notebook "
           "kernel, a finished job that did not exit, another user's run).",
           "查看当前有哪些进程在使用 GPU，停止被遗忘的进程（空闲的 Jupyter 内核、已结束却未退出"
           "的任务、其他用户的任务）。"},
      "nvidia-smi pmon -c 1"});
  f.actions.push_back(Action{
      Text{"Give each job a GPU of its own: CUDA_VISIBLE_DEVICES, or the scheduler's exclusive "
           "GPU allocation (Slurm --gres=gpu, a Kubernetes nvidia.com/gpu limit without "
           "time-slicing).",
           "让每个任务独占一块 GPU：使用 `CUDA_VISIBLE_DEVICES`，或调度器的独占分配（Slurm "
           "`--gres=gpu`，Kubernetes 中不启用时间片共享的 `nvidia.com/gpu` 限额）。"},
      ""});
  f.actions.push_back(Action{
      Text{"To stop a second process from starting on it, set the compute mode to "
           "EXCLUSIVE_PROCESS.",
           "如需禁止第二个进程在该 GPU 上启动，可将计算模式设为 `EXCLUSIVE_PROCESS`。"},
      "sudo nvidia-smi -i <index> -c EXCLUSIVE_PROCESS"});
  f.actions.push_back(Action{
      Text{"Where sharing is intended, share with MPS (kernels of several processes run at "
           "once) or split the GPU with MIG instead of time-slicing.",
           "如果确实需要共享，请使用 MPS（多个进程的 kernel 可同时运行）或用 MIG 切分 GPU，"
           "而不是时间片轮转。"},
      ""});
}

struct ProcessWindow {
  GpuProcess latest;  // as last seen, with its owner
  std::size_t readings = 0;
  double sm_sum = 0;
  double sm_max = 0;
};

// Readings with per-process utilisation, and how many of them had two or
// more processes at kCompetingMinSmPercent or more.
struct Contention {
  std::size_t known = 0;
  std::size_t competing = 0;
  std::map<std::uint32_t, ProcessWindow> processes;
};

Contention Measure(const GpuSeries& gpu) {
  Contention c;
  for (const GpuStatus& r : gpu.readings) {
    if (!r.processes) continue;
    std::size_t with_util = 0, busy = 0;
    for (const GpuProcess& p : *r.processes) {
      if (!p.sm_util_percent) continue;
      ++with_util;
      const double sm = static_cast<double>(*p.sm_util_percent);
      if (sm >= perf::kCompetingMinSmPercent) ++busy;
      ProcessWindow& w = c.processes[p.pid];
      w.latest = p;
      ++w.readings;
      w.sm_sum += sm;
      w.sm_max = std::max(w.sm_max, sm);
    }
    if (with_util == 0) continue;
    ++c.known;
    if (busy >= 2) ++c.competing;
  }
  return c;
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    Contention c = Measure(gpu);
    if (c.known == 0) continue;
    const double share = static_cast<double>(c.competing) / static_cast<double>(c.known);
    if (c.competing == 0 || share < input.config.sustained_fraction) continue;
    // The processes that took a real share, most SM time first.
    std::vector<const ProcessWindow*> rivals;
    for (const auto& [pid, w] : c.processes) {
      if (w.sm_sum / static_cast<double>(c.known) >= perf::kCompetingMinSmPercent / 2 ||
          w.sm_max >= perf::kCompetingMinSmPercent) {
        rivals.push_back(&w);
      }
    }
    std::sort(rivals.begin(), rivals.end(), [](const ProcessWindow* a, const ProcessWindow* b) {
      return a->sm_sum > b->sm_sum;
    });
    const GpuStatus& g = gpu.latest();
    Finding& f = out.Add(Severity::kWarning);
    f.gpus.push_back(g.pci_bus_id);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} is shared by {} compute processes competing for it", label,
                               rivals.size()),
                   fmt::format("{} 被 {} 个计算进程同时争用", label, rivals.size())};
    f.explanation = Text{
        "Several processes run kernels on this GPU at the same time. Without MPS or MIG the "
        "driver time-slices between them: each one waits while the others run, so every job "
        "runs slower and its step times stutter. Often one of them is a forgotten job (an idle "
        "notebook, a finished run that did not exit) or another user's work.",
        "有多个进程同时在这块 GPU 上运行 kernel。在没有 MPS 或 MIG 的情况下，驱动会在它们之间"
        "进行时间片轮转：每个进程在其他进程运行时都要等待，因此每个任务都会变慢、步长时间忽快"
        "忽慢。其中常有一个是被遗忘的任务（空闲的 Jupyter、已结束却未退出的训练）或其他用户的"
        "任务。"};
    f.evidence.push_back(perf::Measured(
        fmt::format("two or more processes at {} % of the SMs or more in {} of {} readings",
                    FormatNumber(perf::kCompetingMinSmPercent), c.competing, c.known),
        fmt::format("在 {} 次读数中有 {} 次有两个或以上的进程各占 SM 的 {} % 或更多", c.known,
                    c.competing, FormatNumber(perf::kCompetingMinSmPercent)),
        static_cast<double>(rivals.size()), "count"));
    for (const ProcessWindow* w : rivals) {
      const double avg = w->sm_sum / static_cast<double>(w->readings);
      std::string who = perf::ProcessText(w->latest);
      f.evidence.push_back(perf::Measured(
          fmt::format("{}: SM {} % avg, {} % max", who, FormatNumber(avg, 0),
                      FormatNumber(w->sm_max, 0)),
          fmt::format("{}：SM 平均 {} %，最高 {} %", who, FormatNumber(avg, 0),
                      FormatNumber(w->sm_max, 0)),
          avg, "percent"));
    }
    AddActions(f);
  }
}

}  // namespace processes_competing_rule
}  // namespace

const Rule kProcessesCompetingRule{"processes.competing", "processes",
                                   "Several compute processes competing for one GPU "
                                   "(time-slicing or a forgotten job), each named with its share",
                                   kNeedsGpuReadings, processes_competing_rule::Evaluate};

}  // namespace gpudoctor
