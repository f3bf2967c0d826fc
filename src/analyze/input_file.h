// Helpers for the files given to `gpudoctor analyze` and --kernel-log (the
// streaming reader is input_stream.h): whether a path is a readable file,
// gzip in memory, UTF-16 text. Errors are one line naming the file:
//   "x.log: no such file", "dir: not a file (a directory)",
//   "r.gz: gzip data corrupt at byte 812 (invalid stored block lengths)",
//   "r.gz: gzip data truncated at byte 4096".
// Nothing here throws. Thread-compatible.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_event.h"
#include "core/result.h"

namespace gpudoctor {

// Why a path cannot be read as a file ("x.log: no such file", "dir: not a
// file (a directory)", "x.log: permission denied"), or nothing when it is a
// regular file this process may read.
std::optional<Error> NotAFile(const std::filesystem::path& path);

// Pure gzip decoder: `name` only goes into error messages. Byte offsets in
// errors count from the start of `data`.
Result<std::string> GunzipData(std::string_view data, const std::string& name,
                               std::size_t max_bytes);

// True when data starts with the gzip magic bytes 1f 8b.
bool IsGzipData(std::string_view data);

// UTF-8 for text that starts with a UTF-16 byte-order mark (little or big
// endian), as Windows PowerShell 5.1 writes `nvidia-smi -q > out.txt`; the
// marks (also one of a second file appended) are dropped, unpaired
// surrogates become U+FFFD and an odd last byte is ignored. nullopt for anything without such a mark. Pure.
std::optional<std::string> Utf16ToUtf8(std::string_view data);

// The lines of `content` as LogLines with ref = (file, 1-based line); a
// trailing '\r' is dropped from each.
std::vector<LogLine> SplitLogLines(std::string_view content, const std::string& file);

}  // namespace gpudoctor
