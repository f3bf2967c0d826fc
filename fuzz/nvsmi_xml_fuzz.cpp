// Fuzzes ParseNvidiaSmiXml (nvidia-smi -q -x documents).
#include "parse/nvsmi_xml.h"
#include "status_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpudoctor::fuzz::CheckStatusParser(gpudoctor::ParseNvidiaSmiXml,
                                     gpudoctor::fuzz::AsText(data, size), "fuzz.xml");
  return 0;
}
