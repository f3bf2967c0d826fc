// The header of nvidia-smi -q from driver 610: the four lines of the
// 610.57.04 capture in utkuozdemir/nvidia_gpu_exporter
// (internal/captures/linux-x86_64__nvidia-geforce-rtx-2080-super__610.57.04.txt,
// "idle :: query (-q)"), put in place of the 595 header of the real dump
// text/gpuexporter-rtx4080super-595.71.05-idle-q.txt, which then reads as a
// 610 dump of that GPU.
#pragma once

#include <string>

namespace gpudoctor::test {

// `q595` with its "Driver Version" / "CUDA Version" lines replaced; empty
// when they are not found (the fixture changed).
inline std::string With610Header(std::string q595) {
  const std::string old_header =
      "Driver Version                                         : 595.71.05\n"
      "CUDA Version                                           : 13.2\n";
  std::size_t at = q595.find(old_header);
  if (at == std::string::npos) return {};
  q595.replace(at, old_header.size(),
               "Driver Version                                         : 610.57.04 [Deprecated; "
               "will be removed in CUDA 14.0. Use KMD Version instead]\n"
               "CUDA Version                                           : 13.3 [Deprecated; will "
               "be removed in CUDA 14.0. Use CUDA UMD Version instead]\n"
               "KMD Version                                            : 610.57.04\n"
               "CUDA UMD Version                                       : 13.3\n");
  return q595;
}

}  // namespace gpudoctor::test
