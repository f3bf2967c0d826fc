// Running `gpudoctor analyze --format json` on a text written to a
// temporary file, and picking parts of the report, for the e2e tests.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_process.h"
#include "support/temp_files.h"

namespace gpudoctor::test {

using nlohmann::json;

// English output whatever the caller's locale.
inline ProcessOptions EnglishOnly() {
  ProcessOptions o;
  o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
  return o;
}

struct Analysed {
  int exit_code = 0;
  json doc;
  std::string err;
};

// `content` written to `name` in a fresh directory and analysed.
inline Analysed AnalyseText(const std::string& name, const std::string& content) {
  TempDir dir;
  std::string path = dir.Write(name, content);
  auto r = RunProcess({GPUDOCTOR_BINARY, "analyze", "--format", "json", path}, EnglishOnly());
  Analysed a;
  a.exit_code = r.exit_code;
  a.err = r.err;
  if (!r.out.empty()) a.doc = json::parse(r.out);
  return a;
}

inline const json* FindingOf(const json& doc, const std::string& id) {
  for (const auto& f : doc["findings"]) {
    if (f["id"] == id) return &f;
  }
  return nullptr;
}

inline std::set<std::string> IdSet(const json& doc) {
  std::set<std::string> ids;
  for (const auto& f : doc["findings"]) ids.insert(f["id"].get<std::string>());
  return ids;
}

inline const json* GpuOf(const json& doc, const std::string& bus) {
  for (const auto& g : doc["gpus"]) {
    if (g["pci_bus_id"] == bus) return &g;
  }
  return nullptr;
}

}  // namespace gpudoctor::test
