// Pure parsers for the attribute files of /sys/bus/pci/devices/<bdf>/:
// class, vendor/device ids, link speed text, AER counter files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "facts/pci.h"

namespace gpudoctor {

inline constexpr std::uint32_t kNvidiaVendorId = 0x10de;

// Kind from the 24-bit class code (the `class` file, "0x030200").
PciFunctionKind PciKindFromClass(std::uint32_t class_code);

// "16.0 GT/s PCIe" -> 16.0; "8 GT/s" -> 8; "Unknown" -> std::nullopt.
std::optional<double> ParseLinkSpeedGtPerS(std::string_view text);

// PCIe generation from the transfer rate: 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4,
// 32 -> 5, 64 -> 6; std::nullopt for anything else.
std::optional<int> PcieGenFromGtPerS(double gt_per_s);

// current_link_width / max_link_width: "16" -> 16; "0" or garbage -> nullopt
// (0 is what a link that is down or a device that does not answer shows).
std::optional<int> ParseLinkWidth(std::string_view text);

Result<AerCounters> ParseAerCounters(std::string_view text);

// The PCI bridges above a device, nearest first, from the target of its
// /sys/bus/pci/devices/<bdf> link ("../../../devices/pci0000:00/0000:00:01.0/
// 0000:01:00.0/0000:02:08.0/0000:03:00.0" -> 0000:02:08.0, 0000:01:00.0,
// 0000:00:01.0): every path component before the last that is a bus id.
// The root complex ("pci0000:00") and anything else are skipped.
std::vector<std::string> PciUpstreamPorts(std::string_view device_link);

}  // namespace gpudoctor
