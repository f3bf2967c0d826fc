#include "http/content_encoding.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpudoctor {
namespace {

std::string_view TrimHeaderSpace(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The q-value of one coding's parameters ("q=0.5"); 1 when absent, and
// also when malformed (RFC 9110 leaves it to the recipient; accepting is
// the harmless reading).
double QValue(std::string_view params) {
  while (!params.empty()) {
    const auto semi = params.find(';');
    const std::string_view p = TrimHeaderSpace(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (p.size() >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
      const std::string value(TrimHeaderSpace(p.substr(2)));
      char* end = nullptr;
      const double q = std::strtod(value.c_str(), &end);
      if (end != value.c_str() && *end == '\0' && q >= 0 && q <= 1) return q;
    }
  }
  return 1;
}

}  // namespace

bool AcceptsGzip(std::string_view accept_encoding) {
  std::optional<double> gzip_q;
  std::optional<double> any_q;
  while (!accept_encoding.empty()) {
    const auto comma = accept_encoding.find(',');
    const std::string_view part = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
    const auto semi = part.find(';');
    const std::string coding = Lower(TrimHeaderSpace(part.substr(0, semi)));
    const double q = QValue(semi == std::string_view::npos ? std::string_view{}
                                                           : part.substr(semi + 1));
    if (coding == "gzip" || coding == "x-gzip") {
      gzip_q = std::max(gzip_q.value_or(0), q);
    } else if (coding == "*") {
      any_q = q;
    }
  }
  if (gzip_q) return *gzip_q > 0;
  return any_q && *any_q > 0;
}

std::optional<std::string> GzipCompress(std::string_view data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return std::nullopt;
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const bool ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
  out.resize(z.total_out);
  deflateEnd(&z);
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace gpudoctor
