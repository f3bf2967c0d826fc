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

namespace {

// Builds the answer's JSON bottom-up like a DOM, except each object of
// data.result (a series with its labels and points) becomes a PromSeries at
// its end and is not kept: a range answer of a large fleet is never held as
// a whole DOM, which costs several times its text.
class AnswerSax : public nlohmann::json_sax<json> {
 public:
  bool null() override { return Value(json(nullptr)); }
  bool boolean(bool v) override { return Value(json(v)); }
  bool number_integer(number_integer_t v) override { return Value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Value(json(v)); }
  bool string(string_t& v) override { return Value(json(std::move(v))); }
  bool binary(binary_t&) override { return Value(json(nullptr)); }
  bool start_object(std::size_t) override { return Push(json::object()); }
  bool start_array(std::size_t) override { return Push(json::array()); }
  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() override {
    json obj = std::move(stack_.back().value);
    stack_.pop_back();
    if (InResultArray()) {
      AddSeries(obj);
      return true;
    }
    return Value(std::move(obj));
  }
  bool end_array() override {
    json arr = std::move(stack_.back().value);
    stack_.pop_back();
    return Value(std::move(arr));
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

  json doc;                      // the answer without data.result's objects
  std::vector<PromSeries> series;
  std::vector<char> kinds;       // per series: 'v' (one "value") or 'm' ("values")
  std::string first_error;       // what was wrong with the first bad series

 private:
  struct Frame {
    json value;
    std::string key;   // the current key, in an object
    std::string name;  // the key this value is under in its parent object
  };

  bool Push(json v) {
    Frame f{std::move(v), {}, {}};
    if (!stack_.empty() && stack_.back().value.is_object()) f.name = stack_.back().key;
    stack_.push_back(std::move(f));
    return true;
  }
  bool Value(json v) {
    if (stack_.empty()) {
      doc = std::move(v);
      return true;
    }
    Frame& top = stack_.back();
    if (top.value.is_object()) {
      top.value[top.key] = std::move(v);
    } else {
      top.value.push_back(std::move(v));
    }
    return true;
  }
  // The root object's "data" object's "result" array is on top.
  bool InResultArray() const {
    return stack_.size() == 3 && stack_[2].value.is_array() && stack_[2].name == "result" &&
           stack_[1].value.is_object() && stack_[1].name == "data";
  }
  void AddSeries(const json& item) {
    PromSeries s;
    char kind = 0;
    std::string why;
    auto metric = item.find("metric");
    auto value = item.find("value");
    auto values = item.find("values");
    if (metric != item.end() && !ParseLabels(*metric, s)) {
      why = "bad labels";
    } else if (value != item.end()) {
      kind = 'v';
      PromPoint p;
      if (!ParsePoint(*value, p)) why = "a bad sample";
      s.points.push_back(p);
    } else if (values != item.end() && values->is_array()) {
      kind = 'm';
      s.points.reserve(values->size());
      for (const auto& v : *values) {
        PromPoint p;
        if (!ParsePoint(v, p)) why = "a bad sample";
        s.points.push_back(p);
      }
    }
    if (!why.empty() && first_error.empty()) first_error = why;
    series.push_back(std::move(s));
    kinds.push_back(kind);
  }

  std::vector<Frame> stack_;
};

// A member of the answer by its type: a proxy or another server may send a
// number where Prometheus sends a string (json::value would throw).
std::string StringAt(const json& object, const char* key, const std::string& otherwise) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

bool TrueAt(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

Result<PromAnswer> ParsePromAnswer(std::string_view body, const std::string& what) {
  AnswerSax sax;
  const bool parsed = json::sax_parse(body, &sax, json::input_format_t::json, /*strict=*/true);
  json& doc = sax.doc;
  if (!parsed || !doc.is_object()) {
    std::string start(body.substr(0, 60));
    for (char& c : start) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return Malformed(what, "it starts \"" + start + "\"");
  }
  const std::string status = StringAt(doc, "status", "");
  if (status == "error") {
    return Error{ErrorCode::kInvalid, what + ": " + StringAt(doc, "errorType", "error") + ": " +
                                          StringAt(doc, "error", "(no message)")};
  }
  if (status != "success") return Malformed(what, "no status \"success\"");
  PromAnswer answer;
  if (auto w = doc.find("warnings"); w != doc.end() && w->is_array()) {
    for (const auto& text : *w) {
      if (text.is_string()) answer.warnings.push_back(text.get<std::string>());
    }
  }
  if (TrueAt(doc, "isPartial")) answer.warnings.push_back("partial response");
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return Malformed(what, "no data");
  const std::string type = StringAt(*data, "resultType", "");
  auto result = data->find("result");
  if (result == data->end()) return Malformed(what, "no data.result");
  if (type == "scalar" || type == "string") {
    PromSeries s;
    PromPoint p;
    if (type == "scalar" && (!sax.series.empty() || !ParsePoint(*result, p))) {
      return Malformed(what, "a bad scalar");
    }
    if (type == "scalar") s.points.push_back(p);
    answer.series.push_back(std::move(s));
    return answer;
  }
  if ((type != "vector" && type != "matrix") || !result->is_array()) {
    return Malformed(what, "resultType \"" + type + "\"");
  }
  // What is left in the array is what was not an object.
  if (!result->empty()) return Malformed(what, "a result that is not an object");
  if (!sax.first_error.empty()) return Malformed(what, sax.first_error);
  const char want = type == "vector" ? 'v' : 'm';
  for (char kind : sax.kinds) {
    if (kind != want) return Malformed(what, want == 'v' ? "a bad sample" : "a series without values");
  }
  answer.series = std::move(sax.series);
  return answer;
}

}  // namespace gpudoctor
