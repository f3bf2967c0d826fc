#include "http/web_config.h"

#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <filesystem>

namespace gpudoctor {
namespace web_config_file {

constexpr std::size_t kMaxFileBytes = 1 << 20;

Error Invalid(const std::string& path, const std::string& what) {
  return Error{ErrorCode::kInvalid, path + ": " + what};
}

// A whole regular file of at most kMaxFileBytes; the error names `what`.
Result<std::string> ReadSmallFile(const std::string& path, const std::string& what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, what);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorCode::kInvalid, what + ": not a regular file"};
  }
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return ErrnoError(err, what);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxFileBytes) {
      ::close(fd);
      return Error{ErrorCode::kInvalid, what + ": larger than 1 MiB"};
    }
  }
  ::close(fd);
  return text;
}

std::optional<std::string> Scalar(const YAML::Node& node) {
  if (!node.IsScalar()) return std::nullopt;
  return node.Scalar();
}

std::optional<int> TlsVersion(const std::string& text) {
  if (text == "TLS10") return 10;
  if (text == "TLS11") return 11;
  if (text == "TLS12") return 12;
  if (text == "TLS13") return 13;
  return std::nullopt;
}

std::optional<ClientAuth> ClientAuthType(const std::string& text) {
  if (text == "NoClientCert") return ClientAuth::kNoClientCert;
  if (text == "RequestClientCert") return ClientAuth::kRequestClientCert;
  if (text == "RequireAnyClientCert") return ClientAuth::kRequireAnyClientCert;
  if (text == "VerifyClientCertIfGiven") return ClientAuth::kVerifyClientCertIfGiven;
  if (text == "RequireAndVerifyClientCert") return ClientAuth::kRequireAndVerifyClientCert;
  return std::nullopt;
}

// bcrypt's modular crypt format: $2a$, $2b$ or $2y$, a two-digit cost and
// 53 characters of salt and hash.
bool LooksLikeBcrypt(const std::string& hash) {
  return hash.size() == 60 && hash[0] == '$' && hash[1] == '2' &&
         (hash[2] == 'a' || hash[2] == 'b' || hash[2] == 'y') && hash[3] == '$' &&
         std::isdigit(static_cast<unsigned char>(hash[4])) &&
         std::isdigit(static_cast<unsigned char>(hash[5])) && hash[6] == '$';
}

std::optional<Error> ParseTls(const YAML::Node& node, const std::string& path,
                              TlsServerConfig& tls) {
  if (!node.IsMap()) return Invalid(path, "tls_server_config: expected a mapping");
  bool client_auth_given = false;
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>("");
    const std::string where = "tls_server_config." + key;
    if (key == "cert" || key == "key" || key == "cipher_suites" || key == "curve_preferences" ||
        key == "prefer_server_cipher_suites" || key == "client_allowed_sans") {
      return Invalid(path, where +
                               ": not supported by gpudoctor (use cert_file, key_file, "
                               "client_ca_file, client_auth_type, min_version, max_version)");
    }
    const auto value = Scalar(kv.second);
    if (!value && !kv.second.IsNull()) return Invalid(path, where + ": expected a single value");
    const std::string v = value.value_or("");
    if (key == "cert_file") {
      tls.cert_file = v;
    } else if (key == "key_file") {
      tls.key_file = v;
    } else if (key == "client_ca_file") {
      tls.client_ca_file = v;
    } else if (key == "client_auth_type") {
      auto type = ClientAuthType(v);
      if (!type) {
        return Invalid(path, where + ": '" + v +
                                 "' is not NoClientCert, RequestClientCert, RequireAnyClientCert, "
                                 "VerifyClientCertIfGiven or RequireAndVerifyClientCert");
      }
      tls.client_auth = *type;
      client_auth_given = true;
    } else if (key == "min_version" || key == "max_version") {
      auto version = TlsVersion(v);
      if (!version)
        return Invalid(path, where + ": '" + v + "' is not TLS10, TLS11, TLS12 or TLS13");
      (key == "min_version" ? tls.min_version : tls.max_version) = *version;
    } else {
      return Invalid(path, where + ": unknown key");
    }
  }
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return Invalid(path, "tls_server_config: cert_file and key_file are both required");
  }
  if (tls.min_version > tls.max_version) {
    return Invalid(path, "tls_server_config: min_version is above max_version");
  }
  // As in the toolkit: a client CA without a client_auth_type verifies
  // the certificates of every client.
  if (!client_auth_given && !tls.client_ca_file.empty()) {
    tls.client_auth = ClientAuth::kRequireAndVerifyClientCert;
  }
  const bool verifies = tls.client_auth == ClientAuth::kVerifyClientCertIfGiven ||
                        tls.client_auth == ClientAuth::kRequireAndVerifyClientCert;
  if (verifies && tls.client_ca_file.empty()) {
    return Invalid(path,
                   "tls_server_config.client_auth_type: verifying client certificates "
                   "needs client_ca_file");
  }
  return std::nullopt;
}

