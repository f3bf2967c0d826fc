// Records inside whole JSON documents, read with nlohmann's SAX interface so
// that a document of any size is never held whole (log_record.h).
#include <vector>

#include "parse/log_record.h"
#include "parse/log_record_json.h"
#include "parse/text_cursor.h"

namespace gpudoctor {
namespace {

using Json = nlohmann::json;

// Builds values bottom-up; an object that is a record (or a Loki pair) is
// handed out at its end and not kept in its parent.
class RecordSax : public nlohmann::json_sax<Json> {
 public:
  explicit RecordSax(const std::function<void(const LogRecord&)>& on_record)
      : on_record_(on_record) {}

  bool null() override { return Value(Json(nullptr)); }
  bool boolean(bool v) override { return Value(Json(v)); }
  bool number_integer(number_integer_t v) override { return Value(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Value(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return Value(Json(v)); }
  bool string(string_t& v) override { return Value(Json(std::move(v))); }
  bool binary(binary_t&) override { return Value(Json(nullptr)); }
  bool start_object(std::size_t) override {
    stack_.push_back(Frame{Json::object(), {}});
    return true;
  }
  bool key(string_t& k) override {
    stack_.back().key = std::move(k);
    return true;
  }
  bool end_object() override {
    Json obj = std::move(stack_.back().value);
    stack_.pop_back();
    if (auto rec = LogRecordFromJson(obj)) {
      ++records;
      on_record_(*rec);
      return Value(Json(nullptr), /*drop=*/true);
    }
    return Value(std::move(obj));
  }
  bool start_array(std::size_t) override {
    stack_.push_back(Frame{Json::array(), {}});
    return true;
  }
  bool end_array() override {
    Json arr = std::move(stack_.back().value);
    stack_.pop_back();
    // Loki: "values": [["1739641065123456789", "line"], ...]
    if (arr.size() == 2 && arr[0].is_string() && arr[1].is_string()) {
      if (auto t = ParseRecordTime(arr[0].get_ref<const std::string&>())) {
        LogRecord rec;
        rec.text = arr[1].get<std::string>();
        rec.time = t;
        ++records;
        on_record_(rec);
        return Value(Json(nullptr), true);
      }
    }
    return Value(std::move(arr));
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error = "syntax error at byte " + std::to_string(position) + ": " + ex.what();
    return false;
  }

  std::size_t records = 0;
  std::string error;

 private:
  struct Frame {
    Json value;
    std::string key;
  };

  bool Value(Json v, bool drop = false) {
    if (stack_.empty()) return true;
    Frame& top = stack_.back();
    if (drop) return true;
    if (top.value.is_object()) {
      top.value[top.key] = std::move(v);
    } else {
      top.value.push_back(std::move(v));
    }
    return true;
  }

  const std::function<void(const LogRecord&)>& on_record_;
  std::vector<Frame> stack_;
};

}  // namespace

JsonRecordsResult ReadJsonRecords(std::istream& in,
                                  const std::function<void(const LogRecord&)>& on_record) {
  RecordSax sax(on_record);
  JsonRecordsResult result;
  std::size_t documents = 0;
  for (;;) {
    // Documents back to back (json-pretty): stop at the end of the input.
    int c;
    while ((c = in.peek()) != EOF && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) in.get();
    if (c == EOF) break;
    if (!Json::sax_parse(in, &sax, nlohmann::json::input_format_t::json, /*strict=*/false)) {
      result.error = sax.error.empty() ? "not JSON" : sax.error;
      if (documents > 0) result.error = "document " + std::to_string(documents + 1) + ": " + result.error;
      break;
    }
    ++documents;
  }
  result.records = sax.records;
  return result;
}

}  // namespace gpudoctor
