// stress.memory_mismatch: words of device memory that read back other than
// what the pattern test wrote (0x00, 0xFF, 0xAA, 0x55, address in address).
// Data silently corrupted: critical, whatever ECC says. Without mismatches, a
// rise of NVML's uncorrected ECC, retired-page or remapped-row counters
// during the test is reported too: ECC caught what the test provoked.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "rules/active/active_util.h"
#include "rules/active/group.h"
#include "rules/engine/window_stats.h"

namespace gpudoctor {
namespace {
namespace stress_memory_mismatch_rule {

std::optional<std::int64_t> Rise(const std::optional<std::int64_t>& before,
                                 const std::optional<std::int64_t>& after) {
  if (!before || !after || *after <= *before) return std::nullopt;
  return *after - *before;
}

void AddCounterEvidence(const MemoryTestResult& m, Finding& f) {
  struct Counter {
    const char* en;
    const char* zh;
    std::optional<std::int64_t> rise;
  };
  const Counter counters[] = {
      {"uncorrected ECC errors", "不可纠正 ECC 错误", Rise(m.ecc_uncorrected_before, m.ecc_uncorrected_after)},
      {"corrected ECC errors", "可纠正 ECC 错误", Rise(m.ecc_corrected_before, m.ecc_corrected_after)},
      {"retired pages", "退役页", Rise(m.retired_pages_before, m.retired_pages_after)},
      {"remapped rows", "重映射行", Rise(m.remapped_rows_before, m.remapped_rows_after)},
  };
  for (const Counter& c : counters) {
    if (!c.rise) continue;
    f.evidence.push_back(active::Number(
        Text{fmt::format("{} rose by {} during the test", c.en, *c.rise),
             fmt::format("测试期间{}增加了 {}", c.zh, *c.rise)},
        static_cast<double>(*c.rise), "count"));
  }
}

void AddActions(const ActiveGpuResult& gpu, Finding& f) {
  f.actions.push_back(Action{
      Text{"Stop using this GPU for jobs: results computed on it may be wrong.",
           "停止在该 GPU 上运行作业：在其上计算的结果可能有误。"},
      ""});
  f.actions.push_back(Action{
      Text{"Read its ECC, retired-page and row-remapping state; a pending remap needs a GPU reset.",
           "查看其 ECC、退役页和行重映射状态；待处理的重映射需要复位 GPU。"},
      fmt::format("nvidia-smi -i {} -q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER", gpu.index)});
  f.actions.push_back(Action{
      Text{"Reset the GPU and run the memory test again; if mismatches come back, RMA the GPU "
           "(on a cloud instance: report the host with the addresses).",
           "复位 GPU 后再次运行显存测试；若仍有错误则返修 GPU（云服务器请附上地址报告宿主机）。"},
      fmt::format("sudo gpudoctor stress --tests memory --gpu {}", gpu.index)});
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const ActiveGpuResult& gpu : input.active->gpus) {
    if (!gpu.memory) continue;
    const MemoryTestResult& m = *gpu.memory;
    bool ecc_rose = Rise(m.ecc_uncorrected_before, m.ecc_uncorrected_after) ||
                    Rise(m.retired_pages_before, m.retired_pages_after) ||
                    Rise(m.remapped_rows_before, m.remapped_rows_after);
    if (m.mismatches == 0 && !ecc_rose) continue;
    std::string label = active::Label(gpu);
    std::string tested = FormatNumber(static_cast<double>(m.tested_bytes) / (1ull << 30), 1);
    Finding& f = out.Add(m.mismatches > 0 ? Severity::kCritical : Severity::kWarning);
    f.gpus.push_back(gpu.pci_bus_id);
    if (m.mismatches > 0) {
      f.title = Text{fmt::format("{}: {} words of device memory read back wrong", label, m.mismatches),
                     fmt::format("{}：{} 个显存字读回的值有误", label, m.mismatches)};
      f.evidence.push_back(active::Number(
          Text{fmt::format("{} mismatches over {} GiB, patterns {}", m.mismatches, tested,
                           fmt::join(m.patterns, ", ")),
               fmt::format("在 {} GiB 中发现 {} 处不一致，测试模式 {}", tested, m.mismatches,
                           fmt::join(m.patterns, ", "))},
          static_cast<double>(m.mismatches), "count"));
      for (std::uint64_t a : m.mismatch_addresses) {
        std::uint64_t offset = a - m.buffer_address;
        f.evidence.push_back(active::Number(
            Text{fmt::format("bad word at device address 0x{:x} ({} bytes into the tested range)", a, offset),
                 fmt::format("错误字位于设备地址 0x{:x}（测试范围内偏移 {} 字节）", a, offset)},
            static_cast<double>(offset), "bytes"));
      }
    } else {
      f.title = Text{fmt::format("{}: ECC caught memory errors during the memory test", label),
                     fmt::format("{}：显存测试期间 ECC 捕获到显存错误", label)};
    }
    AddCounterEvidence(m, f);
    f.explanation = Text{
        "gpudoctor stress wrote known patterns over most of the free device memory and read them "
        "back. Words that come back different mean the memory, or the path to it, corrupts data; "
        "ECC counters that rise mean the hardware caught errors the test provoked.",
        "`gpudoctor stress` 在大部分空闲显存中写入已知模式并读回。读回的值不同说明显存或其访问路径会破坏数据；"
        "ECC 计数增加说明硬件捕获到测试引发的错误。"};
    AddActions(gpu, f);
  }
}

}  // namespace stress_memory_mismatch_rule
}  // namespace

const Rule kStressMemoryMismatchRule{
    "stress.memory_mismatch", "memory",
    "Device memory that read back wrong in the pattern test (or ECC counters that rose during it)",
    kNeedsActive, stress_memory_mismatch_rule::Evaluate};

}  // namespace gpudoctor
