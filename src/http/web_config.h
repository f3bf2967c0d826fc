// The agent's --web-config file, in the format of Prometheus' exporter
// toolkit (node-exporter's and dcgm-exporter's --web.config.file):
//
//   tls_server_config:
//     cert_file: server.crt        # PEM; relative to the config file
//     key_file: server.key
//     client_ca_file: ca.crt       # optional: client certificates
//     client_auth_type: RequireAndVerifyClientCert
//     min_version: TLS12           # TLS10..TLS13; default TLS12
//     max_version: TLS13
//   basic_auth_users:
//     prometheus: $2y$10$...       # bcrypt hash (htpasswd -nBC 10)
//
// Unknown keys are errors, as in the toolkit (which reads it strictly).
// The parser is pure; LoadWebConfig reads the file and the PEM files it
// names, so that a bad file is refused before anything is served.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

enum class ClientAuth {
  kNoClientCert,
  kRequestClientCert,
  kRequireAnyClientCert,
  kVerifyClientCertIfGiven,
  kRequireAndVerifyClientCert,
};

struct TlsServerConfig {
  std::string cert_file;  // as written (relative paths resolved by the loader)
  std::string key_file;
  std::string client_ca_file;  // empty: no client certificates asked for
  ClientAuth client_auth = ClientAuth::kNoClientCert;
  int min_version = 12;  // 10..13: TLS 1.0 .. TLS 1.3
  int max_version = 13;
  // Filled by LoadWebConfig: the PEM texts.
  std::string cert_pem;
  std::string key_pem;
  std::string client_ca_pem;
};

struct WebConfig {
  std::string source;  // the file it came from
  std::optional<TlsServerConfig> tls;
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash
};

// Parses the YAML text of `path` (named in every error). Errors are one
// line, kInvalid: "PATH: basic_auth_users.alice: not a bcrypt hash".
Result<WebConfig> ParseWebConfig(std::string_view yaml, const std::string& path);

// Reads `path` (at most 1 MiB), parses it and reads the certificate, key
// and client CA files it names (each at most 1 MiB, paths relative to the
// config file's directory). A missing or unreadable file is a one-line
// error naming it.
Result<WebConfig> LoadWebConfig(const std::string& path);

// The files of a loaded web config that any user of the machine may read
// although they hold secrets: the config itself when it has users (their
// password hashes), and the TLS key. Each "PATH (mode 0644)". For a
// warning: the operator may have reasons (a read-only Secret volume).
std::vector<std::string> WorldReadableSecrets(const WebConfig& config);

// The GnuTLS priority string for a [min, max] TLS version range.
std::string TlsPriorities(int min_version, int max_version);

}  // namespace gpudoctor
