#include "http/basic_auth.h"

#include <crypt.h>
#include <gnutls/crypto.h>

#include <cstring>
#include <memory>

namespace gpudoctor {

bool CheckCryptHash(const std::string& password, const std::string& hash) {
  if (password.find('\0') != std::string::npos) return false;
  auto data = std::make_unique<crypt_data>();  // 32 KB: not on the stack
  std::memset(data.get(), 0, sizeof(crypt_data));
  const char* out = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (out == nullptr || out[0] == '*') return false;
  const std::size_t n = std::strlen(out);
  if (n != hash.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < n; ++i) diff |= static_cast<unsigned char>(out[i] ^ hash[i]);
  return diff == 0;
}

std::string BasicAuthUsers::Key(const std::string& user, const std::string& password) const {
  auto it = users_.find(user);
  std::string material = user;
  material.push_back('\0');
  material += password;
  material.push_back('\0');
  if (it != users_.end()) material += it->second;
  unsigned char digest[32] = {};
  gnutls_hash_fast(GNUTLS_DIG_SHA256, material.data(), material.size(), digest);
  return std::string(reinterpret_cast<const char*>(digest), sizeof digest);
}

bool BasicAuthUsers::KnownGood(const std::string& user, const std::string& password) const {
  if (users_.find(user) == users_.end()) return false;
  const std::string key = Key(user, password);
  std::lock_guard lock(mutex_);
  return verified_.count(key) != 0;
}

bool BasicAuthUsers::Verify(const std::string& user, const std::string& password) {
  // A valid hash of a password nobody knows, for users that do not exist.
  static const std::string kDummy = "$2b$10$4MFvvV8946gQ7GyyGu3fmOWHyZqnBuyETFnJ3fwRSiHduP7TU2xwq";
  auto it = users_.find(user);
  const bool ok =
      CheckCryptHash(password, it != users_.end() ? it->second : kDummy) && it != users_.end();
  if (ok) {
    const std::string key = Key(user, password);
    std::lock_guard lock(mutex_);
    if (verified_.size() >= 256) verified_.clear();
    verified_.insert(key);
  }
  return ok;
}

}  // namespace gpudoctor
