// Loading a scenario file: JSON or a bare nvidia-smi -q -x document.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <sstream>

#include "fake_scenario_json.h"
#include "parse/nvsmi_xml.h"

namespace fake {
namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError{"cannot read the file"};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// pci_device_id of every <gpu>, which GpuStatus does not hold.
unsigned PciDeviceIdFromXml(const std::string& text, unsigned index) {
  pugi::xml_document doc;
  if (!doc.load_buffer(text.data(), text.size())) return 0x20B010DE;
  unsigned i = 0;
  for (pugi::xml_node gpu : doc.child("nvidia_smi_log").children("gpu")) {
    if (i++ != index) continue;
    const char* hex = gpu.child("pci").child_value("pci_device_id");
    char* end = nullptr;
    unsigned long id = std::strtoul(hex, &end, 16);
    if (end != hex && *end == '\0' && id <= 0xffffffffUL) {
      return static_cast<unsigned>(id);
    }
  }
  return 0x20B010DE;
}

Scenario FromXmlText(const std::string& path, const std::string& text) {
  auto parsed = gpudoctor::ParseNvidiaSmiXml(text, path);
  if (!parsed.ok()) throw ScenarioError{parsed.error().message};
  Scenario s;
  s.driver_version = parsed->driver_version.value_or(s.driver_version);
  if (parsed->cuda_driver_version) {
    s.cuda_driver_version = static_cast<int>(*parsed->cuda_driver_version);
  }
  for (std::size_t i = 0; i < parsed->gpus.size() && i < kMaxGpus; ++i) {
    FakeGpu gpu;
    gpu.status = parsed->gpus[i];
    gpu.pci_device_id = PciDeviceIdFromXml(text, static_cast<unsigned>(i));
    s.gpus.push_back(std::move(gpu));
  }
  return s;
}

FakeGpu GpuFromEntry(const json& entry, unsigned index,
                     const std::filesystem::path& dir, Scenario& s,
                     bool* took_versions) {
  std::string where = "gpus[" + std::to_string(index) + "]";
  if (!entry.is_object()) throw ScenarioError{where + " must be an object"};
  FakeGpu gpu = DefaultGpu(index);
  if (entry.contains("xml")) {
    std::filesystem::path xml = entry.at("xml").get<std::string>();
    if (xml.is_relative()) xml = dir / xml;
    unsigned xml_gpu = entry.contains("xml_gpu")
        ? static_cast<unsigned>(Integer(entry.at("xml_gpu"), where + ".xml_gpu", 0, kMaxGpus - 1))
        : 0u;
    gpudoctor::SystemStatus system;
    gpu = GpuFromXml(xml.string(), xml_gpu, &system);
    if (!*took_versions) {
      *took_versions = true;
      if (system.driver_version) s.driver_version = *system.driver_version;
      if (system.cuda_driver_version) {
        s.cuda_driver_version = static_cast<int>(*system.cuda_driver_version);
      }
    }
  } else if (entry.contains("xml_gpu")) {
    throw ScenarioError{where + ".xml_gpu given without xml"};
  }
  gpu.status.index = index;
  ApplyGpuJson(entry, where, gpu);
  return gpu;
}

void ApplyTopLevel(const json& doc, Scenario& s) {
  if (doc.contains("driver_version")) {
    s.driver_version = doc.at("driver_version").get<std::string>();
  }
  if (doc.contains("cuda_driver_version")) {
    const json& cuda = doc.at("cuda_driver_version");
    s.cuda_driver_version =
        cuda.is_null() ? std::nullopt
                       : std::optional<int>(static_cast<int>(
                             Integer(cuda, "cuda_driver_version", 0, 1000000)));
  }
  if (doc.contains("nvml_version")) {
    s.nvml_version = doc.at("nvml_version").get<std::string>();
  }
  if (doc.contains("init_error")) {
    std::string name = doc.at("init_error").get<std::string>();
    auto code = ReturnCodeByName(name);
    if (!code) throw ScenarioError{"unknown init_error '" + name + "'"};
    s.init_error = *code;
  }
  if (doc.contains("libcuda")) {
    if (!doc.at("libcuda").is_boolean()) Fail("libcuda", "must be true or false");
    s.libcuda = doc.at("libcuda").get<bool>();
  }
  if (doc.contains("function_errors")) {
    const json& errors = doc.at("function_errors");
    if (!errors.is_object()) Fail("function_errors", "must be an object");
    for (const auto& [function, value] : errors.items()) {
      std::string where = "function_errors." + function;
      if (!IsNvmlFunctionName(function)) Fail(where, "no such NVML function");
      auto code = value.is_string() ? ReturnCodeByName(value.get<std::string>()) : std::nullopt;
      if (!code || *code == NVML_SUCCESS) Fail(where, "must name an NVML error code");
      s.function_errors[function] = *code;
    }
  }
  if (doc.contains("init_delay_ms")) {
    // An hour at most: longer is a mistake, and the sleep must stay bounded.
    s.init_delay_ms = static_cast<int>(Integer(doc.at("init_delay_ms"), "init_delay_ms", 0, 3600000));
  }
}

Scenario FromJsonText(const std::string& path, const std::string& text) {
  json doc = json::parse(text);
  CheckKeys(doc, "",
            {"description", "driver_profile", "driver_version", "cuda_driver_version",
             "nvml_version", "init_error", "init_delay_ms", "libcuda",
             "function_errors", "gpus", "cuda"});
  Scenario s;
  bool took_versions = false;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const json& gpus = doc.contains("gpus") ? doc.at("gpus") : json::array();
  if (!gpus.is_array()) throw ScenarioError{"gpus must be an array"};
  if (gpus.size() > kMaxGpus) throw ScenarioError{"too many gpus"};
  for (unsigned i = 0; i < gpus.size(); ++i) {
    s.gpus.push_back(GpuFromEntry(gpus[i], i, dir, s, &took_versions));
  }
  // A profile's versions win over those taken from an XML, and explicit
  // top-level keys over both.
  if (doc.contains("driver_profile")) {
    const json& profile = doc.at("driver_profile");
    std::string why = profile.is_string() ? ApplyDriverProfile(profile.get<std::string>(), s)
                                          : "must be a driver version string";
    if (!why.empty()) Fail("driver_profile", why);
  }
  ApplyTopLevel(doc, s);
  return s;
}

}  // namespace

