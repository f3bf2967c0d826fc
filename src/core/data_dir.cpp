#include "core/data_dir.h"

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

Result<bool> EnsureDataDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(dir, ec);
  if (!ec && fs::exists(st)) {
    if (!fs::is_directory(st)) {
      return Error{ErrorCode::kInvalid, dir + ": exists and is not a directory"};
    }
    return true;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    return Error{ec == std::errc::permission_denied ? ErrorCode::kPermission : ErrorCode::kIo,
                 dir + ": cannot create the data directory: " + ec.message()};
  }
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec,
                  fs::perm_options::replace, ec);
  return true;
}

}  // namespace gpudoctor
