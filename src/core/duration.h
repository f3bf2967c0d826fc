// Durations on the command line: "500ms", "10s", "5m", "2h", "7d", or a bare
// number of seconds ("1", "0.5").
#pragma once

#include <chrono>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

// Parses text into milliseconds. Errors name the text and the accepted forms.
// Zero and negative durations are rejected.
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

}  // namespace gpudoctor
