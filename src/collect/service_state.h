// The state of a systemd service, read through an interface so that the
// collectors run against a fake in tests. The real implementation talks to
// systemd over the system D-Bus (sd-bus), with a short call timeout.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "facts/service_state.h"

namespace gpudoctor {

// Reads unit state. Implementations return kUnavailable when the service
// manager cannot be reached (no systemd, no bus), kTimeout when it does not
// answer in time, and a ServiceState with load_state "not-found" for a unit
// that is not installed. Not required to be thread-safe.
class ServiceStateReader {
 public:
  virtual ~ServiceStateReader() = default;
  virtual Result<ServiceState> Read(std::string_view unit) = 0;
};

// systemd over the system bus (org.freedesktop.systemd1: LoadUnit, then the
// Unit and Service properties). Each D-Bus call times out after `timeout_ms`.
// The bus connection is opened lazily on the first Read and owned by the reader.
std::unique_ptr<ServiceStateReader> MakeSystemdServiceStateReader(int timeout_ms = 2000);

}  // namespace gpudoctor
