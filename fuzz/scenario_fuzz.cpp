// Fuzzes the fake NVML's scenario reader (JSON, or nvidia-smi XML): the
// file every end-to-end test drives the fake driver with. It reads a path,
// so each input is written to one file per process first.
#include <unistd.h>

#include <fstream>
#include <string>

#include "../tests/fake_nvml/fake_scenario.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/gpudoctor-fuzz-scenario-" + std::to_string(getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  std::string error;
  std::optional<fake::Scenario> s = fake::LoadScenario(path, &error);
  if (!s) {
    FUZZ_CHECK(gpudoctor::fuzz::IsOneLineNaming(error, path + ": "));
    return 0;
  }
  FUZZ_CHECK(error.empty());
  FUZZ_CHECK(s->gpus.size() <= fake::kMaxGpus);
  FUZZ_CHECK(!s->nvml_version.empty());
  return 0;
}
