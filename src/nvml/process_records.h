// The running-process lists of nvmlDeviceGetComputeRunningProcesses{,_v2,_v3},
// read without trusting one record layout. v1 writes 16-byte records, except
// on 450.66 to 465.31, whose nvml.h declares it with 24-byte ones; _v2 writes
// 24; _v3 writes 24 bytes on every driver except 535.43.02, 535.54.03 and
// 535.86.05, which write 32 (nvml_api.h). The buffer always has room for
// `slots` records of the largest layout, so that no driver can write past it,
// and before each call it is filled with a sentinel byte: for v1 and _v3 the
// bytes the driver wrote tell which layout it used (ProbeProcessRecordBytes).
//
// Pure code: the driver is reached through a ProcessQuery, so the unit tests
// play drivers of every layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "nvml/nvml_api.h"

namespace gpudoctor::nvml_detail {

constexpr std::size_t kProcessRecordV1Bytes = sizeof(nvmlProcessInfo_v1_t);  // 16
constexpr std::size_t kProcessRecordBytes = sizeof(nvmlProcessInfo_t);       // 24
constexpr std::size_t kProcessRecordCcBytes = sizeof(nvmlProcessInfoCc_t);   // 32
// Room given to each record the driver may write: the largest layout.
constexpr std::size_t kProcessSlotBytes = kProcessRecordCcBytes;
constexpr unsigned char kProcessSentinel = 0xA5;

struct ProcessRecord {
  std::uint32_t pid = 0;
  std::optional<std::int64_t> used_memory_bytes;  // nullopt: NVML_VALUE_NOT_AVAILABLE
  // The MIG GPU and compute instance the process runs in (24- and 32-byte
  // records); nullopt in 16-byte records and where the driver writes
  // 0xFFFFFFFF (not in MIG mode).
  std::optional<unsigned> gpu_instance_id;
  std::optional<unsigned> compute_instance_id;
};

// `record_bytes` arguments of QueryProcessRecords that ask it to probe: _v3's
// 24 or 32 bytes, v1's 16 or 24.
constexpr std::size_t kProbeV3Records = 0;
constexpr std::size_t kProbeV1Records = 1;

// After a call reported `count` records in `written` (filled with
// kProcessSentinel before the call), whose shorter layout is `short_bytes`
// (24 for _v3, 16 for v1): the longer layout (32, resp. 24) when the driver
// wrote any byte past short_bytes * count (only longer records reach there),
// else short_bytes. 0 records: short_bytes.
std::size_t ProbeProcessRecordBytes(std::span<const unsigned char> written, unsigned count,
                                    std::size_t short_bytes = kProcessRecordBytes);

// The first `count` records of `record_bytes` (16, 24 or 32) each in `bytes`;
// fewer when `bytes` is shorter.
std::vector<ProcessRecord> DecodeProcessRecords(std::span<const unsigned char> bytes,
                                                unsigned count, std::size_t record_bytes);

// One driver call: *count in is how many records `buffer` (buffer_bytes long,
// buffer_bytes >= *count * kProcessSlotBytes) may hold; *count out is how many
// there are. Returns the driver's answer.
using ProcessQuery =
    std::function<nvmlReturn_t(unsigned* count, unsigned char* buffer, std::size_t buffer_bytes)>;

struct ProcessList {
  nvmlReturn_t rc = NVML_ERROR_UNKNOWN;  // the last answer
  std::vector<ProcessRecord> records;    // on NVML_SUCCESS
  std::size_t record_bytes = 0;          // the layout read (16, 24 or 32)
};

// Runs NVML's fill-or-tell-the-size protocol: starts with room for
// `first_slots` records and grows on INSUFFICIENT_SIZE (headroom for processes
// that start meanwhile), at most four calls. `record_bytes` is the layout the
// call writes, or kProbeV3Records / kProbeV1Records to probe it.
ProcessList QueryProcessRecords(const ProcessQuery& query, std::size_t record_bytes,
                                unsigned first_slots = 16);

}  // namespace gpudoctor::nvml_detail
