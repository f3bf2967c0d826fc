// Walks the one list of rules: every id unique and named "<area>.<what>",
// a description, and a test file that names the rule's definition (each
// rule's tests hold a firing and a quiet case; the rule tests go through
// RunRule, which also checks every finding's Chinese text).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "rules/engine/registry.h"

namespace gpudoctor {
namespace {

TEST(Registry, IdsAreUniqueAndWellFormed) {
  std::set<std::string_view> ids;
  ASSERT_GE(AllRules().size(), 40u);
  for (const Rule* r : AllRules()) {
    EXPECT_TRUE(ids.insert(r->id).second) << "duplicate id " << r->id;
    // "<area>.<what>": lower case, one dot; the category groups areas
    // (nccl.errors and nvswitch.sxid are in "nvlink").
    EXPECT_EQ(std::count(r->id.begin(), r->id.end(), '.'), 1) << r->id;
    EXPECT_EQ(r->id.find_first_not_of("abcdefghijklmnopqrstuvwxyz_."), std::string_view::npos) << r->id;
    EXPECT_FALSE(r->category.empty()) << r->id;
    EXPECT_FALSE(r->description.empty()) << r->id;
    EXPECT_NE(r->evaluate, nullptr) << r->id;
    EXPECT_EQ(FindRule(r->id), r);
  }
}

TEST(Registry, EveryRuleHasItsOwnTests) {
  // All rule tests, read as text: a rule is tested when a test names its
  // constant (kThermalSlowdownRule) or its id in quotes.
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TEST_DATA_DIR) + "/../unit")) {
    if (entry.path().filename().string().rfind("rule_", 0) != 0) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    all += text.str();
  }
  ASSERT_FALSE(all.empty());
  for (const Rule* r : AllRules()) {
    std::string quoted = "\"" + std::string(r->id) + "\"";
    EXPECT_NE(all.find(quoted), std::string::npos) << r->id << " is named by no rule test";
  }
}

}  // namespace
}  // namespace gpudoctor
