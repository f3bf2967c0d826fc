// The software gpudoctor found and how the pieces fit: the NVIDIA driver
// (kernel module, libraries, NVML, GSP firmware, persistence daemon), CUDA
// (toolkits, nvcc, libcudart) with each judged against the driver, Python
// frameworks and their CUDA builds, and Fabric Manager (VersionFacts).
// collect/versions.h and the collectors it calls fill them; rules and
// renderers read them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "facts/gpu_stack.h"
#include "facts/service_state.h"
#include "facts/source_status.h"
#include "facts/version_numbers.h"

namespace gpudoctor {

// The driver: kernel module, user-space libraries, GSP firmware, persistence
// daemon (collect/driver_versions.h).

// The first line of /proc/driver/nvidia/version, e.g.
//   NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Tue Nov 12 ...
//   NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (...)  ...
struct KernelModuleVersion {
  DriverVersion version;
  bool open_module = false;  // "Open Kernel Module"
  std::string arch;          // "x86_64", "aarch64"; empty when not stated
  std::string build_info;    // the rest of the first line after the version
  std::string gcc_version;   // the "GCC version:" line, when present
};

// NVreg_EnableGpuFirmware decoded: bits 0-3 are the mode (0 disabled,
// 1 enabled, 2 the chip's default), bit 4 allows falling back to the
// non-GSP driver, bit 5 turns GSP on by default for workstation/server SKUs.
// The driver's default value is 0x12 (18): default mode, fallback allowed.
enum class GspMode { kDisabled, kEnabled, kDefault, kUnknown };

// "disabled", "enabled", "default", "unknown".
std::string_view GspModeName(GspMode mode);

// NVreg_EnableGpuFirmware, decoded (parse/driver_version.h).
struct GspFirmwareParam {
  std::uint32_t raw = 0;
  GspMode mode = GspMode::kUnknown;
  bool allow_fallback = false;
  bool default_on_ws_server = false;
};

// A versioned driver library on the library path.
struct DriverLibraryFile {
  std::string path;     // "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.183.01"
  std::string library;  // "libnvidia-ml.so" or "libcuda.so"
  DriverVersion version;
  bool matches_kernel_module = true;  // true when there is no kernel module to compare with
};

struct GspFacts {
  std::optional<GspFirmwareParam> enable_gpu_firmware;  // /proc/driver/nvidia/params
  std::string firmware_dir;                             // "/lib/firmware/nvidia/535.183.01"
  std::vector<std::string> firmware_files;              // gsp*.bin names in firmware_dir
};

// nvidia-persistenced: running or not, from systemd or its pid file.
struct PersistencedFacts {
  std::string source;           // "nvidia-persistenced.service" or the pid file path
  std::optional<bool> running;  // nullopt: could not tell
  std::string active_state;     // from systemd, when read there
  std::string sub_state;
  std::optional<std::uint32_t> pid;
};

struct DriverFacts {
  std::optional<KernelModuleVersion> kernel_module;
  std::vector<DriverLibraryFile> libraries;
  std::optional<DriverVersion> nvml_version;  // as passed in
  // The driver version to compare everything else with: kernel module, else
  // NVML, else the newest libnvidia-ml found.
  std::optional<DriverVersion> effective_version;
  std::string effective_source;
  bool version_mismatch = false;
  std::vector<std::string> mismatch_details;  // one line per disagreeing source
  GspFacts gsp;
  PersistencedFacts persistenced;
  std::vector<SourceStatus> sources;
};

// CUDA outside any framework (collect/cuda_versions.h), each install judged
// against the driver (knowledge/cuda_driver_table.h).

// `nvcc --version`:
//   Cuda compilation tools, release 12.2, V12.2.140
struct NvccVersion {
  CudaVersion release;  // 12.2
  std::string build;    // "12.2.140" (after the V), empty when absent
};

// Whether a CUDA runtime built as `needed` can run on `driver`.
enum class CudaSupport {
  kSupported,        // the driver supports this CUDA release natively
  kMinorCompatOnly,  // runs through minor-version compatibility, limited features
                     // (PTX JIT for newer code can fail: cudaErrorCallRequiresNewerDriver)
  kDriverTooOld,     // cudaErrorInsufficientDriver (35) expected
  kUnknown,          // the tables do not cover this version
};

// "supported", "minor_compat_only", "driver_too_old", "unknown".
std::string_view CudaSupportName(CudaSupport s);

// What the driver supports next to what a CUDA build needs.
struct CudaSupportVerdict {
  CudaSupport support = CudaSupport::kUnknown;
  CudaVersion driver_max_cuda;                           // what the driver supports natively
  std::optional<DriverVersion> min_driver;               // native minimum for `needed`
  std::optional<DriverVersion> min_driver_minor_compat;  // family minimum, if any
};

// A toolkit under /usr/local/cuda*.
struct CudaToolkitInstall {
  std::string path;  // "/usr/local/cuda-12.2"
  // Where the version came from: version.json, version.txt, the runtime's
  // dist-info directory (wheel-built toolkits), or "directory name".
  std::string version_file;
  CudaVersion version;      // toolkit version; patch = update ("12.2.2") from version.json only
  bool is_default = false;  // /usr/local/cuda resolves here
  std::optional<CudaSupportVerdict> on_driver;
};

// `nvcc --version` as run.
struct NvccInstall {
  std::string path;  // what was run: "/usr/local/cuda/bin/nvcc" or "nvcc"
  NvccVersion version;
  std::optional<CudaSupportVerdict> on_driver;
};

// A libcudart file on the library path.
struct CudaRuntimeLibrary {
  std::string path;    // "/usr/local/cuda-12.2/lib64/libcudart.so.12.2.140"
  std::string origin;  // how the directory was found: "default", "/etc/ld.so.conf.d/...", "toolkit"
  int major = 0;
  std::optional<CudaVersion> version;           // nullopt when the name has the major only
  std::optional<CudaSupportVerdict> on_driver;  // only when the minor is known
};

struct CudaFacts {
  std::optional<DriverVersion> driver;         // as passed in
  std::optional<CudaVersion> driver_cuda;      // the driver's own report, as passed in
  std::optional<CudaVersion> driver_max_cuda;  // driver_cuda, else from the table
  std::vector<CudaToolkitInstall> toolkits;
  std::optional<NvccInstall> nvcc;
  std::vector<CudaRuntimeLibrary> runtimes;
  std::vector<SourceStatus> sources;
};

// Python frameworks and their CUDA builds (collect/frameworks.h), checked
// against the driver (knowledge/framework_compat.h has the catalog of issues).

// What can be wrong with a framework's CUDA build on this machine.
enum class FrameworkIssueId {
  kDriverTooOld,     // built for a CUDA the driver cannot run at all
  kMinorCompatOnly,  // runs only through minor-version compatibility
  kCpuOnlyBuild,     // a CPU build where GPUs are expected
  kRocmBuild,        // an AMD ROCm build: cannot use NVIDIA GPUs
  kMixedCudaMajors,  // CUDA runtimes of several major versions in one environment
};

struct FrameworkCheck {
  std::optional<CudaSupportVerdict> verdict;  // when both CUDA build and driver are known
  std::vector<FrameworkIssueId> issues;
};

// One framework installed in a Python environment.
struct FrameworkInstall {
  std::string name;                 // "torch", "tensorflow", "jax", "jaxlib"
  std::string version;              // "2.3.1+cu121"
  std::string source;               // the file or directory the version came from
  std::optional<CudaVersion> cuda;  // CUDA major.minor it was built with
  std::optional<int> cuda_major;    // when only the major is known (JAX plugins)
  std::string cuda_source;          // "torch/version.py", "+cu121 tag", "build_info.py", ...
  std::optional<std::string> cudnn;
  bool cpu_only = false;
  bool rocm = false;
  FrameworkCheck check;
};

// An nvidia-*-cuNN pip wheel that bundles part of the CUDA runtime.
struct CudaWheel {
  std::string name;     // normalised: "nvidia-cuda-runtime-cu12"
  std::string version;  // "12.1.105"
  int cuda_major = 0;
};

// One site-packages directory holding a framework or CUDA wheel.
struct PythonEnvironment {
  std::string site_dir;  // "/opt/conda/lib/python3.11/site-packages"
  std::string origin;    // "system", "conda", "user", "option"
  std::vector<FrameworkInstall> frameworks;
  std::vector<CudaWheel> cuda_wheels;
  // The CUDA runtime pip wheels bundle (nvidia-cuda-runtime-cuNN), checked
  // against the driver: this is the runtime torch/jax wheels load.
  std::optional<CudaVersion> bundled_runtime;
  std::optional<CudaSupportVerdict> bundled_runtime_on_driver;
  std::vector<int> cuda_majors;          // distinct majors of frameworks and wheels
  std::vector<FrameworkIssueId> issues;  // environment-wide (mixed majors)
};

struct FrameworkFacts {
  std::optional<DriverVersion> driver;
  std::optional<CudaVersion> driver_cuda;
  std::vector<PythonEnvironment> environments;  // only those holding a framework or CUDA wheel
  std::vector<std::string> scanned_dirs;        // every site/dist-packages dir looked at
  std::vector<SourceStatus> sources;
};

// NVIDIA Fabric Manager (collect/fabric_manager.h) and its log
// (parse/fabricmanager_log.h).

// One log entry's first line.
struct FmLogLine {
  std::string time_text;  // "Feb 25 2025 15:10:02" (the machine's local time, as written)
  std::string level;      // "ERROR", "INFO", "WARNING", ...
  std::optional<std::uint64_t> tid;
  std::string message;
};

// "fabric manager ... version X don't match with driver version Y".
struct FmVersionMismatch {
  std::string fm_version;
  std::string driver_version;
};

// An error entry of the log.
struct FmLogError {
  std::size_t line_number = 0;  // 1-based, counted from where scanning started
  FmLogLine entry;              // message includes continuation lines
};

// What a scan of the log found.
struct FmLogSummary {
  std::size_t lines = 0;
  std::size_t entries = 0;
  std::size_t error_count = 0;                        // ERROR, CRITICAL and FATAL entries
  std::size_t warning_count = 0;                      // WARNING / WARN entries
  std::vector<FmLogError> last_errors;                // oldest first, at most max_errors
  std::optional<FmVersionMismatch> version_mismatch;  // the last one seen
  std::string first_time_text;
  std::string last_time_text;
};

struct FabricManagerFacts {
  bool nvswitch_present = false;        // as passed in: the system needs Fabric Manager
  std::optional<ServiceState> service;  // nvidia-fabricmanager.service
  std::optional<std::string> version;   // "535.183.01"
  std::string version_source;  // "nv-fabricmanager --version", "/var/lib/dpkg/status (...)"
  std::optional<DriverVersion> driver;         // as passed in
  std::optional<bool> version_matches_driver;  // exact text match; nullopt if either is unknown
  std::string log_path;  // from fabricmanager.cfg, default /var/log/fabricmanager.log
  std::optional<FmLogSummary> log;
  std::size_t log_skipped_bytes = 0;  // a large log is scanned from its tail only
  std::vector<SourceStatus> sources;
};

// All software-version facts.
struct VersionFacts {
  DriverFacts driver;
  CudaFacts cuda;
  FrameworkFacts frameworks;
  FabricManagerFacts fabric_manager;
  GpuStackFacts stack;  // modules, IOMMU, ACS, container toolkit (collect/gpu_stack.h)
};

}  // namespace gpudoctor
