#include "render/facts_json_util.h"

namespace gpudoctor::facts_json {

nlohmann::ordered_json Sources(const std::vector<SourceStatus>& sources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : sources) {
    nlohmann::ordered_json one;
    one["source"] = s.source;
    one["available"] = s.available;
    if (!s.available) one["why"] = s.why;
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace gpudoctor::facts_json
