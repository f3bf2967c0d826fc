#include "nvml/process_utilization.h"

#include <algorithm>
#include <map>

#include "nvml/field_reader.h"

namespace gpudoctor {

namespace {
constexpr unsigned long long kStaleSampleUs = 5'000'000;
}  // namespace

void ApplyProcessUtilization(const std::vector<ProcessUtilizationSample>& samples,
                             std::vector<GpuProcess>& processes) {
  // lastSeenTimeStamp 0 asks for every sample the driver still holds: one
  // well older than the newest is from a process that has gone quiet since.
  unsigned long long newest = 0;
  for (const auto& s : samples) newest = std::max(newest, s.time_us);
  std::map<std::uint32_t, const ProcessUtilizationSample*> latest;
  for (const auto& s : samples) {
    if (s.time_us + kStaleSampleUs < newest) continue;
    auto& slot = latest[s.pid];
    if (slot == nullptr || s.time_us >= slot->time_us) slot = &s;
  }
  for (GpuProcess& p : processes) {
    auto it = latest.find(p.pid);
    if (it == latest.end()) {
      p.sm_util_percent = 0;
      p.memory_util_percent = 0;
      continue;
    }
    p.sm_util_percent = std::min(it->second->sm_percent, 100u);
    p.memory_util_percent = std::min(it->second->memory_percent, 100u);
  }
}

namespace nvml_detail {
namespace {

// Retries after INSUFFICIENT_SIZE: processes can start between two calls.
constexpr int kSizeAttempts = 3;
constexpr unsigned kHeadroom = 8;
constexpr unsigned kMaxSamples = 4096;

nvmlReturn_t QueryInfo(Reader& r, nvmlDevice_t dev, std::vector<ProcessUtilizationSample>& out) {
  const auto& f = r.fn();
  nvmlProcessesUtilizationInfo_v1_t info{};
  info.version = nvmlProcessesUtilizationInfo_v1;
  nvmlReturn_t rc = r.Call("nvmlDeviceGetProcessesUtilizationInfo",
                           f.nvmlDeviceGetProcessesUtilizationInfo, dev, &info);
  std::vector<nvmlProcessUtilizationInfo_v1_t> buffer;
  for (int attempt = 0; attempt < kSizeAttempts; ++attempt) {
    const bool sized = rc == NVML_ERROR_INSUFFICIENT_SIZE ||
                       (rc == NVML_SUCCESS && info.procUtilArray == nullptr);
    if (!sized) break;
    if (info.processSamplesCount == 0 && rc == NVML_SUCCESS) return NVML_ERROR_NOT_FOUND;
    buffer.assign(std::min(info.processSamplesCount + kHeadroom, kMaxSamples), {});
    info = {};
    info.version = nvmlProcessesUtilizationInfo_v1;
    info.processSamplesCount = static_cast<unsigned>(buffer.size());
    info.procUtilArray = buffer.data();
    rc = r.Call("nvmlDeviceGetProcessesUtilizationInfo", f.nvmlDeviceGetProcessesUtilizationInfo,
                dev, &info);
  }
  if (rc != NVML_SUCCESS || info.procUtilArray == nullptr) return rc;
  const std::size_t n = std::min<std::size_t>(info.processSamplesCount, buffer.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = buffer[i];
    out.push_back({s.pid, s.timeStamp, s.smUtil, s.memUtil});
  }
  return NVML_SUCCESS;
}

nvmlReturn_t QuerySamples(Reader& r, nvmlDevice_t dev, std::vector<ProcessUtilizationSample>& out) {
  const auto& f = r.fn();
  unsigned count = 0;
  nvmlReturn_t rc = r.Call("nvmlDeviceGetProcessUtilization", f.nvmlDeviceGetProcessUtilization,
                           dev, static_cast<nvmlProcessUtilizationSample_t*>(nullptr), &count,
                           0ULL);
  std::vector<nvmlProcessUtilizationSample_t> buffer;
  for (int attempt = 0; attempt < kSizeAttempts; ++attempt) {
    if (rc != NVML_ERROR_INSUFFICIENT_SIZE && !(rc == NVML_SUCCESS && buffer.empty())) break;
    if (rc == NVML_SUCCESS && count == 0) return NVML_ERROR_NOT_FOUND;
    buffer.assign(std::min(count + kHeadroom, kMaxSamples), {});
    count = static_cast<unsigned>(buffer.size());
    rc = r.Call("nvmlDeviceGetProcessUtilization", f.nvmlDeviceGetProcessUtilization, dev,
                buffer.data(), &count, 0ULL);
  }
  if (rc != NVML_SUCCESS || buffer.empty()) return rc;
  const std::size_t n = std::min<std::size_t>(count, buffer.size());
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = buffer[i];
    out.push_back({s.pid, s.timeStamp, s.smUtil, s.memUtil});
  }
  return NVML_SUCCESS;
}

}  // namespace

void ReadProcessUtilization(Reader& r, nvmlDevice_t dev, GpuStatus& g) {
  if (r.stopped() || !g.processes || g.processes->empty()) return;
  std::vector<ProcessUtilizationSample> samples;
  const char* call = "nvmlDeviceGetProcessesUtilizationInfo";
  nvmlReturn_t rc = QueryInfo(r, dev, samples);
  if (AnswersWithOlderCall(rc) || rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    samples.clear();
    call = "nvmlDeviceGetProcessUtilization";
    rc = QuerySamples(r, dev, samples);
  }
  if (rc == NVML_ERROR_NOT_FOUND) {
    samples.clear();  // no process used the GPU in the driver's last period
  } else if (rc != NVML_SUCCESS) {
    r.Check(rc, call, "processes");
    return;
  }
  ApplyProcessUtilization(samples, *g.processes);
}

}  // namespace nvml_detail
}  // namespace gpudoctor
