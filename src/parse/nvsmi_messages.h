// The lines nvidia-smi prints outside its grid when something is wrong, found
// in any text (a pasted table, a -q dump, a kernel log that a shell session
// was pasted into):
//   - "Unable to determine the device handle for GPU1: 0000:34:00.0: Unknown Error"
//     (also the older "... for GPU0000:A1:00.0: ..." and "... for GPU 0000:0B:00.0: ..."):
//     NVML has no handle for that GPU, which nvidia-smi then leaves out of
//     its output: the GPU is lost;
//   - "No devices were found": NVML started but the driver drives no GPU;
//   - "Failed to initialize NVML: <reason>" (e.g. "Driver/library version mismatch");
//   - "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
//     driver. ...": the kernel module is not loaded or not answering.
// Pure: given text, never touches the file system. Never throws.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

enum class NvsmiMessageKind {
  kNoDeviceHandle,     // one GPU has no NVML handle
  kNoDevices,          // "No devices were found"
  kNvmlInitFailed,     // "Failed to initialize NVML: ..."
  kDriverUnreachable,  // "NVIDIA-SMI has failed because it couldn't communicate ..."
};

struct NvsmiMessage {
  NvsmiMessageKind kind = NvsmiMessageKind::kNoDevices;
  std::string text;                 // the message as printed, trimmed (prefixes before it cut)
  std::string pci_bus_id;           // kNoDeviceHandle: "0000:34:00.0"; empty when not printed
  std::optional<unsigned> gpu_index;  // kNoDeviceHandle: the N of "GPUN:" when printed
  std::string reason;               // kNoDeviceHandle: "Unknown Error"; kNvmlInitFailed: its reason
  std::size_t line = 0;             // 1-based line in the text
};

// The message on one line, wherever it stands in the line (after a shell
// prompt, a log prefix or a quote marker), or nullopt.
std::optional<NvsmiMessage> MatchNvidiaSmiMessage(std::string_view line);

// Every such message in `text`, in order, with its line number. Only lines
// holding one of the messages' fixed words are looked at, so a large log
// costs one substring search per word.
std::vector<NvsmiMessage> FindNvidiaSmiMessages(std::string_view text);

}  // namespace gpudoctor
