#include "support/fake_host.h"

#include <filesystem>

namespace gpudoctor::test {

void WriteH100Attributes(const TempDir& root, const std::string& dir, int width) {
  root.Write(dir + "vendor", "0x10de\n");
  root.Write(dir + "device", "0x2330\n");
  root.Write(dir + "class", "0x030200\n");
  root.Write(dir + "revision", "0xa1\n");
  root.Write(dir + "current_link_speed", "32.0 GT/s PCIe\n");
  root.Write(dir + "max_link_speed", "32.0 GT/s PCIe\n");
  root.Write(dir + "current_link_width", std::to_string(width) + "\n");
  root.Write(dir + "max_link_width", "16\n");
}

void WriteQuietHost(const TempDir& root, const std::vector<std::string>& gpu_bus_ids) {
  std::string stat = "cpu  1000 0 1000 80000 0 0 0 0 0 0\n";
  for (int c = 0; c < 64; ++c) stat += "cpu" + std::to_string(c) + " 10 0 10 1000 0 0 0 0 0 0\n";
  root.Write("proc/stat", stat + "btime 1700000000\n");
  root.Write("proc/meminfo", "MemTotal:       1073741824 kB\nMemAvailable:    900000000 kB\n"
                             "SwapTotal:             0 kB\nSwapFree:              0 kB\n");
  root.Write("proc/vmstat", "pswpin 0\npswpout 0\npgmajfault 10\n");
  root.Write("proc/loadavg", "4.00 4.00 4.00 1/900 1234\n");
  root.Write("sys/devices/system/cpu/online", "0-63\n");
  root.Write("proc/sys/kernel/hostname", "gpu-node-7\n");
  root.Write("proc/sys/kernel/osrelease", "6.1.0-18-amd64\n");
  for (const auto& bdf : gpu_bus_ids) WriteH100Attributes(root, "sys/bus/pci/devices/" + bdf + "/");
  root.Write("var/log/kern.log", "");
}

void WriteGpuBehindPorts(const TempDir& root, const std::string& ports, const std::string& bdf) {
  const std::string real = "devices/pci0000:00/" + ports + bdf;
  WriteH100Attributes(root, "sys/" + real + "/");
  std::filesystem::create_directories(root.path() / "sys/bus/pci/devices");
  std::filesystem::create_directory_symlink("../../../" + real,
                                            root.path() / ("sys/bus/pci/devices/" + bdf));
}

}  // namespace gpudoctor::test
