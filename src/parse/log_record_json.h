// Internal to the log-record readers: the record inside a parsed JSON object
// (the keys log_record.h lists). Kept apart so that log_record.h stays free
// of the JSON library.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "parse/log_record.h"

namespace gpudoctor {

std::optional<LogRecord> LogRecordFromJson(const nlohmann::json& obj);

}  // namespace gpudoctor
