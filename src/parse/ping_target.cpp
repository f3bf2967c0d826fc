#include "parse/ping_target.h"

#include "parse/proc_text.h"

namespace gpudoctor {

namespace {

Error Invalid(std::string_view text, std::string_view why) {
  return Error{ErrorCode::kInvalid, "ping target '" + std::string(text) + "': " + std::string(why)};
}

Result<std::uint16_t> ParsePort(std::string_view original, std::string_view port) {
  auto value = ParseUnsigned(port);
  if (!value || *value == 0 || *value > 65535) return Invalid(original, "port must be 1-65535");
  return static_cast<std::uint16_t>(*value);
}

}  // namespace

Result<PingTarget> ParsePingTarget(std::string_view text) {
  PingTarget target;
  target.text = std::string(Trim(text));
  std::string_view rest = Trim(text);
  if (rest.empty()) return Invalid(text, "empty");
  if (rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return Invalid(text, "unclosed '['");
    target.host = std::string(rest.substr(1, close - 1));
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return Invalid(text, "expected ':' after ']'");
      auto port = ParsePort(text, after.substr(1));
      if (!port.ok()) return port.error();
      target.port = *port;
    }
  } else {
    auto first = rest.find(':');
    auto last = rest.rfind(':');
    if (first != std::string_view::npos && first == last) {
      target.host = std::string(rest.substr(0, first));
      auto port = ParsePort(text, rest.substr(first + 1));
      if (!port.ok()) return port.error();
      target.port = *port;
    } else {
      target.host = std::string(rest);  // a name, IPv4, or a bare IPv6 address
    }
  }
  if (target.host.empty()) return Invalid(text, "no host");
  return target;
}

}  // namespace gpudoctor
