// The process-list reader against drivers of every record layout: 16-byte
// v1, 24-byte _v2/_v3 and the 32-byte _v3 of 535.43.02/535.54.03/535.86.05.
// Each stub driver checks, before it writes, that the buffer it was given
// holds *count records of the largest layout, as a real driver trusts it.
#include "nvml/process_records.h"

#include <gtest/gtest.h>

#include <cstring>

namespace gpudoctor::nvml_detail {
namespace {

struct StubProcess {
  unsigned pid;
  unsigned long long used;
};

std::vector<StubProcess> StubProcesses(unsigned n) {
  std::vector<StubProcess> out;
  for (unsigned i = 0; i < n; ++i) {
    out.push_back({4000 + i * 7, (i + 1) * 1073741824ULL + i});
  }
  return out;
}

// A driver writing `record_bytes`-byte records; counts its calls and any
// call whose buffer was too small for what it may write.
struct StubDriver {
  std::size_t record_bytes;
  std::vector<StubProcess> processes;
  int calls = 0;
  int short_buffers = 0;

  nvmlReturn_t operator()(unsigned* count, unsigned char* buffer, std::size_t buffer_bytes) {
    ++calls;
    if (buffer_bytes < std::size_t{*count} * kProcessSlotBytes) ++short_buffers;
    const auto needed = static_cast<unsigned>(processes.size());
    if (*count < needed) {
      *count = needed;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (unsigned i = 0; i < needed; ++i) {
      nvmlProcessInfoCc_t r{};
      r.pid = processes[i].pid;
      r.usedGpuMemory = processes[i].used;
      r.gpuInstanceId = 0xFFFFFFFFu;
      r.computeInstanceId = 0xFFFFFFFFu;
      r.usedGpuCcProtectedMemory = 0;
      std::memcpy(buffer + i * record_bytes, &r, record_bytes);
    }
    *count = needed;
    return NVML_SUCCESS;
  }
};

ProcessList Query(StubDriver& driver, std::size_t record_bytes, unsigned first_slots = 16) {
  return QueryProcessRecords(
      [&](unsigned* count, unsigned char* buffer, std::size_t bytes) {
        return driver(count, buffer, bytes);
      },
      record_bytes, first_slots);
}

void ExpectRecords(const ProcessList& list, const std::vector<StubProcess>& want) {
  ASSERT_EQ(list.rc, NVML_SUCCESS);
  ASSERT_EQ(list.records.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(list.records[i].pid, want[i].pid) << "record " << i;
    ASSERT_TRUE(list.records[i].used_memory_bytes.has_value()) << "record " << i;
    EXPECT_EQ(*list.records[i].used_memory_bytes, static_cast<std::int64_t>(want[i].used))
        << "record " << i;
  }
}

class ProcessRecordsByLayout
    : public ::testing::TestWithParam<std::tuple<std::size_t, unsigned>> {};

// _v3 writes 24- or 32-byte records, never v1's 16.
class V3ProcessRecordsByLayout : public ProcessRecordsByLayout {};

TEST_P(V3ProcessRecordsByLayout, ProbesTheLayoutAndReadsEveryPid) {
  const auto [record_bytes, n] = GetParam();
  StubDriver driver{record_bytes, StubProcesses(n)};
  ProcessList list = Query(driver, /*probe*/ 0);
  ExpectRecords(list, driver.processes);
  if (n > 0) {
    EXPECT_EQ(list.record_bytes, record_bytes);
  }
  EXPECT_EQ(driver.short_buffers, 0) << "a driver could write past the buffer";
}

TEST_P(ProcessRecordsByLayout, FixedLayoutCallsReadEveryPid) {
  const auto [record_bytes, n] = GetParam();
  StubDriver driver{record_bytes, StubProcesses(n)};
  ProcessList list = Query(driver, record_bytes);
  ExpectRecords(list, driver.processes);
  EXPECT_EQ(list.record_bytes, record_bytes);
  EXPECT_EQ(driver.short_buffers, 0);
}

TEST_P(ProcessRecordsByLayout, GrowsFromASmallBufferWithoutEverBeingShort) {
  const auto [record_bytes, n] = GetParam();
  StubDriver driver{record_bytes, StubProcesses(n)};
  ProcessList list = Query(driver, record_bytes == kProcessRecordV1Bytes ? record_bytes : 0,
                           /*first_slots*/ 2);
  ExpectRecords(list, driver.processes);
  EXPECT_EQ(driver.calls, n > 2 ? 2 : 1);
  EXPECT_EQ(driver.short_buffers, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, ProcessRecordsByLayout,
    ::testing::Combine(::testing::Values(kProcessRecordV1Bytes, kProcessRecordBytes,
                                         kProcessRecordCcBytes),
                       ::testing::Values(0u, 1u, 2u, 3u, 7u, 8u, 16u, 40u)));

INSTANTIATE_TEST_SUITE_P(
    Layouts, V3ProcessRecordsByLayout,
    ::testing::Combine(::testing::Values(kProcessRecordBytes, kProcessRecordCcBytes),
                       ::testing::Values(0u, 1u, 2u, 3u, 7u, 8u, 16u, 40u)));

TEST(ProcessRecords, ReadingThirtyTwoByteRecordsAsTwentyFourMisreadsAllButTheFirst) {
  // What gpudoctor did on 535.54.03: the test above would fail this way.
  StubDriver driver{kProcessRecordCcBytes, StubProcesses(3)};
  ProcessList list = Query(driver, kProcessRecordBytes);
  ASSERT_EQ(list.records.size(), 3u);
  EXPECT_EQ(list.records[0].pid, driver.processes[0].pid);
  EXPECT_NE(list.records[1].pid, driver.processes[1].pid);
}

TEST(ProcessRecords, ProbeLooksOnlyPastTheShortLayout) {
  std::vector<unsigned char> buffer(4 * kProcessSlotBytes, kProcessSentinel);
  EXPECT_EQ(ProbeProcessRecordBytes(buffer, 0), kProcessRecordBytes);
  std::memset(buffer.data(), 0, 2 * kProcessRecordBytes);  // two 24-byte records
  EXPECT_EQ(ProbeProcessRecordBytes(buffer, 2), kProcessRecordBytes);
  buffer[2 * kProcessRecordBytes + 5] = 0;  // a byte only a 32-byte layout writes
  EXPECT_EQ(ProbeProcessRecordBytes(buffer, 2), kProcessRecordCcBytes);
  // A count larger than the buffer never reads past it.
  EXPECT_EQ(ProbeProcessRecordBytes(std::span(buffer).first(10), 2), kProcessRecordBytes);
}

TEST(ProcessRecords, V1ProbeTellsSixteenFromTwentyFourByteRecords) {
  // 450.66 to 465.31 declare the legacy call with 24-byte records.
  for (std::size_t record_bytes : {kProcessRecordV1Bytes, kProcessRecordBytes}) {
    for (unsigned n : {0u, 1u, 2u, 3u, 8u, 40u}) {
      SCOPED_TRACE(::testing::Message() << record_bytes << " bytes, " << n << " processes");
      StubDriver driver{record_bytes, StubProcesses(n)};
      ProcessList list = Query(driver, kProbeV1Records);
      ExpectRecords(list, driver.processes);
      if (n > 0) {
        EXPECT_EQ(list.record_bytes, record_bytes);
      }
      EXPECT_EQ(driver.short_buffers, 0);
    }
  }
}

TEST(ProcessRecords, ReadingTwentyFourByteV1RecordsAsSixteenMisreadsThem) {
  // What gpudoctor did on those drivers when v1 was its fallback.
  StubDriver driver{kProcessRecordBytes, StubProcesses(3)};
  ProcessList list = Query(driver, kProcessRecordV1Bytes);
  ASSERT_EQ(list.records.size(), 3u);
  EXPECT_NE(list.records[1].pid, driver.processes[1].pid);
}

TEST(ProcessRecords, UnknownMemoryIsNulloptAndShortBytesDecodeFewer) {
  nvmlProcessInfo_t r[2] = {};
  r[0].pid = 7;
  r[0].usedGpuMemory = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE
  r[1].pid = 8;
  r[1].usedGpuMemory = 42;
  std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(r), sizeof r);
  auto all = DecodeProcessRecords(bytes, 2, kProcessRecordBytes);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_FALSE(all[0].used_memory_bytes.has_value());
  EXPECT_EQ(all[1].used_memory_bytes, 42);
  EXPECT_EQ(DecodeProcessRecords(bytes.first(30), 2, kProcessRecordBytes).size(), 1u);
  EXPECT_TRUE(DecodeProcessRecords(bytes, 2, 0).empty());
}

// On MIG each record names the GPU and compute instance of its process;
// 0xFFFFFFFF (not in MIG mode) and v1's 16-byte records name none.
TEST(ProcessRecords, MigInstanceIdsOfEachLayout) {
  nvmlProcessInfoCc_t cc[2] = {};
  cc[0].pid = 7;
  cc[0].gpuInstanceId = 1;
  cc[0].computeInstanceId = 0;
  cc[1].pid = 8;
  cc[1].gpuInstanceId = 0xFFFFFFFFu;
  cc[1].computeInstanceId = 0xFFFFFFFFu;
  std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(cc), sizeof cc);
  auto wide = DecodeProcessRecords(bytes, 2, kProcessRecordCcBytes);
  ASSERT_EQ(wide.size(), 2u);
  EXPECT_EQ(wide[0].gpu_instance_id, 1u);
  EXPECT_EQ(wide[0].compute_instance_id, 0u);
  EXPECT_FALSE(wide[1].gpu_instance_id.has_value());
  EXPECT_FALSE(wide[1].compute_instance_id.has_value());
  nvmlProcessInfo_t r[1] = {};
  r[0].pid = 9;
  r[0].gpuInstanceId = 13;
  r[0].computeInstanceId = 2;
  std::span<const unsigned char> b24(reinterpret_cast<const unsigned char*>(r), sizeof r);
  auto mid = DecodeProcessRecords(b24, 1, kProcessRecordBytes);
  ASSERT_EQ(mid.size(), 1u);
  EXPECT_EQ(mid[0].gpu_instance_id, 13u);
  EXPECT_EQ(mid[0].compute_instance_id, 2u);
  nvmlProcessInfo_v1_t v1[1] = {};
  v1[0].pid = 10;
  std::span<const unsigned char> b16(reinterpret_cast<const unsigned char*>(v1), sizeof v1);
  auto old = DecodeProcessRecords(b16, 1, kProcessRecordV1Bytes);
  ASSERT_EQ(old.size(), 1u);
  EXPECT_FALSE(old[0].gpu_instance_id.has_value());
}

TEST(ProcessRecords, ErrorsAndEndlessGrowthStop) {
  int calls = 0;
  ProcessList refused = QueryProcessRecords(
      [&](unsigned*, unsigned char*, std::size_t) {
        ++calls;
        return NVML_ERROR_NOT_SUPPORTED;
      },
      0);
  EXPECT_EQ(refused.rc, NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(calls, 1);
  calls = 0;
  // A driver that always wants more: four calls, then its answer stands.
  ProcessList greedy = QueryProcessRecords(
      [&](unsigned* count, unsigned char*, std::size_t) {
        ++calls;
        *count += 100;
        return NVML_ERROR_INSUFFICIENT_SIZE;
      },
      0);
  EXPECT_EQ(greedy.rc, NVML_ERROR_INSUFFICIENT_SIZE);
  EXPECT_EQ(calls, 4);
  EXPECT_TRUE(greedy.records.empty());
}

}  // namespace
}  // namespace gpudoctor::nvml_detail
