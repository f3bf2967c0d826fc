#include "fake_cuda_scenario.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/gpu_status.h"

namespace fake_cuda {
namespace {

using nlohmann::json;

struct Named {
  const char* name;
  CUresult code;
};

constexpr Named kResults[] = {
    {"CUDA_SUCCESS", CUDA_SUCCESS},
    {"CUDA_ERROR_INVALID_VALUE", CUDA_ERROR_INVALID_VALUE},
    {"CUDA_ERROR_OUT_OF_MEMORY", CUDA_ERROR_OUT_OF_MEMORY},
    {"CUDA_ERROR_NOT_INITIALIZED", CUDA_ERROR_NOT_INITIALIZED},
    {"CUDA_ERROR_DEINITIALIZED", CUDA_ERROR_DEINITIALIZED},
    {"CUDA_ERROR_STUB_LIBRARY", CUDA_ERROR_STUB_LIBRARY},
    {"CUDA_ERROR_INSUFFICIENT_DRIVER", CUDA_ERROR_INSUFFICIENT_DRIVER},
    {"CUDA_ERROR_DEVICE_UNAVAILABLE", CUDA_ERROR_DEVICE_UNAVAILABLE},
    {"CUDA_ERROR_NO_DEVICE", CUDA_ERROR_NO_DEVICE},
    {"CUDA_ERROR_INVALID_DEVICE", CUDA_ERROR_INVALID_DEVICE},
    {"CUDA_ERROR_INVALID_IMAGE", CUDA_ERROR_INVALID_IMAGE},
    {"CUDA_ERROR_INVALID_CONTEXT", CUDA_ERROR_INVALID_CONTEXT},
    {"CUDA_ERROR_NO_BINARY_FOR_GPU", CUDA_ERROR_NO_BINARY_FOR_GPU},
    {"CUDA_ERROR_ECC_UNCORRECTABLE", CUDA_ERROR_ECC_UNCORRECTABLE},
    {"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", CUDA_ERROR_PEER_ACCESS_UNSUPPORTED},
    {"CUDA_ERROR_INVALID_PTX", CUDA_ERROR_INVALID_PTX},
    {"CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED},
    {"CUDA_ERROR_INVALID_HANDLE", CUDA_ERROR_INVALID_HANDLE},
    {"CUDA_ERROR_NOT_FOUND", CUDA_ERROR_NOT_FOUND},
    {"CUDA_ERROR_ILLEGAL_ADDRESS", CUDA_ERROR_ILLEGAL_ADDRESS},
    {"CUDA_ERROR_LAUNCH_TIMEOUT", CUDA_ERROR_LAUNCH_TIMEOUT},
    {"CUDA_ERROR_LAUNCH_FAILED", CUDA_ERROR_LAUNCH_FAILED},
    {"CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", CUDA_ERROR_SYSTEM_DRIVER_MISMATCH},
    {"CUDA_ERROR_UNKNOWN", CUDA_ERROR_UNKNOWN},
};

CUresult ResultKey(const json& object, const char* key) {
  std::string name = object.at(key).get<std::string>();
  auto rc = CudaResultByName(name);
  if (!rc) throw std::runtime_error(std::string(key) + ": unknown CUDA error '" + name + "'");
  return *rc;
}

CudaGpu GpuFromEntry(const json& entry, unsigned index) {
  CudaGpu gpu;
  char bus[32];
  std::snprintf(bus, sizeof bus, "0000:%02x:00.0", index + 1);
  gpu.pci_bus_id = bus;
  if (entry.contains("pci_bus_id") && entry["pci_bus_id"].is_string()) {
    gpu.pci_bus_id = gpudoctor::NormalizePciBusId(entry["pci_bus_id"].get<std::string>());
  }
  if (entry.contains("name") && entry["name"].is_string()) gpu.name = entry["name"];
  if (!entry.contains("cuda")) return gpu;
  const json& c = entry["cuda"];
  for (const auto& [key, value] : c.items()) {
    if (key == "hbm_gbps") gpu.hbm_gbps = value.get<double>();
    else if (key == "h2d_gbps") gpu.h2d_gbps = value.get<double>();
    else if (key == "d2h_gbps") gpu.d2h_gbps = value.get<double>();
    else if (key == "burn_tflops") gpu.burn_tflops = value.get<double>();
    else if (key == "p2p_gbps") gpu.p2p_gbps = value.get<double>();
    else if (key == "peer_access") gpu.peer_access = value.get<bool>();
    else if (key == "pcie_duplex") {
      std::string duplex = value.get<std::string>();
      if (duplex != "full" && duplex != "half") {
        throw std::runtime_error("gpus[" + std::to_string(index) + "].cuda.pcie_duplex: 'full' or 'half'");
      }
      gpu.pcie_full_duplex = duplex == "full";
    }
    else if (key == "p2p_peer_gbps") {
      for (const auto& [peer, rate] : value.items()) {
        gpu.p2p_peer_gbps[gpudoctor::NormalizePciBusId(peer)] = rate.get<double>();
      }
    }
    else if (key == "multiprocessors") gpu.multiprocessors = value.get<int>();
    else if (key == "total_bytes") gpu.total_bytes = value.get<std::uint64_t>();
    else if (key == "free_bytes") gpu.free_bytes = value.get<std::uint64_t>();
    else if (key == "mismatch_offsets") gpu.mismatch_offsets = value.get<std::vector<std::uint64_t>>();
    else if (key == "launch_error") gpu.launch_error = ResultKey(c, "launch_error");
    else if (key == "launch_error_after_s") gpu.launch_error_after_s = value.get<double>();
    else throw std::runtime_error("unknown key 'gpus[" + std::to_string(index) + "].cuda." + key + "'");
  }
  bool peers_positive = std::all_of(gpu.p2p_peer_gbps.begin(), gpu.p2p_peer_gbps.end(),
                                    [](const auto& p) { return p.second > 0; });
  if (gpu.hbm_gbps <= 0 || gpu.h2d_gbps <= 0 || gpu.d2h_gbps <= 0 || gpu.burn_tflops <= 0 ||
      gpu.p2p_gbps <= 0 || !peers_positive) {
    throw std::runtime_error("gpus[" + std::to_string(index) + "].cuda: rates must be > 0");
  }
  return gpu;
}

}  // namespace

std::optional<CUresult> CudaResultByName(const std::string& name) {
  for (const Named& n : kResults) {
    if (name == n.name) return n.code;
  }
  return std::nullopt;
}

const char* CudaResultName(CUresult rc) {
  for (const Named& n : kResults) {
    if (rc == n.code) return n.name;
  }
  return nullptr;
}

std::optional<CudaScenario> LoadCudaScenario(const char* path, std::string* error) {
  CudaScenario s;
  if (path == nullptr || *path == '\0') return s;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string body = text.str();
  std::size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || body[first] != '{') return s;  // XML: no CUDA keys
  try {
    json doc = json::parse(body);
    if (doc.contains("cuda")) {
      const json& c = doc["cuda"];
      if (c.contains("init_error")) s.init_error = ResultKey(c, "init_error");
      if (c.contains("driver_version")) s.driver_version = c["driver_version"].get<int>();
    }
    if (doc.contains("gpus")) {
      for (unsigned i = 0; i < doc["gpus"].size(); ++i) s.gpus.push_back(GpuFromEntry(doc["gpus"][i], i));
    }
  } catch (const std::exception& e) {
    *error = std::string("fake libcuda: ") + path + ": " + e.what();
    return std::nullopt;
  }
  return s;
}

}  // namespace fake_cuda
