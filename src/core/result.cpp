#include "core/result.h"

#include <cerrno>
#include <cstring>

namespace gpudoctor {

Error ErrnoError(int err, const std::string& context) {
  ErrorCode code = ErrorCode::kIo;
  if (err == ENOENT || err == ENOTDIR) code = ErrorCode::kNotFound;
  if (err == EACCES || err == EPERM) code = ErrorCode::kPermission;
  if (err == EISDIR || err == EINVAL) code = ErrorCode::kInvalid;
  return Error{code, context + ": " + std::strerror(err)};
}

}  // namespace gpudoctor
