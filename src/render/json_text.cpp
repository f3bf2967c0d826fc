#include "render/json_text.h"

#include <nlohmann/json.hpp>

#include "core/json_dump.h"

namespace gpudoctor {
namespace {

using J = nlohmann::ordered_json;

std::string Scalar(const J& v) {
  if (v.is_null()) return "n/a";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return DumpJson(v);
}

bool IsLeaf(const J& v) { return !v.is_object() && !v.is_array(); }

void Write(const J& v, int depth, std::string& out);

void WriteObject(const J& obj, int depth, std::string& out) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  for (const auto& [key, value] : obj.items()) {
    if (IsLeaf(value)) {
      out += pad + key + ": " + Scalar(value) + "\n";
    } else if (value.empty()) {
      out += pad + key + ": " + (value.is_array() ? "none" : "-") + "\n";
    } else {
      out += pad + key + ":\n";
      Write(value, depth + 1, out);
    }
  }
}

void Write(const J& v, int depth, std::string& out) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  if (v.is_object()) {
    WriteObject(v, depth, out);
    return;
  }
  if (v.is_array()) {
    for (const auto& item : v) {
      if (IsLeaf(item)) {
        out += pad + "- " + Scalar(item) + "\n";
      } else {
        out += pad + "-\n";
        Write(item, depth + 1, out);
      }
    }
    return;
  }
  out += pad + Scalar(v) + "\n";
}

}  // namespace

std::string JsonToText(const nlohmann::ordered_json& doc) {
  std::string out;
  Write(doc, 0, out);
  return out;
}

}  // namespace gpudoctor
