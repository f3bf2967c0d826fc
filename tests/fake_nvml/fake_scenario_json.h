// Internal to the fake NVML's scenario loader: the JSON pieces.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fake_scenario.h"

namespace fake {

// Thrown while loading; `what` is the message without the file name.
struct ScenarioError {
  std::string what;
};

// Throws ScenarioError "<where>: <why>".
[[noreturn]] void Fail(const std::string& where, const std::string& why);
// Throws "unknown key '<where>.<key>'" for a key not in `allowed`.
void CheckKeys(const nlohmann::json& object, const std::string& where,
               std::initializer_list<const char*> allowed);
// A finite number of magnitude <= 1e15.
double Number(const nlohmann::json& value, const std::string& where);
// A whole number in [lo, hi]; anything else (a fraction, text, out of range)
// throws naming `where`.
long long Integer(const nlohmann::json& value, const std::string& where,
                  long long lo, long long hi);

// Applies the overrides, metrics and faults of one "gpus" entry (the keys
// other than "xml" and "xml_gpu") to `gpu`. `where` names the entry in
// messages, e.g. "gpus[1]".
void ApplyGpuJson(const nlohmann::json& entry, const std::string& where,
                  FakeGpu& gpu);

// The "metrics" and "faults" values of one "gpus" entry.
void ApplyMetricsJson(const nlohmann::json& metrics, const std::string& where,
                      FakeGpu& gpu);
void ApplyFaultsJson(const nlohmann::json& faults, const std::string& where,
                     FakeGpu& gpu);
// "under_load": {"metrics": {...}, "faults": [...]}, times in seconds since
// the fake libcuda's load on the GPU began.
void ApplyUnderLoadJson(const nlohmann::json& under_load, const std::string& where,
                        FakeGpu& gpu);

// "fabric" and "nvlink_p2p" of one "gpus" entry (fake_scenario_fabric.cpp).
void ApplyFabricJson(const nlohmann::json& fabric, const std::string& where, FakeGpu& gpu);
void ApplyNvLinkP2PJson(const nlohmann::json& p2p, const std::string& where, FakeGpu& gpu);

// The GPU with the defaults of a JSON scenario at `index`.
FakeGpu DefaultGpu(unsigned index);

// The `index`-th <gpu> of the nvidia-smi XML at `path` (and, when asked,
// its document-level driver and CUDA versions).
FakeGpu GpuFromXml(const std::string& path, unsigned index,
                   gpudoctor::SystemStatus* system = nullptr);

}  // namespace fake
