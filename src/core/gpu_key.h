// The one name of a GPU everywhere in gpudoctor (rules' findings, the
// store's rows, the agent's series, fleet's rows): its PCI bus id, or
// "index:N" for a GPU that NVML lists but that never gave a bus id (lost or
// hung before anything read it). Readers that later learn the bus id of an
// "index:N" GPU (the store across an agent restart) rename it to the bus id.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

struct GpuStatus;

std::string GpuKeyOf(std::string_view pci_bus_id, unsigned index);
std::string GpuKeyOf(const GpuStatus& gpu);
// True for "index:N" keys (a GPU known only by its NVML index).
bool IsIndexKey(std::string_view key);
// N of "index:N"; nullopt for a bus id or anything malformed.
std::optional<unsigned> IndexOfKey(std::string_view key);

// True when a --gpu selector names the GPU: its index ("0"), its UUID
// ("GPU-...", any case) or its PCI bus id in any common spelling ("3b:00.0",
// "0000:3B:00.0", "00000000:3B:00.0"). Every command's --gpu matches by it.
bool GpuSelectorNames(std::string_view selector, unsigned index, std::string_view pci_bus_id,
                      std::string_view uuid);
bool GpuSelectorNames(std::string_view selector, const GpuStatus& gpu);

}  // namespace gpudoctor
