// Where gpudoctor keeps what it records (the agent's store, fix's audit log):
// --data-dir when given; otherwise /var/lib/gpudoctor for root, and
// $XDG_STATE_HOME/gpudoctor (or ~/.local/state/gpudoctor) for anyone else.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"

namespace gpudoctor {

// The directory to use: --data-dir, else $GPUDOCTOR_DATA_DIR, else
// /var/lib/gpudoctor for root, else $XDG_STATE_HOME/gpudoctor or
// ~/.local/state/gpudoctor. Never touches the file system. An error only when
// neither XDG_STATE_HOME nor HOME is set for a non-root user.
Result<std::string> ResolveDataDir(const std::optional<std::string>& explicit_dir);

// Creates dir (and its parents) with mode 0700 when missing. A path that
// exists but is not a directory is an error naming it. Then, unless
// allow_shared (--allow-shared-data-dir), refuses a directory another user
// could write to or owns, or one inside such a parent (safe_file.h's
// CheckPrivateDirectory): as root, files planted there (links named like
// the agent's state or lock) would turn its writes against other files.
Status EnsureDataDir(const std::string& dir, bool allow_shared = false);

}  // namespace gpudoctor
