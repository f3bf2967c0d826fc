// cpu.bottleneck: GPUs that have work (processes) but stay below the normal
// utilisation while the host CPU is saturated, waits for I/O, or loses time
// to the hypervisor (steal): the GPUs starve for input.
#include <fmt/format.h>

#include "rules/system/group.h"
#include "rules/system/system_util.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace cpu_bottleneck_rule {

// Shares of CPU time that mean the CPU side cannot keep up.
constexpr double kBusySaturatedPercent = 90;
constexpr double kIowaitHighPercent = 20;
constexpr double kStealHighPercent = 10;

struct CpuPressure {
  bool busy = false;   // host-wide busy, or the container's quota used up
  bool quota = false;  // busy because of the cgroup quota
  bool iowait = false;
  bool steal = false;
  bool Any() const { return busy || iowait || steal; }
};

// Cores the listed top processes keep busy: a lower bound on what a
// container uses, since /proc/stat is host-wide even inside one.
double TopProcessCores(const CpuUsage& usage) {
  double cores = 0;
  for (const ProcessCpu& p : usage.top_processes) cores += p.cpu_percent / 100;
  return cores;
}

CpuPressure JudgeCpu(const HostFacts& host) {
  CpuPressure p;
  const CpuPercent& total = host.cpu_usage.total;
  p.busy = total.total_percent >= kBusySaturatedPercent;
  const CpuInfo& cpu = host.cpu;
  if (!p.busy && cpu.effective_cores && cpu.online_cores &&
      *cpu.effective_cores < *cpu.online_cores) {
    p.quota = TopProcessCores(host.cpu_usage) >= *cpu.effective_cores * kBusySaturatedPercent / 100;
    p.busy = p.quota;
  }
  p.iowait = total.iowait_percent >= kIowaitHighPercent;
  p.steal = total.steal_percent >= kStealHighPercent;
  return p;
}

std::vector<const GpuSeries*> StarvingGpus(const DiagnosisInput& input) {
  std::vector<const GpuSeries*> out;
  const double min_percent = input.config.thresholds.utilization_normal_min_percent;
  for (const GpuSeries& gpu : input.gpus) {
    if (!GpuHasProcesses(gpu)) continue;
    if (SustainedBelow(UtilizationValues(gpu), min_percent, input.config.sustained_fraction)) {
      out.push_back(&gpu);
    }
  }
  return out;
}

void AddCpuEvidence(const HostFacts& host, Finding& f) {
  const CpuPercent& t = host.cpu_usage.total;
  std::string window = FormatNumber(host.cpu_usage.window_s);
  f.evidence.push_back(
      NumberEvidence(fmt::format("CPU busy {} % over {} s (saturated from {} %)",
                                 FormatNumber(t.total_percent), window, kBusySaturatedPercent),
                     fmt::format("{} 秒内 CPU 忙碌 {} %（{} % 起视为饱和）", window,
                                 FormatNumber(t.total_percent), kBusySaturatedPercent),
                     t.total_percent, "percent"));
  f.evidence.push_back(
      NumberEvidence(fmt::format("I/O wait {} % (high from {} %)", FormatNumber(t.iowait_percent),
                                 kIowaitHighPercent),
                     fmt::format("I/O 等待 {} %（{} % 起视为过高）", FormatNumber(t.iowait_percent),
                                 kIowaitHighPercent),
                     t.iowait_percent, "percent"));
  f.evidence.push_back(NumberEvidence(
      fmt::format("steal {} % (high from {} %)", FormatNumber(t.steal_percent), kStealHighPercent),
      fmt::format("被宿主机抢占（steal）{} %（{} % 起视为过高）", FormatNumber(t.steal_percent),
                  kStealHighPercent),
      t.steal_percent, "percent"));
  if (host.cpu.load && host.cpu.effective_cores) {
    std::string load = FormatNumber(host.cpu.load->load1, 2);
    std::string cores = FormatNumber(*host.cpu.effective_cores);
    f.evidence.push_back(
        NumberEvidence(fmt::format("load average {} (1 min) on {} usable cores", load, cores),
                       fmt::format("1 分钟平均负载 {}，可用 CPU 核数 {}", load, cores),
                       host.cpu.load->load1, "count"));
  }
  for (const ProcessCpu& p : host.cpu_usage.top_processes) {
    std::string what = Backquoted(p.cmdline.empty() ? p.comm : p.cmdline);
    f.evidence.push_back(NumberEvidence(
        fmt::format("pid {} {} uses {} % of a core", p.pid, what, FormatNumber(p.cpu_percent)),
        fmt::format("进程 {} {} 占用 {} % 单核 CPU", p.pid, what, FormatNumber(p.cpu_percent)),
        p.cpu_percent, "percent"));
  }
}

