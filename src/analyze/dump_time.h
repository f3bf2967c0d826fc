// When an nvidia-smi dump was taken, from its own stamp: <timestamp> in the
// XML form, "Timestamp : ..." in the text form. nvidia-smi writes the
// machine's local time without a zone ("Thu Sep  1 15:20:22 2022"); it is
// read as UTC, the same way naive kernel-log stamps are read by `analyze`,
// so that readings and events of one machine line up. Pure; never throws.
#pragma once

#include <optional>
#include <string_view>

#include "core/kernel_event.h"

namespace gpudoctor {

// "Thu Sep  1 15:20:22 2022" or "Sep 1 15:20:22 2022" (weekday optional,
// month names as the kernel-log reader knows them); nullopt otherwise.
std::optional<WallTime> ParseCtimeStamp(std::string_view text);

// The stamp of an `nvidia-smi -q -x` document; nullopt when absent or unparsable.
std::optional<WallTime> XmlDumpTime(std::string_view xml);

// The stamp of `nvidia-smi -q` text; nullopt when absent or unparsable.
std::optional<WallTime> TextDumpTime(std::string_view text);

// The date line nvidia-smi prints above its default table ("Fri Nov  3
// 10:54:52 2023"): the first line with text, when it comes before the table's
// first line; nullopt otherwise.
std::optional<WallTime> TableDumpTime(std::string_view text);

// A four-digit year (1990-2199) anywhere in the text, e.g. the bug report's
// "Date: Thu Oct 27 08:50:11 PM -03 2022"; 0 when none.
int YearInText(std::string_view text);

}  // namespace gpudoctor
