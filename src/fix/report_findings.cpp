#include "fix/report_findings.h"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/gpu_status.h"
#include "core/json_dump.h"

namespace gpudoctor {
namespace {

constexpr std::uintmax_t kMaxReportBytes = 64u << 20;

Error Corrupt(const std::string& name, const std::string& what) {
  return Error{ErrorCode::kCorrupt, name + ": " + what};
}

Result<Finding> ParseFinding(const nlohmann::json& f, std::size_t i, const std::string& name) {
  std::string where = "findings[" + std::to_string(i) + "]";
  if (!f.is_object()) return Corrupt(name, where + " is not an object");
  auto id = f.find("id");
  if (id == f.end() || !id->is_string() || id->get<std::string>().empty()) {
    return Corrupt(name, where + ".id is missing or not a string");
  }
  Finding out;
  out.id = id->get<std::string>();
  if (auto sev = f.find("severity"); sev != f.end()) {
    auto parsed = sev->is_string() ? ParseSeverity(sev->get<std::string>()) : std::nullopt;
    if (!parsed) return Corrupt(name, where + ".severity is not ok, info, warning or critical");
    out.severity = *parsed;
  }
  if (auto title = f.find("title"); title != f.end() && title->is_string()) {
    out.title = Text{title->get<std::string>(), title->get<std::string>()};
  }
  auto gpus = f.find("gpus");
  if (gpus == f.end()) return out;
  if (!gpus->is_array()) return Corrupt(name, where + ".gpus is not a list");
  for (const auto& g : *gpus) {
    std::string bus = g.is_string() ? NormalizePciBusId(g.get<std::string>()) : "";
    if (bus.empty()) return Corrupt(name, where + ".gpus has " + DumpJson(g) + ", not a PCI bus id");
    out.gpus.push_back(bus);
  }
  return out;
}

}  // namespace

Result<std::vector<Finding>> ParseReportFindings(std::string_view text, const std::string& name) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
    std::string why = e.what();
    for (char& c : why) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return Corrupt(name, "not valid JSON (" + why + ")");
  }
  if (!doc.is_object()) return Corrupt(name, "not a gpudoctor report (not a JSON object)");
  auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_string() || *schema != "gpudoctor.report/v1") {
    std::string got = schema == doc.end() ? "none" : DumpJson(*schema);
    return Corrupt(name,
                   "not a gpudoctor report (schema " + got + ", expected gpudoctor.report/v1)");
  }
  auto findings = doc.find("findings");
  if (findings == doc.end() || !findings->is_array()) {
    return Corrupt(name, "findings is missing or not a list");
  }
  std::vector<Finding> out;
  for (std::size_t i = 0; i < findings->size(); ++i) {
    auto f = ParseFinding((*findings)[i], i, name);
    if (!f) return f.error();
    out.push_back(std::move(*f));
  }
  return out;
}

Result<std::vector<Finding>> ReadReportFindings(const std::string& path) {
  std::error_code ec;
  auto size = std::filesystem::file_size(path, ec);
  if (ec) return Error{ErrorCode::kNotFound, path + ": cannot read the report: " + ec.message()};
  if (size > kMaxReportBytes) return Corrupt(path, "too large for a gpudoctor report");
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoError(errno, path + ": cannot read the report");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return ErrnoError(errno, path + ": cannot read the report");
  return ParseReportFindings(buf.str(), path);
}

}  // namespace gpudoctor
