#include "http/listen_address.h"

namespace gpudoctor {

Result<ListenAddress> ParseListenAddress(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    return Error{ErrorCode::kInvalid, "--listen " + text + ": expected HOST:PORT or :PORT"};
  }
  ListenAddress a;
  // ":9835" is every address, as node-exporter and dcgm-exporter read it.
  a.host = colon == 0 ? "0.0.0.0" : text.substr(0, colon);
  if (a.host.size() > 2 && a.host.front() == '[' && a.host.back() == ']') {
    a.host = a.host.substr(1, a.host.size() - 2);
  }
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos || std::stoi(port) > 65535) {
    return Error{ErrorCode::kInvalid, "--listen " + text + ": the port is not a number 0-65535"};
  }
  a.port = std::stoi(port);
  return a;
}

}  // namespace gpudoctor
