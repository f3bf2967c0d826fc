// Durations on the command line: "500ms", "10s", "5m", "2h", "7d", or a bare
// number of seconds ("1", "0.5").
#pragma once

#include <chrono>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

// Parses text into milliseconds. Errors name the text and the accepted forms.
// Durations below `minimum` (zero and negative ones among them) are
// rejected, naming the minimum ("must be at least 100ms").
Result<std::chrono::milliseconds> ParseDuration(
    std::string_view text, std::chrono::milliseconds minimum = std::chrono::milliseconds(1));

}  // namespace gpudoctor
