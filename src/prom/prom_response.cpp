#include "prom/prom_response.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace gpudoctor {
namespace {

using nlohmann::json;

Error Malformed(const std::string& what, const std::string& why) {
  return Error{ErrorCode::kCorrupt, what + ": the answer is not the query API's JSON: " + why};
}

// Prometheus writes sample values as strings ("1.5", "NaN", "+Inf").
bool ParseSampleValue(const json& v, double& out) {
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "NaN") {
    out = NAN;
  } else if (s == "+Inf" || s == "Inf") {
    out = INFINITY;
  } else if (s == "-Inf") {
    out = -INFINITY;
  } else {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0') return false;
  }
  return true;
}

bool ParsePoint(const json& pair, PromPoint& out) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number()) return false;
  out.time_s = pair[0].get<double>();
  return ParseSampleValue(pair[1], out.value);
}

bool ParseLabels(const json& metric, PromSeries& s) {
  if (metric.is_null()) return true;
  if (!metric.is_object()) return false;
  for (const auto& [k, v] : metric.items()) {
    if (!v.is_string()) return false;
    s.labels.emplace(k, v.get<std::string>());
  }
  return true;
}

}  // namespace

const std::string& PromSeries::Label(const std::string& name) const {
  static const std::string kNone;
  auto it = labels.find(name);
  return it == labels.end() ? kNone : it->second;
}

Result<PromAnswer> ParsePromAnswer(std::string_view body, const std::string& what) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    std::string start(body.substr(0, 60));
    for (char& c : start) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return Malformed(what, "it starts \"" + start + "\"");
  }
  const std::string status = doc.value("status", "");
  if (status == "error") {
    return Error{ErrorCode::kInvalid, what + ": " + doc.value("errorType", "error") + ": " +
                                          doc.value("error", "(no message)")};
  }
  if (status != "success") return Malformed(what, "no status \"success\"");
  PromAnswer answer;
  if (auto w = doc.find("warnings"); w != doc.end() && w->is_array()) {
    for (const auto& text : *w) {
      if (text.is_string()) answer.warnings.push_back(text.get<std::string>());
    }
  }
  if (doc.value("isPartial", false)) answer.warnings.push_back("partial response");
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return Malformed(what, "no data");
  const std::string type = data->value("resultType", "");
  auto result = data->find("result");
  if (result == data->end()) return Malformed(what, "no data.result");
  if (type == "scalar" || type == "string") {
    PromSeries s;
    PromPoint p;
    if (type == "scalar" && !ParsePoint(*result, p)) return Malformed(what, "a bad scalar");
    if (type == "scalar") s.points.push_back(p);
    answer.series.push_back(std::move(s));
    return answer;
  }
  if ((type != "vector" && type != "matrix") || !result->is_array()) {
    return Malformed(what, "resultType \"" + type + "\"");
  }
  answer.series.reserve(result->size());
  for (const auto& item : *result) {
    if (!item.is_object()) return Malformed(what, "a result that is not an object");
    PromSeries s;
    auto metric = item.find("metric");
    if (metric != item.end() && !ParseLabels(*metric, s)) return Malformed(what, "bad labels");
    if (type == "vector") {
      PromPoint p;
      auto value = item.find("value");
      if (value == item.end() || !ParsePoint(*value, p)) return Malformed(what, "a bad sample");
      s.points.push_back(p);
    } else {
      auto values = item.find("values");
      if (values == item.end() || !values->is_array()) return Malformed(what, "a series without values");
      s.points.reserve(values->size());
      for (const auto& v : *values) {
        PromPoint p;
        if (!ParsePoint(v, p)) return Malformed(what, "a bad sample");
        s.points.push_back(p);
      }
    }
    answer.series.push_back(std::move(s));
  }
  return answer;
}

}  // namespace gpudoctor
