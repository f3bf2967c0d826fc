// HTTP basic authentication against the bcrypt hashes of a web config
// (basic_auth_users). bcrypt costs tens of milliseconds on purpose, so a
// password that was verified once is remembered (by a SHA-256 of user,
// password and hash, never the password itself) and later requests with
// it are checked at once. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

namespace gpudoctor {

class BasicAuthUsers {
 public:
  explicit BasicAuthUsers(std::map<std::string, std::string> users) : users_(std::move(users)) {}
  bool empty() const { return users_.empty(); }
  // True when these credentials were verified before: no bcrypt needed.
  bool KnownGood(const std::string& user, const std::string& password) const;
  // Verifies with bcrypt (slow); an unknown user costs a bcrypt as well,
  // so that timing does not tell which users exist.
  bool Verify(const std::string& user, const std::string& password);

 private:
  std::string Key(const std::string& user, const std::string& password) const;
  const std::map<std::string, std::string> users_;
  mutable std::mutex mutex_;
  std::set<std::string> verified_;  // bounded: cleared when it reaches 256
};

// True when `password` hashes to `hash` (bcrypt $2a$/$2b$/$2y$, or any
// other method libxcrypt knows). Constant-time comparison.
bool CheckCryptHash(const std::string& password, const std::string& hash);

}  // namespace gpudoctor
