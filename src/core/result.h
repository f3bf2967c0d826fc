// Errors as values at module edges: a small set of categories plus a one-line
// message that names the input or the call that failed.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gpudoctor {

enum class ErrorCode {
  kNotFound,
  kPermission,
  kNotSupported,
  kCorrupt,    // malformed input
  kIo,
  kTimeout,
  kInvalid,    // bad argument or option
  kLost,       // a GPU that fell off the bus
  kUnavailable,  // driver or library missing
  kUnknown,
};

struct Error {
  ErrorCode code = ErrorCode::kUnknown;
  std::string message;
};

// Holds either a value or an Error. Cheap to move; never throws on access
// misuse beyond std::get's checks.
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::move(error)) {}  // NOLINT

  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(data_); }
  const T& value() const { return std::get<0>(data_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

// The outcome of a step that gives back nothing but whether it worked: ok,
// or the Error. (Where a function's answer is a real yes or no, it returns
// Result<bool>.)
class [[nodiscard]] Status {
 public:
  Status() = default;                              // ok
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

inline Status OkStatus() { return Status(); }

// Error text for errno values, in one place.
Error ErrnoError(int err, const std::string& context);

}  // namespace gpudoctor
