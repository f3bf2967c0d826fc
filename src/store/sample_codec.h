// One GPU reading as named cells, and back. Every scalar field keeps its
// status --json name (core/gpu_fields.h); identity and compound fields get
// fixed names: index, name, uuid, pci_bus_id, state, state_detail, pstate,
// clock_event_reasons_mask, fan.N, nvlink.N[.active|.crc_flit_errors|...],
// processes, process_details (per process: utilisation and owner), fabric.<member>
// (the NVLink fabric registration), field_errors. Unknown names are ignored when decoding, so
// chunks written by a later version still read.
#pragma once

#include <vector>

#include "core/gpu_status.h"
#include "store/chunk_codec.h"

namespace gpudoctor {

// Appends the cells of one reading (absent fields have no cell).
void StatusToCells(const GpuStatus& gpu, std::vector<NamedCell>& cells);

// What a column name means, resolved once per column.
struct SampleColumn {
  enum class Kind {
    kIgnored,
    kScalar,
    kIndex,
    kName,
    kUuid,
    kBusId,
    kState,
    kStateDetail,
    kPstate,
    kMask,
    kFan,
    kNvlink,
    kProcesses,
    kProcessDetails,
    kFieldErrors,
    kFabric,  // "fabric.<member>" (store/fabric_cells.h); number: the member
    kMig,  // "mig.<slot>" (its GPU instance id), "mig.<slot>.ci", ".uuid", ".<memory_/gpm_ field>"
  };
  Kind kind = Kind::kIgnored;
  const struct GpuField* field = nullptr;
  unsigned number = 0;     // fan or link number
  int nvlink_member = -1;  // -1: the link itself; 0 active; 1.. counters
  // kMig: 0 the GPU instance id, 1 the compute instance id, 2 the uuid, 3 `field`.
  int mig_member = -1;
};

SampleColumn ResolveSampleColumn(std::string_view name);
void ApplyCell(GpuStatus& gpu, const SampleColumn& column, const Cell& value);

// Every row of a set as a reading, in row order.
std::vector<GpuStatus> DecodeSamples(const ColumnSet& set);

// True for columns that hold a measurement to aggregate (not identity or
// text).
bool IsNumericColumn(const SampleColumn& column);

}  // namespace gpudoctor
