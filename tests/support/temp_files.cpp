#include "support/temp_files.h"

#include <fstream>
#include <stdexcept>
#include <vector>

#include <stdlib.h>

namespace gpudoctor::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpudoctor-test-XXXXXX").string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& content) const {
  auto file = path_ / name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + file.string());
  return file.string();
}

}  // namespace gpudoctor::test