void AddGpuEvidence(const std::vector<const GpuSeries*>& gpus, Finding& f) {
  for (const GpuSeries* gpu : gpus) {
    auto util = Summarize(UtilizationValues(*gpu));
    std::string label = GpuLabel(gpu->latest());
    f.gpus.push_back(gpu->key);
    f.evidence.push_back(
        NumberEvidence(fmt::format("{} utilisation avg {} %, max {} % with processes running",
                                   label, FormatNumber(util->avg), FormatNumber(util->max)),
                       fmt::format("{} 有进程运行，但利用率平均 {} %，最高 {} %", label,
                                   FormatNumber(util->avg), FormatNumber(util->max)),
                       util->avg, "percent"));
  }
}

void AddActions(const CpuPressure& p, Finding& f) {
  if (p.steal) {
    f.actions.push_back(Action{
        Text{"The hypervisor gives this VM's CPU time to other tenants (steal, a noisy "
             "neighbour): stop and start the instance so that it moves to another host, or use a "
             "dedicated instance type.",
             "虚拟化层把本实例的 CPU "
             "时间分给了其他租户（steal，即“吵闹的邻居”）：停止再启动实例以迁移到"
             "其他宿主机，或改用独享型实例。"},
        "vmstat 1 5"});
  }
  if (p.iowait) {
    f.actions.push_back(Action{
        Text{"Storage is too slow for the input pipeline: copy the data set to local NVMe or "
             "memory, pack small files into larger shards, and prefetch more batches.",
             "存储速度跟不上数据输入：把数据集复制到本地 NVMe "
             "盘或内存，把小文件打包成大分片，并增加预取的批次。"},
        "iostat -x 1 5"});
  }
  if (p.busy) {
    f.actions.push_back(Action{
        Text{"Parallelise data loading: raise DataLoader num_workers (PyTorch) or use "
             "num_parallel_calls=AUTOTUNE (tf.data); move decoding and augmentation to the GPU "
             "(e.g. NVIDIA DALI).",
             "并行化数据加载：调大 PyTorch DataLoader 的 num_workers，或在 tf.data 中使用 "
             "num_parallel_calls=AUTOTUNE；把解码和数据增强移到 GPU 上（例如 NVIDIA DALI）。"},
        "top -o %CPU"});
    f.actions.push_back(Action{
        Text{p.quota ? "Raise the container's CPU limit, or use an instance with more vCPUs per "
                       "GPU (4-8 per GPU)."
                     : "Use an instance with more vCPUs per GPU (4-8 per GPU).",
             p.quota ? "提高容器的 CPU 限额，或改用每块 GPU 配更多 vCPU 的实例（每块 GPU 4-8 个）。"
                     : "改用每块 GPU 配更多 vCPU 的实例（每块 GPU 4-8 个）。"},
        ""});
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  const HostFacts& host = *input.host;
  if (!host.cpu_usage.available) {
    out.NotCheckedBecause(Text{"host CPU utilisation could not be measured: " + host.cpu_usage.why,
                               "无法测量主机 CPU 利用率：" + Backquoted(host.cpu_usage.why)});
    return;
  }
  auto gpus = StarvingGpus(input);
  CpuPressure pressure = JudgeCpu(host);
  if (gpus.empty() || !pressure.Any()) return;

  Finding& f = out.Add(Severity::kWarning);
  std::string labels = GpuLabels(gpus);
  f.title = Text{
      fmt::format("{} wait for the CPU: low utilisation while the host CPU is saturated", labels),
      fmt::format("{} 在等待 CPU：主机 CPU 饱和，GPU 利用率偏低", labels)};
  f.explanation = Text{
      "These GPUs have processes but stay below the normal utilisation, while the host CPU has no "
      "time to spare (busy, waiting for storage, or taken by the hypervisor). The GPUs then wait "
      "for data prepared on the CPU, and the job runs slower than the GPUs allow.",
      "这些 GPU 上有进程在运行，但利用率低于正常范围；与此同时主机 CPU "
      "已无余力（忙碌、等待存储，或被虚拟化层占用）。"
      "GPU 因此在等待 CPU 准备数据，任务速度达不到 GPU 的能力。"};
  AddGpuEvidence(gpus, f);
  AddCpuEvidence(host, f);
  AddActions(pressure, f);
}

}  // namespace cpu_bottleneck_rule
}  // namespace

const Rule kCpuBottleneckRule{
    "cpu.bottleneck", "cpu",
    "GPUs with work below normal utilisation while the host CPU is saturated, in I/O wait or "
    "stolen",
    kNeedsGpuReadings | kNeedsHost, cpu_bottleneck_rule::Evaluate};

}  // namespace gpudoctor
