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
bool ParseSampleText(const std::string& text, double& out) {
  const std::string_view s = text;  // compared by length first, no strlen
  if (s == "NaN") {
    out = NAN;
  } else if (s == "+Inf" || s == "Inf") {
    out = INFINITY;
  } else if (s == "-Inf") {
    out = -INFINITY;
  } else {
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0') return false;
  }
  return true;
}

bool ParseSampleValue(const json& v, double& out) {
  if (v.is_number()) {
    out = v.get<double>();
    return true;
  }
  return v.is_string() && ParseSampleText(v.get_ref<const std::string&>(), out);
}

bool ParsePoint(const json& pair, PromPoint& out) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number()) return false;
  out.time_s = pair[0].get<double>();
  return ParseSampleValue(pair[1], out.value);
}

}  // namespace

const std::string& PromSeries::Label(std::string_view name) const {
  static const std::string kNone;
  auto it = labels.find(name);
  return it == labels.end() ? kNone : it->second;
}

namespace {

// Builds the answer's JSON bottom-up like a DOM, except each object of
// data.result (a series with its labels and points) is read straight into a
// PromSeries as it streams past, without a JSON value of its own: a range
// answer of a large fleet is never held as a DOM, which costs several times
// its text, and each point is two numbers, not three JSON values.
class AnswerSax : public nlohmann::json_sax<json> {
 public:
  bool null() override { return item_ ? ItemScalar(nullptr, nullptr, true) : Value(json(nullptr)); }
  bool boolean(bool v) override { return item_ ? ItemScalar(nullptr, nullptr, false) : Value(json(v)); }
  bool number_integer(number_integer_t v) override { return Number(static_cast<double>(v), json(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return Number(static_cast<double>(v), json(v));
  }
  bool number_float(number_float_t v, const string_t&) override { return Number(v, json(v)); }
  bool string(string_t& v) override {
    return item_ ? ItemScalar(nullptr, &v, false) : Value(json(std::move(v)));
  }
  bool binary(binary_t&) override { return item_ ? ItemScalar(nullptr, nullptr, false) : Value(json(nullptr)); }
  bool start_object(std::size_t) override {
    if (item_) return ItemOpen(false);
    if (InResultArray()) {
      item_ = true;
      depth_ = 1;
      item_key_ = ItemKey::kOther;
      cur_ = PromSeries{};
      cur_.points.reserve(points_hint_);  // a range answer's series are alike
      kind_ = 0;
      why_.clear();
      return true;
    }
    return Push(json::object());
  }
  bool start_array(std::size_t) override {
    if (item_) return ItemOpen(true);
    return Push(json::array());
  }
  bool key(string_t& k) override {
    if (item_) {
      if (depth_ == 1) {
        item_key_ = k == "metric" ? ItemKey::kMetric
                    : k == "value"  ? ItemKey::kValue
                    : k == "values" ? ItemKey::kValues
                                    : ItemKey::kOther;
      } else if (depth_ == 2 && in_metric_) {
        label_key_ = std::move(k);
      }
      return true;
    }
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() override {
    if (item_) return ItemClose(false);
    json obj = std::move(stack_.back().value);
    stack_.pop_back();
    return Value(std::move(obj));
  }
  bool end_array() override {
    if (item_) return ItemClose(true);
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
  bool Number(double d, json v) { return item_ ? ItemScalar(&d, nullptr, false) : Value(std::move(v)); }
  // The root object's "data" object's "result" array is on top.
  bool InResultArray() const {
    return stack_.size() == 3 && stack_[2].value.is_array() && stack_[2].name == "result" &&
           stack_[1].value.is_object() && stack_[1].name == "data";
  }

  // Inside a series object (depth_ 1): "metric" (depth 2, its labels),
  // "value" (depth 2, a point) or "values" (depth 2, an array of points at
  // depth 3); anything else is skipped.
  void Bad(const char* why) {
    if (why_.empty()) why_ = why;
  }
  bool InPoint() const {
    return (depth_ == 2 && item_key_ == ItemKey::kValue && point_open_) ||
           (depth_ == 3 && item_key_ == ItemKey::kValues && point_open_);
  }
  bool ItemOpen(bool array) {
    ++depth_;
    if (depth_ == 2 && item_key_ == ItemKey::kMetric) {
      if (array) Bad("bad labels");
      in_metric_ = !array;
    } else if (depth_ == 2 && item_key_ == ItemKey::kValue) {
      kind_ = 'v';
      StartPoint(array);
    } else if (depth_ == 2 && item_key_ == ItemKey::kValues) {
      if (array) {
        kind_ = 'm';
        values_open_ = true;
      }
    } else if (depth_ == 3 && item_key_ == ItemKey::kValues && values_open_) {
      StartPoint(array);
    } else if (InPointDepth()) {
      Bad("a bad sample");  // a nested value in a point
    } else if (in_metric_ && depth_ == 3) {
      Bad("bad labels");
    }
    return true;
  }
  bool InPointDepth() const {
    return (item_key_ == ItemKey::kValue && depth_ == 3) ||
           (item_key_ == ItemKey::kValues && depth_ == 4);
  }
  void StartPoint(bool array) {
    if (!array) {
      Bad("a bad sample");
      point_open_ = false;
      cur_.points.push_back(PromPoint{});
      return;
    }
    point_open_ = true;
    point_index_ = 0;
    point_ = PromPoint{};
    point_ok_ = true;
  }
  bool ItemScalar(const double* number, std::string* text, bool is_null) {
    if (depth_ == 2 && in_metric_) {
      if (text == nullptr) {
        Bad("bad labels");
      } else {
        cur_.labels.emplace(std::move(label_key_), std::move(*text));
      }
    } else if (depth_ == 1 && item_key_ == ItemKey::kMetric) {
      if (!is_null) Bad("bad labels");  // null is no labels

    } else if (InPoint()) {
      if (point_index_ == 0) {
        if (number == nullptr) point_ok_ = false;
        else point_.time_s = *number;
      } else if (point_index_ == 1) {
        if (number != nullptr) {
          point_.value = *number;
        } else if (text == nullptr || !ParseSampleText(*text, point_.value)) {
          point_ok_ = false;
        }
      }
      ++point_index_;
    } else if (depth_ == 1 && item_key_ == ItemKey::kValue) {
      kind_ = 'v';
      Bad("a bad sample");
      cur_.points.push_back(PromPoint{});
    } else if (depth_ == 2 && item_key_ == ItemKey::kValues && values_open_) {
      Bad("a bad sample");
      cur_.points.push_back(PromPoint{});
    }
    return true;
  }
  bool ItemClose(bool array) {
    if (InPoint() && array) {
      if (!point_ok_ || point_index_ != 2) Bad("a bad sample");
      cur_.points.push_back(point_);
      point_open_ = false;
    } else if (depth_ == 2 && item_key_ == ItemKey::kMetric) {
      in_metric_ = false;
    } else if (depth_ == 2 && item_key_ == ItemKey::kValues) {
      values_open_ = false;
    }
    --depth_;
    if (depth_ == 0) {
      item_ = false;
      if (!why_.empty() && first_error.empty()) first_error = why_;
      points_hint_ = cur_.points.size();
      series.push_back(std::move(cur_));
      kinds.push_back(kind_);
    }
    return true;
  }

  std::vector<Frame> stack_;
  // The series object being read.
  bool item_ = false;
  int depth_ = 0;
  // The key of the series object's member being read (compared per point:
  // an enum, not a string).
  enum class ItemKey { kOther, kMetric, kValue, kValues };
  ItemKey item_key_ = ItemKey::kOther;
  std::string label_key_;
  bool in_metric_ = false;
  bool values_open_ = false;
  bool point_open_ = false;
  bool point_ok_ = true;
  int point_index_ = 0;
  PromPoint point_;
  PromSeries cur_;
  char kind_ = 0;
  std::string why_;
  std::size_t points_hint_ = 0;  // the previous series' points
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
