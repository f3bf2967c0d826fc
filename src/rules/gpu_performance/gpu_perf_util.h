// Helpers shared by the GPU performance rules (rules/gpu_performance/group.cpp): field
// series over a window, evidence items with units, the power limit in force,
// whether a GPU holds work, and the PCIe link's bandwidth. Pure. In their own
// namespace so that other groups' helpers cannot collide at link time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor::perf {

// Below this utilisation a GPU counts as idle (NVML reports a few percent of
// background activity on an otherwise idle GPU).
inline constexpr double kIdleUtilizationPercent = 5;
// A GPU whose process list is unknown or empty but with this share of its
// memory in use still holds work (containers hide other namespaces' pids).
inline constexpr double kHeldMemoryMinPercent = 5;
// PCIe traffic (tx + rx) at or above this share of one direction's link
// bandwidth is "high".
inline constexpr double kPcieBusyRatio = 0.5;
// GPM (Hopper and later): utilisation at or above kBusyUtilizationPercent
// while under kSmIdleActivityPercent of the SMs are active is "busy but idle
// SMs"; tensor pipes under kTensorIdlePercent while the FP32 pipe is at or
// above kFp32BusyPercent is FP32 work on a tensor-core GPU; DRAM bandwidth at
// or above kDramSaturatedPercent is memory-bandwidth bound.
inline constexpr double kBusyUtilizationPercent = 80;
inline constexpr double kSmIdleActivityPercent = 40;
inline constexpr double kTensorIdlePercent = 5;
inline constexpr double kFp32BusyPercent = 30;
inline constexpr double kDramSaturatedPercent = 80;

// The values of an optional field over the window's readings (absent skipped).
std::vector<double> IntSeries(const GpuSeries& gpu, std::optional<std::int64_t> GpuStatus::*field);
std::vector<double> RealSeries(const GpuSeries& gpu, std::optional<double> GpuStatus::*field);

// Share (0..1) of readings for which `test` gives true, among those for which
// it gives a value; nullopt when it gives none.
using ReadingTest = std::function<std::optional<bool>(const GpuStatus&)>;
std::optional<double> ShareOfReadings(const GpuSeries& gpu, const ReadingTest& test);

// A measured evidence item (no log line).
EvidenceItem Measured(std::string en, std::string zh, double value, std::string unit);
// "<reason> active in N % of M readings" with the share in percent.
EvidenceItem ReasonShareEvidence(double share, std::size_t readings, std::string_view reason_en,
                                 std::string_view reason_zh);

// The limit the GPU enforces: the enforced limit, else the configured one.
std::optional<double> PowerLimitW(const GpuStatus& gpu);

// True when the reading shows work on the GPU: a compute process, or memory
// in use (at least kHeldMemoryMinPercent) when no process is listed.
bool HoldsWork(const GpuStatus& gpu);

// "40 GiB" / "1.5 GiB".
std::string GiBText(double bytes);

// The reading's compute processes, most memory first, at most `count`.
std::vector<GpuProcess> TopProcesses(const GpuStatus& gpu, std::size_t count);
// "`python3` (pid 4242, 40 GiB)", with ", `alice`, pod `<uid>`" (or
// container) where the owner is known: the same in both languages.
std::string ProcessText(const GpuProcess& process);
// ", `alice`, pod `<uid>`" or "" (the owner part of ProcessText).
std::string OwnerText(const GpuProcess& process);

// Two or more compute processes each taking at least this share of the SMs
// (per-process utilisation) compete for the GPU.
inline constexpr double kCompetingMinSmPercent = 10;
// ProcessText of each, joined with ", ".
std::string ProcessListText(const std::vector<GpuProcess>& processes);

// One direction's bandwidth of the link at its current generation and
// width, in bytes per second; nullopt when either is unknown.
std::optional<double> PcieLinkBytesPerS(const GpuStatus& gpu);
// PCIe traffic (tx + rx) in bytes per second: GPM's rates where the GPU has
// them (averaged over the whole interval between two samples), else NVML's
// throughput counters (a 20 ms window); nullopt when neither is known.
std::optional<double> PcieTrafficBytesPerS(const GpuStatus& gpu);
// True when the reading's PCIe traffic comes from GPM.
bool PcieTrafficFromGpm(const GpuStatus& gpu);
// (tx + rx) / one direction's bandwidth; nullopt when any part is unknown.
std::optional<double> PcieTrafficRatio(const GpuStatus& gpu);
// True when PCIe traffic is high (kPcieBusyRatio) while utilisation is below
// the normal minimum, in a sustained share of the readings.
bool PcieTransferBound(const GpuSeries& gpu, const Config& config);

}  // namespace gpudoctor::perf
