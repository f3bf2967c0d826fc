// One HTTP request and its response as the agent's handlers see them,
// apart from the server library that carries them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpudoctor {

struct HttpRequest {
  std::string path;
  std::vector<std::pair<std::string, std::string>> params;  // decoded query, in order
  std::string accept;
  std::string accept_encoding;
  std::string method;  // "GET", "HEAD" or "POST"
  // The user basic authentication admitted; empty without authentication.
  std::string user;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::shared_ptr<const std::string> body;  // never null once built
  std::vector<std::pair<std::string, std::string>> headers;
};

// A one-line plain-text answer ("no sample yet").
inline HttpResponse TextResponse(int status, const std::string& text) {
  HttpResponse r;
  r.status = status;
  r.body = std::make_shared<const std::string>(text + "\n");
  return r;
}

struct HttpRoute {
  std::string path;
  std::function<HttpResponse(const HttpRequest&)> handler;
  bool slow = false;     // may take long (reads the store): runs on a worker thread
  bool public_ = false;  // answered without credentials (/healthz)
  // Changes something (POST only, its parameters in the query string, no
  // body); every other route answers GET and HEAD.
  bool post = false;
};

}  // namespace gpudoctor
