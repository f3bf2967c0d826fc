#include "nvml/process_records.h"

#include <algorithm>
#include <cstring>

namespace gpudoctor::nvml_detail {
namespace {

// Reads a T at `offset` of `bytes` (records need not be aligned for us).
template <typename T>
T ProcessRecordField(std::span<const unsigned char> bytes, std::size_t offset) {
  T value{};
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

// Most records NVML will be asked for: a count above this is a driver fault.
constexpr unsigned kMostProcessSlots = 65536;

}  // namespace

std::size_t ProbeProcessRecordBytes(std::span<const unsigned char> written, unsigned count,
                                    std::size_t short_bytes) {
  const std::size_t long_bytes =
      short_bytes == kProcessRecordV1Bytes ? kProcessRecordBytes : kProcessRecordCcBytes;
  const std::size_t short_end = std::size_t{count} * short_bytes;
  const std::size_t long_end = std::min(std::size_t{count} * long_bytes, written.size());
  for (std::size_t i = short_end; i < long_end; ++i) {
    // A short-record driver never reaches here; a long-record one writes the
    // tail fields of its last records (instance ids, pids, memory), which
    // cannot all equal the sentinel.
    if (written[i] != kProcessSentinel) return long_bytes;
  }
  return short_bytes;
}

std::vector<ProcessRecord> DecodeProcessRecords(std::span<const unsigned char> bytes,
                                                unsigned count, std::size_t record_bytes) {
  std::vector<ProcessRecord> out;
  if (record_bytes < kProcessRecordV1Bytes) return out;
  const std::size_t fit = bytes.size() / record_bytes;
  const std::size_t n = std::min<std::size_t>(count, fit);
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    // Every layout starts {unsigned pid; (pad); unsigned long long used}.
    const std::size_t at = i * record_bytes;
    ProcessRecord r;
    r.pid = ProcessRecordField<unsigned>(bytes, at + offsetof(nvmlProcessInfo_t, pid));
    const auto used = ProcessRecordField<unsigned long long>(
        bytes, at + offsetof(nvmlProcessInfo_t, usedGpuMemory));
    if (used != ~0ULL) r.used_memory_bytes = static_cast<std::int64_t>(used);
    if (record_bytes >= kProcessRecordBytes) {
      // The 24- and 32-byte layouts agree up to computeInstanceId.
      const auto gi =
          ProcessRecordField<unsigned>(bytes, at + offsetof(nvmlProcessInfo_t, gpuInstanceId));
      const auto ci =
          ProcessRecordField<unsigned>(bytes, at + offsetof(nvmlProcessInfo_t, computeInstanceId));
      if (gi != ~0U) r.gpu_instance_id = gi;
      if (ci != ~0U) r.compute_instance_id = ci;
    }
    out.push_back(r);
  }
  return out;
}

ProcessList QueryProcessRecords(const ProcessQuery& query, std::size_t record_bytes,
                                unsigned first_slots) {
  ProcessList result;
  unsigned slots = std::clamp(first_slots, 1u, kMostProcessSlots);
  for (int attempt = 0; attempt < 4; ++attempt) {
    // 8-byte words, so that the driver's records are aligned as in C.
    std::vector<std::uint64_t> storage(slots * kProcessSlotBytes / sizeof(std::uint64_t));
    auto* buffer = reinterpret_cast<unsigned char*>(storage.data());
    const std::size_t buffer_bytes = storage.size() * sizeof(std::uint64_t);
    std::memset(buffer, kProcessSentinel, buffer_bytes);
    unsigned count = slots;
    result.rc = query(&count, buffer, buffer_bytes);
    if (result.rc == NVML_SUCCESS) {
      count = std::min(count, slots);  // never decode past what we gave
      const std::span<const unsigned char> written(buffer, buffer_bytes);
      if (record_bytes == kProbeV3Records) {
        result.record_bytes = ProbeProcessRecordBytes(written, count, kProcessRecordBytes);
      } else if (record_bytes == kProbeV1Records) {
        result.record_bytes = ProbeProcessRecordBytes(written, count, kProcessRecordV1Bytes);
      } else {
        result.record_bytes = record_bytes;
      }
      result.records = DecodeProcessRecords(written, count, result.record_bytes);
      return result;
    }
    if (result.rc != NVML_ERROR_INSUFFICIENT_SIZE || count <= slots ||
        count > kMostProcessSlots - 8) {
      return result;
    }
    slots = count + 8;  // headroom: processes may start meanwhile
  }
  return result;
}

}  // namespace gpudoctor::nvml_detail
