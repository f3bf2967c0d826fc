// The one way a JSON document becomes text: every command, the agent's API,
// the store and the audit log dump through here. A string that is not UTF-8
// (a process or GPU name, a log line, a file name) never throws: each invalid
// sequence becomes U+FFFD, as core/utf8.h's ToValidUtf8 does, and control
// characters are escaped (\u001b) as JSON requires. The result is valid
// UTF-8 JSON.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace gpudoctor {

// indent < 0: one line; otherwise pretty-printed with that many spaces.
std::string DumpJson(const nlohmann::json& doc, int indent = -1);
std::string DumpJson(const nlohmann::ordered_json& doc, int indent = -1);

}  // namespace gpudoctor
