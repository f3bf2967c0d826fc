#include "core/data_dir.h"

#include "core/safe_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace gpudoctor {

Result<std::string> ResolveDataDir(const std::optional<std::string>& explicit_dir) {
  if (explicit_dir) {
    if (explicit_dir->empty()) {
      return Error{ErrorCode::kInvalid, "--data-dir: empty path"};
    }
    return *explicit_dir;
  }
  // GPUDOCTOR_DATA_DIR: one setting for every command (a container, a
  // node with its store on another disk).
  if (const char* env = std::getenv("GPUDOCTOR_DATA_DIR"); env != nullptr && env[0] != '\0') {
    return std::string(env);
  }
  if (geteuid() == 0) return std::string("/var/lib/gpudoctor");
  const char* state = std::getenv("XDG_STATE_HOME");
  if (state != nullptr && state[0] == '/') return std::string(state) + "/gpudoctor";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') {
    return std::string(home) + "/.local/state/gpudoctor";
  }
  return Error{ErrorCode::kInvalid,
               "no data directory: neither XDG_STATE_HOME nor HOME is set; give --data-dir"};
}

Status EnsureDataDir(const std::string& dir, bool allow_shared) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!ec && fs::exists(st)) {
    if (!fs::is_directory(st)) {
      return Error{ErrorCode::kInvalid, dir + ": exists and is not a directory"};
    }
  } else {
    fs::create_directories(dir, ec);
    if (ec) {
      return Error{ec == std::errc::permission_denied ? ErrorCode::kPermission : ErrorCode::kIo,
                   dir + ": cannot create the data directory: " + ec.message()};
    }
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace, ec);
    if (ec) return Error{ErrorCode::kIo, dir + ": cannot make it private: " + ec.message()};
  }
  if (allow_shared) return OkStatus();
  Status safe = CheckPrivateDirectory(dir);
  if (!safe) {
    return Error{safe.error().code,
                 safe.error().message +
                     "; use a directory only this user can write to (chmod 700, owned by this "
                     "user), or --allow-shared-data-dir when everyone who can write there is "
                     "trusted"};
  }
  return OkStatus();
}

}  // namespace gpudoctor
