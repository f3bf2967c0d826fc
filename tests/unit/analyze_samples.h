// Small synthetic inputs for the analyze tests: an nvidia-smi -q text and
// XML dump of one GPU, a dmesg -T Xid line, a bug report in
// nvidia-bug-report.sh's layout, and an in-memory gzip.
#pragma once

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace gpudoctor::test {

// gzip member of `text`, made in memory the way gzip(1) would.
inline std::string Gzip(const std::string& text) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, text.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

inline const char kSmiText[] =
    "\n==============NVSMI LOG==============\n\n"
    "Timestamp                                 : Mon Mar  3 10:00:00 2025\n"
    "Driver Version                            : 550.90.07\n"
    "CUDA Version                              : 12.4\n\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:3B:00.0\n"
    "    Product Name                          : NVIDIA A100-SXM4-80GB\n"
    "    Temperature\n"
    "        GPU Current Temp                  : 45 C\n";

inline const char kXml[] =
    "<?xml version=\"1.0\" ?>\n"
    "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
    "<nvidia_smi_log>\n"
    "  <timestamp>Mon Mar  3 10:05:00 2025</timestamp>\n"
    "  <driver_version>550.90.07</driver_version>\n"
    "  <cuda_version>12.4</cuda_version>\n"
    "  <attached_gpus>1</attached_gpus>\n"
    "  <gpu id=\"00000000:3B:00.0\">\n"
    "    <product_name>NVIDIA A100-SXM4-80GB</product_name>\n"
    "    <temperature><gpu_temp>47 C</gpu_temp></temperature>\n"
    "  </gpu>\n"
    "</nvidia_smi_log>\n";

inline const char kDmesgT[] =
    "[Mon Mar  3 10:02:00 2025] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', "
    "name=<unknown>, GPU has fallen off the bus.\n";

inline const char kSep[] = "____________________________________________\n\n";

// A small report in nvidia-bug-report.sh's layout: prologue, a copied /proc
// file, the nvidia-smi section (--query, then --query --unit), dmesg.
inline std::string SyntheticBugReport(const std::string& smi_output) {
  return std::string(kSep) +
         "Start of NVIDIA bug report log file.  Please include this file, along\n\n"
         "nvidia-bug-report.sh Version: 34176720\n\n"
         "Date: Mon Mar  3 10:10:00 AM UTC 2025\n"
         "uname: Linux gpu-node-7 5.15.0-97-generic #107-Ubuntu SMP x86_64 GNU/Linux\n"
         "command line flags: \n\n" +
         kSep + "*** /proc/driver/nvidia/./version\n" +
         "*** ls: -r--r--r-- 1 root root 0 2025-03-03 10:09:59 /proc/driver/nvidia/./version\n"
         "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n"
         "GCC version:  gcc version 12.3.0\n\n" +
         kSep + "/usr/bin/nvidia-smi --query\n\n" + smi_output + "\n" +
         "/usr/bin/nvidia-smi --query --unit\n\n"
         "==============NVSMI LOG==============\n\n"
         "Timestamp                                 : Mon Mar  3 10:10:01 2025\n"
         "Attached Units                            : 0\n\n" +
         kSep + "dmesg:\n\n" +
         "[  100.000000] NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python3, "
         "Graphics Exception\n" +
         kSep + "End of NVIDIA bug report log file.\n";
}

}  // namespace gpudoctor::test
