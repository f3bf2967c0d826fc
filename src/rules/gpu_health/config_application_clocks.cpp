// config.application_clocks: application clocks set below the default
// application clocks (`nvidia-smi -ac`), which holds the GPU's clocks down
// whatever the load. A warning when the GPU is busy (it costs speed now),
// else worth knowing. Newer drivers deprecate application clocks and report
// none (nullopt): nothing to judge then.
#include <fmt/format.h>

#include "rules/gpu_health/group.h"
#include "rules/gpu_health/gpu_health_util.h"

namespace gpudoctor {
namespace {
namespace config_application_clocks_rule {

bool Below(const std::optional<std::int64_t>& set, const std::optional<std::int64_t>& default_mhz) {
  return set && default_mhz && *set < *default_mhz;
}

std::string Pair(const std::optional<std::int64_t>& graphics, const std::optional<std::int64_t>& memory) {
  auto text = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
  return fmt::format("{}/{} MHz", text(graphics), text(memory));
}

void Evaluate(const DiagnosisInput& input, RuleOutput& out) {
  for (const GpuSeries& gpu : input.gpus) {
    const GpuStatus& g = gpu.latest();
    bool graphics_low = Below(g.clocks_applications_graphics_mhz, g.clocks_default_applications_graphics_mhz);
    bool memory_low = Below(g.clocks_applications_memory_mhz, g.clocks_default_applications_memory_mhz);
    if (!graphics_low && !memory_low) continue;
    Finding& f = out.Add(SustainedBusy(gpu, input) ? Severity::kWarning : Severity::kInfo);
    f.gpus.push_back(gpu.key);
    std::string label = GpuLabel(g);
    f.title = Text{fmt::format("{} application clocks are set below their defaults", label),
                   fmt::format("{} 的应用时钟被设置为低于默认值", label)};
    f.explanation = Text{
        "Application clocks are the clocks the GPU runs at when it has work. Set lower than the "
        "defaults, they keep the GPU slower than it can be under any load. They are usually left "
        "over from a benchmark or a power experiment.",
        "应用时钟是 GPU 有任务时运行的频率。设置得低于默认值时，无论负载如何 GPU 都比应有的速度慢。"
        "这通常是基准测试或功耗实验遗留的设置。"};
    std::string set = Pair(g.clocks_applications_graphics_mhz, g.clocks_applications_memory_mhz);
    std::string dflt = Pair(g.clocks_default_applications_graphics_mhz, g.clocks_default_applications_memory_mhz);
    double value = static_cast<double>(graphics_low ? *g.clocks_applications_graphics_mhz
                                                    : *g.clocks_applications_memory_mhz);
    f.evidence.push_back(Measured(
        Text{fmt::format("application clocks (graphics/memory) {}, defaults {}", set, dflt),
             fmt::format("应用时钟（图形/显存）{}，默认值 {}", set, dflt)},
        value, "megahertz"));
    f.actions.push_back(Action{Text{"Reset the application clocks to their defaults.", "将应用时钟恢复为默认值。"},
                               fmt::format("sudo nvidia-smi -i {} -rac", g.index)});
  }
}

}  // namespace config_application_clocks_rule
}  // namespace

const Rule kConfigApplicationClocksRule{"config.application_clocks", "config",
                                        "Application clocks set below the default application clocks",
                                        kNeedsGpuReadings, config_application_clocks_rule::Evaluate};

}  // namespace gpudoctor