// GnuTLS's verdict on the certificate, key and client CA, so that a bad
// file is refused when the config is read, with GnuTLS' reason.
std::optional<Error> CheckTlsMaterial(const TlsServerConfig& tls, const std::string& path) {
  gnutls_certificate_credentials_t creds = nullptr;
  if (gnutls_certificate_allocate_credentials(&creds) != GNUTLS_E_SUCCESS) {
    return Error{ErrorCode::kUnavailable, path + ": GnuTLS cannot allocate credentials"};
  }
  auto datum = [](const std::string& pem) {
    return gnutls_datum_t{reinterpret_cast<unsigned char*>(const_cast<char*>(pem.data())),
                          static_cast<unsigned>(pem.size())};
  };
  std::optional<Error> error;
  const gnutls_datum_t cert = datum(tls.cert_pem);
  const gnutls_datum_t key = datum(tls.key_pem);
  if (int rc = gnutls_certificate_set_x509_key_mem(creds, &cert, &key, GNUTLS_X509_FMT_PEM);
      rc < 0) {
    error = Invalid(path, "tls_server_config: cert_file " + tls.cert_file + " and key_file " +
                              tls.key_file + ": " + gnutls_strerror(rc));
  } else if (!tls.client_ca_pem.empty()) {
    const gnutls_datum_t ca = datum(tls.client_ca_pem);
    if (int n = gnutls_certificate_set_x509_trust_mem(creds, &ca, GNUTLS_X509_FMT_PEM); n <= 0) {
      error = Invalid(path, "tls_server_config.client_ca_file " + tls.client_ca_file + ": " +
                                (n < 0 ? gnutls_strerror(n) : "no certificate in it"));
    }
  }
  gnutls_certificate_free_credentials(creds);
  return error;
}

}  // namespace web_config_file

Result<WebConfig> ParseWebConfig(std::string_view yaml, const std::string& path) {
  using namespace web_config_file;
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Invalid(path, "not YAML: line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return Invalid(path, std::string("not YAML: ") + e.what());
  }
  WebConfig config;
  config.source = path;
  if (root.IsNull()) return config;  // an empty file: plain HTTP, no users
  if (!root.IsMap()) return Invalid(path, "expected a YAML mapping at the top");
  try {
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>("");
      if (key == "tls_server_config") {
        if (kv.second.IsNull()) continue;
        TlsServerConfig tls;
        if (auto e = ParseTls(kv.second, path, tls)) return *e;
        config.tls = std::move(tls);
      } else if (key == "basic_auth_users") {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap()) return Invalid(path, "basic_auth_users: expected a mapping");
        for (const auto& user : kv.second) {
          const std::string name = user.first.as<std::string>("");
          const auto hash = Scalar(user.second);
          if (name.empty() || name.find(':') != std::string::npos) {
            return Invalid(path, "basic_auth_users: a user name is empty or holds ':'");
          }
          if (!hash || !LooksLikeBcrypt(*hash)) {
            return Invalid(path, "basic_auth_users." + name +
                                     ": not a bcrypt hash ($2a$, $2b$ or $2y$, 60 characters)");
          }
          if (config.basic_auth_users.contains(name)) {
            return Invalid(path, "basic_auth_users." + name +
                                     ": listed twice (which password "
                                     "counts would depend on the order)");
          }
          config.basic_auth_users[name] = *hash;
        }
      } else if (key == "http_server_config") {
        return Invalid(path, "http_server_config: not supported by gpudoctor");
      } else {
        return Invalid(path, key + ": unknown key (tls_server_config, basic_auth_users)");
      }
    }
  } catch (const std::exception& e) {
    return Invalid(path, std::string("malformed: ") + e.what());
  }
  return config;
}

std::vector<std::string> WorldReadableSecrets(const WebConfig& config) {
  std::vector<std::string> out;
  auto check = [&](const std::string& file) {
    struct stat st {};
    if (file.empty() || ::stat(file.c_str(), &st) != 0 || (st.st_mode & S_IROTH) == 0) return;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    out.push_back(file + " (mode " + mode + ")");
  };
  if (!config.basic_auth_users.empty()) check(config.source);
  if (config.tls && !config.tls->key_file.empty()) {
    const std::filesystem::path key = config.tls->key_file;
    check(key.is_absolute() ? key.string()
                            : (std::filesystem::path(config.source).parent_path() / key).string());
  }
  return out;
}

Result<WebConfig> LoadWebConfig(const std::string& path) {
  using namespace web_config_file;
  auto text = ReadSmallFile(path, "--web-config " + path);
  if (!text) return text.error();
  auto config = ParseWebConfig(*text, path);
  if (!config || !config->tls) return config;
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  auto read_pem = [&](const std::string& name, const char* key,
                      std::string& pem) -> std::optional<Error> {
    if (name.empty()) return std::nullopt;
    const std::filesystem::path file =
        std::filesystem::path(name).is_absolute() ? std::filesystem::path(name) : dir / name;
    auto read =
        ReadSmallFile(file.string(), path + ": tls_server_config." + key + " " + file.string());
    if (!read) return read.error();
    pem = std::move(*read);
    return std::nullopt;
  };
  TlsServerConfig& tls = *config->tls;
  if (auto e = read_pem(tls.cert_file, "cert_file", tls.cert_pem)) return *e;
  if (auto e = read_pem(tls.key_file, "key_file", tls.key_pem)) return *e;
  if (auto e = read_pem(tls.client_ca_file, "client_ca_file", tls.client_ca_pem)) return *e;
  if (auto e = CheckTlsMaterial(tls, path)) return *e;
  return config;
}

std::string TlsPriorities(int min_version, int max_version) {
  std::string p = "NORMAL:-VERS-ALL";
  for (int v = max_version; v >= min_version; --v) {
    p += ":+VERS-TLS1." + std::to_string(v - 10);
  }
  return p;
}

}  // namespace gpudoctor
