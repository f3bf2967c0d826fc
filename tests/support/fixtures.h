// Real-world captures in ../shared/fixtures (see its SOURCES.md), read in
// place: tests never copy them into the repository.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpudoctor::test {

// ../shared/fixtures/<folder>, e.g. FixtureDir("xml").
inline std::filesystem::path FixtureDir(const std::string& folder) {
  return std::filesystem::path(SHARED_DIR) / "fixtures" / folder;
}

// The file's bytes; empty when the shared fixtures are not on this machine
// (callers skip with a message then).
inline std::string ReadFixtureFile(const std::string& folder, const std::string& name) {
  std::ifstream in(FixtureDir(folder) / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace gpudoctor::test
