// For every real `nvidia-smi -q -x` capture in ../shared/fixtures/xml: the fake
// NVML serves it, and `gpudoctor status --json` (real binary, real dlopen path)
// reports the values the XML holds. The XML is read here independently of the
// project's parser, with a table of XML paths and unit conversions.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "support/run_process.h"

namespace gpudoctor::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kXmlDir = fs::path(SHARED_DIR) / "fixtures" / "xml";

bool IsNa(const std::string& text) {
  return text.empty() || text.find("N/A") != std::string::npos ||
         text.find("Not Supported") != std::string::npos ||
         text.find("Unknown") != std::string::npos ||
         text.find("deprecated") != std::string::npos;
}

// The first of several candidate paths that exists in the GPU element.
std::string Text(const pugi::xml_node& gpu, const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    auto node = gpu.select_node(path.c_str());
    if (node) return node.node().text().as_string();
  }
  return "";
}

enum class Unit { kNumber, kMiB, kFlag, kString };

struct Mapping {
  const char* json_field;
  std::vector<std::string> xml_paths;
  Unit unit;
};

const std::vector<Mapping>& Mappings() {
  static const std::vector<Mapping> kMappings = {
      {"name", {"product_name"}, Unit::kString},
      {"uuid", {"uuid"}, Unit::kString},
      {"gsp_firmware_version", {"gsp_firmware_version"}, Unit::kString},
      {"memory_total_bytes", {"fb_memory_usage/total"}, Unit::kMiB},
      {"memory_free_bytes", {"fb_memory_usage/free"}, Unit::kMiB},
      {"utilization_gpu_percent", {"utilization/gpu_util"}, Unit::kNumber},
      {"utilization_memory_percent", {"utilization/memory_util"}, Unit::kNumber},
      {"temperature_c", {"temperature/gpu_temp"}, Unit::kNumber},
      {"temperature_slowdown_c", {"temperature/gpu_temp_slow_threshold"}, Unit::kNumber},
      {"temperature_shutdown_c", {"temperature/gpu_temp_max_threshold"}, Unit::kNumber},
      {"fan_speed_percent", {"fan_speed"}, Unit::kNumber},
      {"power_limit_w",
       {"gpu_power_readings/current_power_limit", "power_readings/power_limit"},
       Unit::kNumber},
      {"power_default_limit_w",
       {"gpu_power_readings/default_power_limit", "power_readings/default_power_limit"},
       Unit::kNumber},
      {"power_max_limit_w",
       {"gpu_power_readings/max_power_limit", "power_readings/max_power_limit"},
       Unit::kNumber},
      {"power_min_limit_w",
       {"gpu_power_readings/min_power_limit", "power_readings/min_power_limit"},
       Unit::kNumber},
      {"clocks_graphics_mhz", {"clocks/graphics_clock"}, Unit::kNumber},
      {"clocks_sm_mhz", {"clocks/sm_clock"}, Unit::kNumber},
      {"clocks_memory_mhz", {"clocks/mem_clock"}, Unit::kNumber},
      {"clocks_max_graphics_mhz", {"max_clocks/graphics_clock"}, Unit::kNumber},
      {"pstate", {"performance_state"}, Unit::kString},
      {"persistence_mode", {"persistence_mode"}, Unit::kFlag},
      {"ecc_mode_enabled", {"ecc_mode/current_ecc"}, Unit::kFlag},
      {"pcie_link_gen_max", {"pci/pci_gpu_link_info/pcie_gen/max_link_gen"}, Unit::kNumber},
      {"pcie_link_gen_current",
       {"pci/pci_gpu_link_info/pcie_gen/current_link_gen"}, Unit::kNumber},
      {"pcie_link_width_max",
       {"pci/pci_gpu_link_info/link_widths/max_link_width"}, Unit::kNumber},
      {"pcie_link_width_current",
       {"pci/pci_gpu_link_info/link_widths/current_link_width"}, Unit::kNumber},
      {"pcie_replay_count", {"pci/replay_counter"}, Unit::kNumber},
  };
  return kMappings;
}

