// The agent's --web-config (Prometheus exporter toolkit format): what it
// accepts, the one-line errors naming the file for what it does not, and
// bcrypt verification through libxcrypt ($2b$ and $2y$).
#include "http/web_config.h"

#include <gtest/gtest.h>

#include "http/basic_auth.h"
#include "support/temp_files.h"

namespace gpudoctor::test {
namespace web_config_test {

// bcrypt of "secret" at cost 4 (fast enough for tests).
constexpr const char* kSecret2b = "$2b$04$smeUNCKiNpiDxKXLuDQY8evkDebDzcQZHVF6AHnF.RtW9kVO9JZi2";
constexpr const char* kSecret2y = "$2y$04$smeUNCKiNpiDxKXLuDQY8evkDebDzcQZHVF6AHnF.RtW9kVO9JZi2";

TEST(WebConfig, ParsesUsersAndTlsAsTheExporterToolkitWritesThem) {
  auto c = ParseWebConfig(std::string("tls_server_config:\n  cert_file: server.crt\n"
                                      "  key_file: server.key\n  client_ca_file: ca.crt\n"
                                      "  min_version: TLS13\n"
                                      "basic_auth_users:\n  prometheus: ") +
                              kSecret2b + "\n  other: '" + kSecret2y + "'\n",
                          "/etc/gpudoctor/web.yml");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->tls);
  EXPECT_EQ(c->tls->cert_file, "server.crt");
  EXPECT_EQ(c->tls->client_ca_file, "ca.crt");
  // A client CA without client_auth_type verifies every client, as in Go.
  EXPECT_EQ(c->tls->client_auth, ClientAuth::kRequireAndVerifyClientCert);
  EXPECT_EQ(c->tls->min_version, 13);
  EXPECT_EQ(c->basic_auth_users.size(), 2u);
  EXPECT_EQ(c->basic_auth_users.at("prometheus"), kSecret2b);
  EXPECT_EQ(TlsPriorities(12, 13), "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2");
}

TEST(WebConfig, EmptyFileMeansPlainHttpWithoutUsers) {
  auto c = ParseWebConfig("", "web.yml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_FALSE(c->tls);
  EXPECT_TRUE(c->basic_auth_users.empty());
}

TEST(WebConfig, EveryMistakeIsOneLineNamingTheFile) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"basic_auth_users:\n  alice: plain-password\n", "basic_auth_users.alice: not a bcrypt hash"},
      {"basic_auth_user:\n  alice: x\n", "basic_auth_user: unknown key"},
      {"tls_server_config:\n  cert_file: a.crt\n", "cert_file and key_file are both required"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n",
       "'Sometimes' is not NoClientCert"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: "
       "RequireAndVerifyClientCert\n",
       "needs client_ca_file"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n",
       "'TLS14' is not TLS10"},
      {"tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [x]\n",
       "cipher_suites: not supported"},
      {"basic_auth_users: [1, 2\n", "not YAML"},
      {"- just\n- a list\n", "expected a YAML mapping"},
      {"basic_auth_users:\n  alice:\n    nested: map\n", "not a bcrypt hash"},
      {std::string("\xff\xfe\x00garbage", 10), ""},
      {std::string("basic_auth_users:\n  alice: ") +
           "$2b$04$smeUNCKiNpiDxKXLuDQY8evkDebDzcQZHVF6AHnF.RtW9kVO9JZi2\n  alice: " +
           "$2y$04$/cucrxCWviAjNf43q6Rt9OGTkdSGy1iT8DV32lwhnLeqhpI47IriS\n",
       "basic_auth_users.alice: listed twice"},
  };
  for (const auto& [text, expected] : bad) {
    auto c = ParseWebConfig(text, "/etc/gpudoctor/web.yml");
    ASSERT_FALSE(c) << text;
    const std::string& m = c.error().message;
    EXPECT_EQ(m.rfind("/etc/gpudoctor/web.yml: ", 0), 0u) << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_NE(m.find(expected), std::string::npos) << m;
  }
}

TEST(WebConfig, LoadNamesTheMissingFileAndChecksTheCertificate) {
  TempDir dir;
  auto missing = LoadWebConfig((dir.path() / "nope.yml").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.yml"), std::string::npos);

  const std::string path =
      dir.Write("web.yml", "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
  auto no_cert = LoadWebConfig(path);
  ASSERT_FALSE(no_cert);
  EXPECT_NE(no_cert.error().message.find((dir.path() / "server.crt").string()), std::string::npos)
      << no_cert.error().message;

  dir.Write("server.crt", "-----BEGIN CERTIFICATE-----\nnot base64 at all\n");
  dir.Write("server.key", "nor this\n");
  auto bad_pem = LoadWebConfig(path);
  ASSERT_FALSE(bad_pem);
  EXPECT_EQ(bad_pem.error().message.rfind(path + ": tls_server_config: cert_file", 0), 0u)
      << bad_pem.error().message;
  EXPECT_EQ(bad_pem.error().message.find('\n'), std::string::npos);
}

TEST(BasicAuth, BcryptThroughLibxcrypt) {
  EXPECT_TRUE(CheckCryptHash("secret", kSecret2b));
  EXPECT_TRUE(CheckCryptHash("secret", kSecret2y));
  EXPECT_FALSE(CheckCryptHash("Secret", kSecret2b));
  EXPECT_FALSE(CheckCryptHash("", kSecret2b));
  EXPECT_FALSE(CheckCryptHash(std::string("secret\0x", 8), kSecret2b));
  EXPECT_FALSE(CheckCryptHash("secret", "$2b$04$short"));

  BasicAuthUsers users(std::map<std::string, std::string>{{"prometheus", kSecret2b}});
  EXPECT_FALSE(users.KnownGood("prometheus", "secret"));
  EXPECT_FALSE(users.Verify("prometheus", "wrong"));
  EXPECT_FALSE(users.Verify("nobody", "secret"));
  EXPECT_TRUE(users.Verify("prometheus", "secret"));
  // Remembered once verified; another password is not.
  EXPECT_TRUE(users.KnownGood("prometheus", "secret"));
  EXPECT_FALSE(users.KnownGood("prometheus", "wrong"));
}

}  // namespace web_config_test
}  // namespace gpudoctor::test
