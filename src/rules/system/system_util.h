// Small helpers shared by the host and system rules (rules/system/group.cpp):
// evidence items with a number or a log line, byte and rate formatting, and
// the GPU-side facts several of these rules ask for. Pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// Evidence with a measured number and its unit.
EvidenceItem NumberEvidence(std::string en, std::string zh, double value, std::string unit);
// Evidence that is only text (a version, a state, a detail line).
EvidenceItem TextEvidence(std::string en, std::string zh);
// Evidence that is one line of a log file.
EvidenceItem LogLineEvidence(std::string line, SourceRef source, std::optional<WallTime> time);

// "`text`": how Chinese texts quote English that comes from outside (log
// lines, error messages, command lines, paths), so it is shown as it is.
std::string Backquoted(const std::string& text);

// Bytes in GiB for display: 68719476736 -> "64".
std::string GibText(double bytes);
// Bytes (or bytes per second) in MiB for display, two decimals.
std::string MibText(double bytes);

// Whether the GPU had at least one process in any reading of the window
// (NVML lists compute and graphics processes; nullopt lists count as none).
bool GpuHasProcesses(const GpuSeries& gpu);

// The GPU utilisation values of a series, in percent.
std::vector<double> UtilizationValues(const GpuSeries& gpu);

// The labels "GPU 0 (0000:18:00.0)" of the series, joined with ", ".
std::string GpuLabels(const std::vector<const GpuSeries*>& gpus);

// True when the NVIDIA PCI device list was read and holds no GPU: then there
// is nothing on this machine for the driver or NVML to find.
bool NoNvidiaGpuOnBus(const DiagnosisInput& input);

}  // namespace gpudoctor
