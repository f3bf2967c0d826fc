// xid.memory: GPU memory errors the driver logged (the catalog's memory
// category: 48, 63, 64, 92, 94, 95, 140, ...). 48 (double-bit ECC), 95
// (uncontained), 64 (remap failure) and 140 are critical; 94 (contained) and
// 63 (row marked for remapping, active after a reset) warnings; the rest per
// the catalog. Readings sharpen the remedy: a pending remap means "reset,
// then watch"; a remap failure means RMA.
#include <fmt/format.h>

#include <algorithm>

#include "knowledge/xid_catalog.h"
#include "rules/kernel_events/event_util.h"
#include "rules/kernel_events/group.h"

namespace gpudoctor {
namespace {
namespace xid_memory_rule {

using events::EventList;

Severity CodeSeverity(int code) {
  switch (code) {
    case 48:  // data corrupted; the job failed
    case 64:  // no spare rows left
    case 95:  // every context on the GPU is affected
      return Severity::kCritical;
    case 63:  // the remap needs a reset to take effect; until then the row is bad
    case 94:  // contained to the applications that used the memory
      return Severity::kWarning;
    default:
      return events::FromXidSeverity(LookupXid(code).severity);
  }
}

Text CodeSentence(int code) {
  switch (code) {
    case 48:
      return {
          "Xid 48: an uncorrectable double-bit ECC error corrupted data in GPU memory; the "
          "job that used it failed.",
          "Xid 48：不可纠正的双比特 ECC 错误损坏了显存中的数据，使用这些数据的任务已失败。"};
    case 63:
      return {
          "Xid 63: a memory row was marked for remapping (a page for retirement on older "
          "GPUs); it takes effect only after a GPU reset.",
          "Xid 63：一行显存被标记为待重映射（较旧 GPU 上为页面退役），需重置 GPU 后才生效。"};
    case 64:
      return {"Xid 64: remapping or retiring failed: the GPU has no spare memory rows left there.",
              "Xid 64：重映射或页面退役失败：该 GPU 在此处已没有备用显存行。"};
    case 92:
      return {"Xid 92: a high rate of corrected single-bit ECC errors.",
              "Xid 92：已纠正的单比特 ECC 错误发生率过高。"};
    case 94:
      return {
          "Xid 94: a contained uncorrectable error: only the applications using that memory "
          "were stopped; the GPU keeps working.",
          "Xid 94：已隔离的不可纠正错误：只有使用该显存的应用被终止，GPU 仍可继续工作。"};
    case 95:
      return {
          "Xid 95: an uncontained uncorrectable error: every application on the GPU is "
          "affected and the GPU must be reset.",
          "Xid 95：未能隔离的不可纠正错误：GPU 上所有应用都受影响，必须重置 GPU。"};
    default: {
      const XidInfo& info = LookupXid(code);
      return {fmt::format("Xid {}: {}.", code, info.meaning),
              fmt::format("Xid {}：`{}`。", code, info.meaning)};
    }
  }
}

struct RemapState {
  bool pending = false;
  bool failed = false;
};

// What the latest reading says about row remapping and ECC, as evidence.
RemapState AddReadings(const DiagnosisInput& input, const std::string& bus, Finding& f) {
  RemapState state;
  const GpuSeries* gpu = FindGpu(input, bus);
  if (!gpu) return state;
  const GpuStatus& g = gpu->latest();
  state.pending =
      g.remapped_rows_pending.value_or(false) || g.retired_pages_pending.value_or(false);
  state.failed = g.remapped_rows_failure.value_or(false);
  if (state.pending) {
    f.evidence.push_back(events::NumberEvidence(
        Text{"remapping (or page retirement) pending: it takes effect at the next GPU reset",
             "有待生效的行重映射（或页面退役）：将在下次重置 GPU 时生效"},
        1, "flag"));
  }
  if (state.failed) {
    f.evidence.push_back(events::NumberEvidence(
        Text{"row remapping failure reported by the GPU", "GPU 报告行重映射失败"}, 1, "flag"));
  }
  if (g.ecc_volatile_uncorrected.value_or(0) > 0) {
    auto n = *g.ecc_volatile_uncorrected;
    f.evidence.push_back(events::NumberEvidence(
        Text{fmt::format("{} uncorrectable ECC errors since the last reset", n),
             fmt::format("自上次重置以来有 {} 个不可纠正的 ECC 错误", n)},
        static_cast<double>(n), "count"));
  }
  return state;
}

void AddActions(const std::string& bus, const std::vector<int>& codes, RemapState state,
                Finding& f) {
  auto has = [&](int c) { return std::count(codes.begin(), codes.end(), c) > 0; };
  bool needs_reset = state.pending || has(48) || has(63) || has(95) || has(140);
  if (needs_reset) {
    f.actions.push_back(events::DrainAction(bus));
    f.actions.push_back(events::ResetGpuAction(bus));
  } else if (has(94)) {
    f.actions.push_back(
        Action{Text{"Restart the applications that were stopped; the GPU itself needs no reset.",
                    "重启被终止的应用程序；GPU 本身无需重置。"},
               ""});
  }
  f.actions.push_back(Action{
      Text{"Then watch the ECC and row-remapping counters: new errors after the reset mean the "
           "memory is failing.",
           "之后持续观察 ECC 与行重映射计数：重置后仍有新错误说明显存正在损坏。"},
      "nvidia-smi -q -d ECC,ROW_REMAPPER -i " + events::SmiTarget(bus)});
  if (has(64) || state.failed) {
    f.actions.push_back(events::CollectBugReportAction());
    f.actions.push_back(
        Action{Text{"The GPU has run out of spare memory rows: have it replaced (RMA).",
                    "该 GPU 已没有备用显存行：请更换（RMA）。"},
               ""});
  }
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  EventList memory = events::XidEventsOwnedBy(input, events::XidOwner::kMemory);
  for (const auto& [bus, group] : events::ByGpu(memory)) {
    std::vector<int> codes = events::CodesOf(group);
    Severity severity = Severity::kInfo;
    for (int code : codes) severity = std::max(severity, CodeSeverity(code));
    Finding& f = out.Add(std::max(severity, events::XidPolicyFloor(group)));
    if (!bus.empty()) f.gpus.push_back(bus);
    f.xids = codes;
    Text label = events::GpuText(input, bus);
    std::string list = fmt::format("{}", fmt::join(codes, ", "));
    f.title = Text{fmt::format("GPU memory errors on {} (Xid {})", label.en, list),
                   fmt::format("{} 出现显存错误（Xid {}）", label.zh, list)};
    for (int code : codes) {
      Text s = CodeSentence(code);
      f.explanation.en += (f.explanation.en.empty() ? "" : " ") + s.en;
      f.explanation.zh += s.zh;
    }
    events::AddEventEvidence(f, group);
    RemapState state = AddReadings(input, bus, f);
    if (state.failed) f.severity = Severity::kCritical;
    if (state.pending) f.severity = std::max(f.severity, Severity::kWarning);
    AddActions(bus, codes, state, f);
  }
}

}  // namespace xid_memory_rule
}  // namespace

const Rule kXidMemoryRule{"xid.memory", "xid",
                          "GPU memory errors: double-bit ECC, contained/uncontained errors, row "
                          "remapping events and failures (Xid 48, 63, 64, 92, 94, 95, ...)",
                          kNeedsXidEvents, xid_memory_rule::Evaluate};

}  // namespace gpudoctor
