// A fake /proc, /sys and /var/log tree for end-to-end runs with --root, so
// that the machine running the tests does not leak into the verdict.
#pragma once

#include <string>
#include <vector>

#include "support/temp_files.h"

namespace gpudoctor::test {

// A roomy, quiet host: 64 cores, 1 TiB RAM, no swapping, an empty kern.log;
// one NVIDIA GPU (H100 id, Gen5 x16) in /sys/bus/pci/devices per bus id.
void WriteQuietHost(const TempDir& root, const std::vector<std::string>& gpu_bus_ids);

// An H100's attribute files (Gen5, `width` lanes of 16) in the sysfs
// directory `dir` ("sys/bus/pci/devices/0000:18:00.0/").
void WriteH100Attributes(const TempDir& root, const std::string& dir, int width = 16);

// The same GPU laid out as the kernel does it: /sys/bus/pci/devices/<bdf>
// is a link into /sys/devices/pci0000:00/<ports...>/<bdf>, so the ports
// above it are known. `ports`: root port first ("0000:00:03.0/").
void WriteGpuBehindPorts(const TempDir& root, const std::string& ports, const std::string& bdf);

}  // namespace gpudoctor::test
