// Points in time on the command line (`report --from/--to`): RFC 3339
// ("2026-11-29T02:13:05Z", "2026-11-29T10:13:05+08:00", fractions allowed),
// or local time without a zone ("2026-11-29 02:13", "2026-11-29T02:13:05",
// "2026-11-29" for midnight).
#pragma once

#include <string_view>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

// Errors name the text and the accepted forms. Local time uses the process's
// time zone (TZ).
Result<WallTime> ParseTimePoint(std::string_view text);

}  // namespace gpudoctor
