#include "core/json_dump.h"

#include <nlohmann/json.hpp>

namespace gpudoctor {

std::string DumpJson(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string DumpJson(const nlohmann::ordered_json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace gpudoctor