// Compares one field; returns true when the XML held a value to compare.
bool CompareField(const pugi::xml_node& gpu, const json& got, const Mapping& m,
                  const std::string& where) {
  std::string text = Text(gpu, m.xml_paths);
  if (IsNa(text)) return false;
  SCOPED_TRACE(where + " field " + m.json_field + " xml '" + text + "'");
  const json& value = got.at(m.json_field);
  switch (m.unit) {
    case Unit::kString:
      EXPECT_EQ(value, text);
      break;
    case Unit::kFlag:
      EXPECT_EQ(value, text == "Enabled");
      break;
    case Unit::kNumber:
    case Unit::kMiB: {
      double expected = std::stod(text);
      if (m.unit == Unit::kMiB) expected *= 1048576.0;
      if (!value.is_number()) {
        ADD_FAILURE() << "not a number: " << value;
        break;
      }
      EXPECT_NEAR(value.get<double>(), expected, 0.006);
      break;
    }
  }
  return true;
}

std::string ExpectedBusId(const std::string& xml_bus_id) {
  // "00000000:3B:00.0" -> "0000:3b:00.0"
  std::string tail = xml_bus_id.size() == 16 ? xml_bus_id.substr(4) : xml_bus_id;
  for (auto& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail;
}

void CompareReasons(const pugi::xml_node& gpu, const json& got, const std::string& where) {
  const std::pair<const char*, const char*> reasons[] = {
      {"gpu_idle", "gpu_idle"}, {"sw_power_cap", "sw_power_cap"},
      {"hw_slowdown", "hw_slowdown"}, {"sw_thermal_slowdown", "sw_thermal_slowdown"},
      {"hw_thermal_slowdown", "hw_thermal_slowdown"},
      {"hw_power_brake_slowdown", "hw_power_brake_slowdown"}};
  for (const auto& [xml_name, json_name] : reasons) {
    std::string text = Text(gpu, {std::string("clocks_event_reasons/clocks_event_reason_") + xml_name,
                                  std::string("clocks_throttle_reasons/clocks_throttle_reason_") + xml_name});
    if (text != "Active" && text != "Not Active") continue;
    bool listed = false;
    for (const auto& r : got.at("clock_event_reasons")) listed |= r == json_name;
    EXPECT_EQ(listed, text == "Active") << where << " reason " << json_name;
  }
}

std::vector<fs::path> XmlFixtures() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kXmlDir, ec)) {
    if (e.path().extension() == ".xml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(StatusXmlFixtures, EveryCaptureIsReportedAsTheXmlSays) {
  if (!fs::is_directory(kXmlDir)) {
    GTEST_SKIP() << "../shared/fixtures/xml not found at " << kXmlDir
                 << " (a clone without the shared folder): fixture comparison skipped";
  }
  auto files = XmlFixtures();
  ASSERT_GE(files.size(), 20u);
  for (const auto& file : files) {
    const std::string where = file.filename().string();
    SCOPED_TRACE(where);
    pugi::xml_document doc;
    ASSERT_TRUE(doc.load_file(file.c_str()));
    auto root = doc.child("nvidia_smi_log");
    auto r = RunGpudoctor({"status", "--json"}, file.string());
    ASSERT_FALSE(r.timed_out);
    ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    json got = json::parse(r.out);
    EXPECT_EQ(got["driver_version"], root.child("driver_version").text().as_string());
    std::size_t gpu_index = 0, compared = 0;
    for (auto gpu : root.children("gpu")) {
      ASSERT_LT(gpu_index, got["gpus"].size());
      const json& g = got["gpus"][gpu_index];
      EXPECT_EQ(g["pci_bus_id"], ExpectedBusId(gpu.attribute("id").as_string()));
      for (const auto& m : Mappings()) compared += CompareField(gpu, g, m, where);
      CompareReasons(gpu, g, where);
      std::vector<std::int64_t> xml_pids, json_pids;
      for (auto p : gpu.child("processes").children("process_info")) {
        xml_pids.push_back(p.child("pid").text().as_llong());
      }
      for (const auto& p : g["processes"]) json_pids.push_back(p["pid"].get<std::int64_t>());
      EXPECT_EQ(json_pids, xml_pids);
      ++gpu_index;
    }
    EXPECT_EQ(got["gpus"].size(), gpu_index);
    EXPECT_GE(compared, 10u) << "too few fields compared; is the XML mapping right?";
  }
}

}  // namespace
}  // namespace gpudoctor::test
