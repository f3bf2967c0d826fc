// Compressed responses for scrapers that ask for them (Prometheus sends
// "Accept-Encoding: gzip"). The agent compresses each exposition once per
// snapshot and serves the same bytes to every scraper, instead of letting
// the HTTP library compress 95 KB again for every request.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpudoctor {

// True when an Accept-Encoding header value accepts gzip: a "gzip" (or
// "x-gzip", or "*") coding whose q-value is not 0. Case-insensitive;
// malformed parts are ignored.
bool AcceptsGzip(std::string_view accept_encoding);

// `data` as one gzip member (RFC 1952) at a speed-oriented level; nullopt
// only when zlib fails (out of memory).
std::optional<std::string> GzipCompress(std::string_view data);

}  // namespace gpudoctor
