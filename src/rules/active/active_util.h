// Helpers shared by the stress.* rules: a GPU's samples during its load,
// when it was lost, and evidence items.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor::active {

// "GPU 2 (0000:3b:00.0)".
std::string Label(const ActiveGpuResult& gpu);
// Seconds from the run's start to `time`.
double SecondsIntoRun(const ActiveRun& run, WallTime time);
// The GPU's 100 ms series, or nullptr.
const GpuSeries* SeriesOf(const DiagnosisInput& input, const ActiveGpuResult& gpu);
// Seconds since the run began at which NVML first read the GPU as lost.
std::optional<double> LostAtS(const DiagnosisInput& input, const ActiveGpuResult& gpu);
// Seconds since the GPU's load began, for a reading taken at `time`;
// nullopt before the load (or when the GPU never took load).
std::optional<double> SecondsIntoLoad(const ActiveRun& run, const ActiveGpuResult& gpu,
                                      const std::optional<WallTime>& time);
// The GPU's samples during its load that had any bit of `mask` among their
// clock event reasons: how many, of how many load samples with a mask, and
// the first (its reading and seconds into the load).
struct ReasonUnderLoad {
  std::size_t hits = 0;
  std::size_t load_samples = 0;
  double first_into_s = 0;
  const GpuStatus* first = nullptr;
};
std::optional<ReasonUnderLoad> FindReasonUnderLoad(const DiagnosisInput& input,
                                                   const ActiveGpuResult& gpu, std::uint64_t mask);
// The median of a non-empty list.
double Median(std::vector<double> values);
EvidenceItem Number(Text text, double value, std::string unit);
// "2.1 TB/s"-style: GB/s below 1000, TB/s above.
std::string Bandwidth(double gbps);
// The cause keys (Finding::causes, rules/engine/cause_fold.h) of the
// stress findings: a GPU's PCIe path, and a GPU pair (both directions),
// which a copy through PCIe shares with either GPU's PCIe path.
std::string PcieCause(const std::string& bus);
std::vector<std::string> PeerPairCauses(const ActivePeerCopy& p);
// A slow GPU pair's two actions: how the GPUs are connected, and both
// GPUs' NVLink state and error counters.
void AddPeerPairActions(Finding& f, unsigned src_index, unsigned dst_index);

}  // namespace gpudoctor::active
