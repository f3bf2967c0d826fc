// What `status` lists under "Abnormal": conditions visible in one reading of
// one GPU (throttling active, ECC errors, PCIe link below its max, pending
// remaps, lost or hung GPUs, fields that could not be read). The diagnosis
// rules look at windows of readings; this is the quick look.
#pragma once

#include <string>
#include <vector>

#include "core/gpu_status.h"
#include "core/thresholds.h"

namespace gpudoctor {

struct Anomaly {
  Level level = Level::kInfo;
  unsigned gpu = 0;
  std::string text;
};

std::vector<Anomaly> FindAnomalies(const GpuStatus& gpu, const Thresholds& thresholds);

// One reading's verdict of a GPU, the worst level of its anomalies (a lost
// or hung GPU is critical); kNormal when it has none. What the status
// table's State column, watch's title line and status --json's "verdict"
// say, so they never read "ok" beside a critical anomaly of the same GPU.
Level ReadingVerdict(const GpuStatus& gpu, const Thresholds& thresholds);
// "ok", "info", "warning" or "critical".
const char* ReadingVerdictName(Level level);

}  // namespace gpudoctor
