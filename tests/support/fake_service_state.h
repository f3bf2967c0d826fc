// A ServiceStateReader for tests: answers from a map, or with an error.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "collect/service_state.h"

namespace gpudoctor::test {

class FakeServiceStateReader final : public ServiceStateReader {
 public:
  void Set(const ServiceState& state) { states_[state.unit] = state; }
  void FailWith(Error error) { error_ = std::move(error); }
  int reads() const { return reads_; }

  Result<ServiceState> Read(std::string_view unit) override {
    ++reads_;
    if (error_) return *error_;
    auto it = states_.find(std::string(unit));
    if (it != states_.end()) return it->second;
    ServiceState missing;
    missing.unit = std::string(unit);
    missing.load_state = "not-found";
    missing.active_state = "inactive";
    missing.sub_state = "dead";
    return missing;
  }

 private:
  std::map<std::string, ServiceState> states_;
  std::optional<Error> error_;
  int reads_ = 0;
};

}  // namespace gpudoctor::test
