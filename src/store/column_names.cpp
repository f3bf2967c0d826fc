#include "store/column_names.h"

#include <deque>
#include <map>
#include <mutex>

namespace gpudoctor {

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::size_t, std::less<>> ids;
  std::deque<std::pair<std::string, SampleColumn>> entries;  // stable references
};

Registry& Names() {
  static Registry* registry = new Registry;  // never destroyed: used until exit
  return *registry;
}

}  // namespace

std::size_t ColumnId(std::string_view name) {
  Registry& r = Names();
  std::lock_guard lock(r.mu);
  if (auto it = r.ids.find(name); it != r.ids.end()) return it->second;
  std::size_t id = r.entries.size();
  r.entries.emplace_back(std::string(name), ResolveSampleColumn(name));
  r.ids.emplace(std::string(name), id);
  return id;
}

const std::string& ColumnName(std::size_t id) {
  Registry& r = Names();
  std::lock_guard lock(r.mu);
  return r.entries.at(id).first;
}

const SampleColumn& ColumnMeaning(std::size_t id) {
  Registry& r = Names();
  std::lock_guard lock(r.mu);
  return r.entries.at(id).second;
}

std::size_t ColumnCount() {
  Registry& r = Names();
  std::lock_guard lock(r.mu);
  return r.entries.size();
}

}  // namespace gpudoctor
