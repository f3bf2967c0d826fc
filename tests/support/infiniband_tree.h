// A writable copy of the real HGX H100 /sys/class/infiniband capture
// (../shared/fixtures/infiniband/gpud-sys-class-infiniband-h100, see its
// SOURCES.md) under a temporary --root, whose state and counter files a test
// rewrites between readings to script rates, flaps, drops, resets and
// saturation.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "collect/rdma.h"
#include "support/temp_files.h"

namespace gpudoctor::test {

// Copies the capture to <root>/sys/class/infiniband, writable; false when
// the shared fixtures are not on this machine.
bool CopyInfinibandCapture(const std::filesystem::path& root);

// Port 1 of `device` under <root>/sys/class/infiniband, for rewriting its files.
std::filesystem::path InfinibandPort(const std::filesystem::path& root, const std::string& device);

class InfinibandTree {
 public:
  InfinibandTree();  // copies the capture; available() is false when it is missing

  bool available() const { return available_; }
  const std::filesystem::path& root() const { return dir_.path(); }

  // counters/<name> or hw_counters/<name> of port 1 of `device`, whichever exists.
  void SetCounter(const std::string& device, const std::string& name, std::uint64_t value) const;
  // state ("1: DOWN") and phys_state ("2: Polling") of port 1.
  void SetState(const std::string& device, const std::string& state,
                const std::string& phys_state) const;
  void SetRate(const std::string& device, const std::string& rate) const;
  void RemoveDevice(const std::string& device) const;

  // ReadRdma of the tree as if read at `at`.
  RdmaFacts Read(std::chrono::system_clock::time_point at) const;

 private:
  std::filesystem::path Port(const std::string& device) const;
  TempDir dir_;
  bool available_ = false;
};

}  // namespace gpudoctor::test