void Fail(const std::string& where, const std::string& why) {
  throw ScenarioError{where + ": " + why};
}

void CheckKeys(const json& object, const std::string& where,
               std::initializer_list<const char*> allowed) {
  if (!object.is_object()) Fail(where, "must be an object");
  for (const auto& [key, value] : object.items()) {
    bool known = false;
    for (const char* name : allowed) known = known || key == name;
    if (!known) {
      throw ScenarioError{"unknown key '" + (where.empty() ? "" : where + ".") +
                          key + "'"};
    }
  }
}

double Number(const json& value, const std::string& where) {
  if (!value.is_number()) Fail(where, "must be a number");
  double v = value.get<double>();
  if (!std::isfinite(v) || std::fabs(v) > 1e15) Fail(where, "out of range");
  return v;
}

long long Integer(const json& value, const std::string& where, long long lo,
                  long long hi) {
  double v = Number(value, where);
  if (v != std::floor(v)) Fail(where, "must be a whole number");
  if (v < static_cast<double>(lo) || v > static_cast<double>(hi)) {
    Fail(where, "must be from " + std::to_string(lo) + " to " + std::to_string(hi));
  }
  return static_cast<long long>(v);
}

FakeGpu GpuFromXml(const std::string& path, unsigned index,
                   gpudoctor::SystemStatus* system) {
  std::string text;
  try {
    text = ReadFile(path);
  } catch (const ScenarioError&) {
    throw ScenarioError{"cannot read xml " + path};
  }
  Scenario from_xml = FromXmlText(path, text);
  if (index >= from_xml.gpus.size()) {
    throw ScenarioError{path + " has no <gpu> number " + std::to_string(index)};
  }
  if (system != nullptr) {
    system->driver_version = from_xml.driver_version;
    if (from_xml.cuda_driver_version) {
      system->cuda_driver_version = *from_xml.cuda_driver_version;
    }
  }
  return from_xml.gpus[index];
}

std::optional<Scenario> LoadScenario(const std::string& path,
                                     std::string* error) {
  try {
    std::string text = ReadFile(path);
    std::size_t first = text.find_first_not_of(" \t\r\n");
    bool is_xml = first != std::string::npos && text[first] == '<';
    Scenario s = is_xml ? FromXmlText(path, text) : FromJsonText(path, text);
    s.path = path;
    if (s.nvml_version.empty()) s.nvml_version = "12." + s.driver_version;
    return s;
  } catch (const ScenarioError& e) {
    *error = path + ": " + e.what;
  } catch (const std::exception& e) {
    *error = path + ": " + e.what();
  }
  for (char& c : *error) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return std::nullopt;
}

}  // namespace fake
