// A JSON document as indented plain text for people ("key: value" lines,
// lists as "- " items), used by `facts` without --json.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace gpudoctor {

std::string JsonToText(const nlohmann::ordered_json& doc);

}  // namespace gpudoctor
