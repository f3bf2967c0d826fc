// Fuzzes ParseConfig (the TOML configuration file's text).
#include "core/config.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpudoctor;
  Result<Config> cfg = ParseConfig(fuzz::AsText(data, size), "fuzz.toml");
  if (!cfg.ok()) {
    FUZZ_CHECK(cfg.error().code == ErrorCode::kInvalid || cfg.error().code == ErrorCode::kCorrupt);
    FUZZ_CHECK(fuzz::IsOneLineNaming(cfg.error().message, "fuzz.toml:"));
    return 0;
  }
  // Validation keeps accepted values in their documented ranges.
  FUZZ_CHECK(cfg->source == "fuzz.toml");
  FUZZ_CHECK(cfg->sustained_fraction > 0 && cfg->sustained_fraction <= 1);
  FUZZ_CHECK(!cfg->psu_capacity_w || *cfg->psu_capacity_w > 0);
  for (const std::string& target : cfg->ping_targets) FUZZ_CHECK(!target.empty());
  return 0;
}
