// ecc.uncorrectable: GPU memory errors by ECC and page retirement. Volatile
// uncorrected errors (since the driver loaded) mean data was corrupted now;
// aggregate ones are the GPU's history; corrected errors are a precursor (a
// warning when they rise fast in the window); retired pages pending need a
// reset, and 60 or more retired pages is the RMA limit NVIDIA's DCGM applies
// (sbe + dbe together).
#include <fmt/format.h>

#include <algorithm>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace ecc_uncorrectable_rule {

// DCGM's health check fails a GPU whose retired pages (single- plus
// double-bit causes) reach 60; later DCGM releases use 63 to match NVIDIA's
// field diagnostic. The lower figure errs on the side of telling.
constexpr double kRetiredPagesRmaLimit = 60;
// Corrected errors this many times per minute or more (DCGM's single-bit
// error rate limit) make a warning; fewer are worth knowing only.
constexpr double kCorrectedPerMinuteWarning = 10;

double MaxOf(const GpuSeries& gpu, const GpuGetter& get) {
  auto values = ValuesOf(gpu, get);
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

void CheckUncorrected(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  double volatile_unc = MaxOf(gpu, [](const GpuStatus& s) { return AsDouble(s.ecc_volatile_uncorrected); });
  double aggregate_unc = MaxOf(gpu, [](const GpuStatus& s) { return AsDouble(s.ecc_aggregate_uncorrected); });
  if (volatile_unc <= 0 && aggregate_unc <= 0) return;
  std::string label = GpuLabel(g);
  bool now = volatile_unc > 0;
  Finding& f = out.Add(now ? Severity::kCritical : Severity::kInfo);
  f.gpus.push_back(gpu.key);
  if (now) {
    f.title = Text{fmt::format("{} had uncorrectable memory (ECC) errors since the driver loaded", label),
                   fmt::format("{} 自驱动加载以来出现了不可纠正的显存（ECC）错误", label)};
    f.explanation = Text{
        "An uncorrectable ECC error means data in GPU memory was corrupted: the job that used it "
        "may have crashed or produced wrong results. The driver has to retire the bad memory "
        "(page retirement or row remapping), which takes effect only after a GPU reset.",
        "不可纠正的 ECC 错误意味着 GPU 显存中的数据已损坏：使用它的任务可能已崩溃或得出错误结果。"
        "驱动需要屏蔽坏的显存（页面退役或行重映射），这只有在 GPU 重置后才生效。"};
  } else {
    f.title = Text{fmt::format("{} had uncorrectable memory (ECC) errors in the past", label),
                   fmt::format("{} 过去曾出现不可纠正的显存（ECC）错误", label)};
    f.explanation = Text{
        "The GPU's lifetime counter holds uncorrectable ECC errors, but none since the driver "
        "loaded. The memory was likely retired or remapped then; watch for new errors.",
        "GPU 的累计计数中有不可纠正的 ECC 错误，但自驱动加载以来没有新的错误。"
        "当时的坏显存很可能已被屏蔽或重映射；请留意是否出现新的错误。"};
  }
  f.evidence.push_back(Measured(
      Text{fmt::format("uncorrected ECC errors: {} since driver load, {} lifetime",
                       FormatNumber(volatile_unc, 0), FormatNumber(aggregate_unc, 0)),
           fmt::format("不可纠正 ECC 错误：自驱动加载 {} 个，累计 {} 个", FormatNumber(volatile_unc, 0),
                       FormatNumber(aggregate_unc, 0))},
      now ? volatile_unc : aggregate_unc, "count"));
  if (now) {
    f.actions.push_back(Action{
        Text{"Treat results computed on this GPU since the error as suspect; rerun the job elsewhere.",
             "自错误发生以来在该 GPU 上计算的结果都不可信，请在其他 GPU 上重新运行任务。"},
        ""});
    f.actions.push_back(ResetGpuAction(g));
    f.actions.push_back(RebootAction());
  }
  f.actions.push_back(Action{
      Text{"Check retired pages or remapped rows; if errors keep coming back, return the GPU (RMA).",
           "检查页面退役或行重映射情况；如果错误反复出现，请返修该 GPU（RMA）。"},
      fmt::format("nvidia-smi -q -i {} -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", g.index)});
}

Text CorrectedText(const std::optional<CounterGrowth>& growth, double since_load) {
  std::string total = FormatNumber(since_load, 0);
  if (!growth) {
    return Text{fmt::format("{} corrected ECC errors since the driver loaded", total),
                fmt::format("自驱动加载以来共 {} 个可纠正 ECC 错误", total)};
  }
  std::string rise = FormatNumber(growth->increase, 0);
  std::string rate = FormatNumber(PerMinute(*growth));
  return Text{fmt::format("corrected ECC errors rose by {} in the window ({} per minute), {} since "
                          "the driver loaded", rise, rate, total),
              fmt::format("窗口内可纠正 ECC 错误增加了 {} 个（每分钟 {} 个），自驱动加载共 {} 个", rise,
                          rate, total)};
}

// Corrected errors since the driver loaded: worth knowing; rising fast in
// the window: a warning.
void CheckCorrected(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  double since_load = static_cast<double>(g.ecc_volatile_corrected.value_or(0));
  if (since_load <= 0) return;
  auto growth = GrowthOf(gpu, [](const GpuStatus& s) { return AsDouble(s.ecc_volatile_corrected); });
  bool fast = growth && PerMinute(*growth) >= kCorrectedPerMinuteWarning;
  Finding& f = out.Add(fast ? Severity::kWarning : Severity::kInfo);
  f.gpus.push_back(gpu.key);
  std::string label = GpuLabel(g);
  f.title = Text{fmt::format("{} corrected memory (ECC) errors", label),
                 fmt::format("{} 出现了可纠正的显存（ECC）错误", label)};
  f.explanation = Text{
      "ECC corrected these errors, so no data was lost, but a memory region that keeps producing "
      "them often turns into uncorrectable errors later.",
      "这些错误已被 ECC 纠正，数据没有丢失；但持续出错的显存区域之后常会发展为不可纠正的错误。"};
  double value = growth && growth->increase > 0 ? growth->increase : since_load;
  if (!growth || growth->increase <= 0) growth.reset();
  f.evidence.push_back(Measured(CorrectedText(growth, since_load), value, "count"));
  f.actions.push_back(Action{
      Text{"Watch the counters; if uncorrectable errors or pending retirements appear, reset the GPU.",
           "持续观察计数；一旦出现不可纠正错误或待退役页面，请重置 GPU。"},
      fmt::format("nvidia-smi -q -i {} -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", g.index)});
}

void CheckRetiredPages(const GpuSeries& gpu, RuleOutput& out) {
  const GpuStatus& g = gpu.latest();
  bool pending = g.retired_pages_pending.value_or(false);
  double retired = static_cast<double>(g.retired_pages_sbe.value_or(0) + g.retired_pages_dbe.value_or(0));
  bool rma = retired >= kRetiredPagesRmaLimit;
  if (!pending && !rma) return;
  std::string label = GpuLabel(g);
  Finding& f = out.Add(rma ? Severity::kCritical : Severity::kWarning);
  f.gpus.push_back(gpu.key);
  if (rma) {
    f.title = Text{fmt::format("{} has retired {} memory pages: at the replacement limit", label,
                               FormatNumber(retired, 0)),
                   fmt::format("{} 已退役 {} 个显存页面：达到更换上限", label, FormatNumber(retired, 0))};
  } else {
    f.title = Text{fmt::format("{} has memory pages waiting to be retired", label),
                   fmt::format("{} 有等待退役的显存页面", label)};
  }
  f.explanation = Text{
      "The driver retires memory pages that produced ECC errors; a new retirement takes effect "
      "only after a GPU reset or reboot. NVIDIA's tools treat 60 or more retired pages as a GPU "
      "to replace.",
      "驱动会将出现 ECC 错误的显存页面退役；新的退役只有在 GPU 重置或重启后才生效。"
      "NVIDIA 的工具将退役页面达到 60 个及以上的 GPU 视为需要更换。"};
  f.evidence.push_back(Measured(
      Text{fmt::format("retired pages: {} single-bit, {} double-bit, pending {}",
                       g.retired_pages_sbe.value_or(0), g.retired_pages_dbe.value_or(0), pending ? "yes" : "no"),
           fmt::format("退役页面：单比特 {} 个，双比特 {} 个，{}", g.retired_pages_sbe.value_or(0),
                       g.retired_pages_dbe.value_or(0), pending ? "有待退役页面" : "无待退役页面")},
      retired, "count"));
  if (pending) {
    f.actions.push_back(ResetGpuAction(g));
    f.actions.push_back(RebootAction());
  }
  if (rma) {
    f.actions.push_back(ReplaceGpuAction());
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    CheckUncorrected(gpu, out);
    CheckCorrected(gpu, out);
    CheckRetiredPages(gpu, out);
  }
}

}  // namespace ecc_uncorrectable_rule
}  // namespace

const Rule kEccUncorrectableRule{
    "ecc.uncorrectable", "ecc",
    "Uncorrectable ECC errors, corrected errors rising, retired pages pending or at the RMA limit",
    kNeedsGpuReadings, ecc_uncorrectable_rule::Evaluate};

}  // namespace gpudoctor
