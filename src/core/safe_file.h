// Files gpudoctor creates, made safe to create as root in a directory that
// someone else might write to, and never left cut short: every open refuses
// to follow a symbolic link (O_NOFOLLOW) and is closed on exec (O_CLOEXEC);
// a file's new content is written to a temporary file of its own (O_EXCL)
// beside it, then renamed over it, so that a failed write keeps the
// previous content; every write is checked.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

// open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode). A symbolic link at path
// is an error that says so ("is a symbolic link; refusing to follow it").
Result<int> OpenNoFollow(const std::string& path, int flags, mode_t mode = 0600);

// Writes all of bytes to fd (retrying short writes and EINTR).
Status WriteAllTo(int fd, std::string_view bytes, const std::string& what);

// Replaces path's content with bytes: a new temporary file in the same
// directory (O_EXCL, never a link), written, flushed to disk, given mode,
// then renamed over path. On any failure the temporary file is removed and
// path is left as it was; the error names path and the reason ("No space
// left on device"). A symbolic link at path is refused.
Status ReplaceFile(const std::string& path, std::string_view bytes, mode_t mode);

// What a command's --output does with its text: the path the operator named
// is followed if it is a symbolic link (they chose it); a regular file or a
// new one is replaced as ReplaceFile does (keeping an existing file's mode;
// a new one gets 0666 less the umask); anything else that exists (a device
// such as /dev/stdout or /dev/full, a pipe) is written in place. Every write
// checked.
Status WriteOutputFile(const std::string& path, std::string_view bytes);

// Checks that dir (which exists) is safe to keep root's records in: a
// directory owned by this user (or root), not writable by its group or by
// others, inside parents that are each owned by root or this user and
// writable by no one else (a sticky directory such as /tmp excepted). The
// error names the first directory at fault and what is wrong with it.
Status CheckPrivateDirectory(const std::string& dir);

}  // namespace gpudoctor
