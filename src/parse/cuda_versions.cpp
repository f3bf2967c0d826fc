#include "parse/cuda_versions.h"

#include <nlohmann/json.hpp>

namespace gpudoctor {

std::optional<CudaVersion> ParseCudaVersionJson(std::string_view text) {
  const auto doc = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  const auto cuda = doc.find("cuda");
  if (cuda == doc.end() || !cuda->is_object()) return std::nullopt;
  const auto version = cuda->find("version");
  if (version == cuda->end() || !version->is_string()) return std::nullopt;
  return ParseCudaVersionText(version->get<std::string>());
}

std::optional<CudaVersion> ParseCudaVersionTxt(std::string_view text) {
  constexpr std::string_view kPrefix = "CUDA Version ";
  const auto pos = text.find(kPrefix);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(pos + kPrefix.size());
  rest = rest.substr(0, rest.find_first_of(" \t\r\n"));
  return ParseCudaVersionText(rest);
}

std::optional<NvccVersion> ParseNvccVersion(std::string_view text) {
  constexpr std::string_view kRelease = "release ";
  const auto pos = text.find(kRelease);
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view rest = text.substr(pos + kRelease.size());
  const auto end = rest.find_first_of(", \t\r\n");
  auto release = ParseCudaVersionText(rest.substr(0, end));
  if (!release) return std::nullopt;
  NvccVersion out{*release, {}};
  if (end != std::string_view::npos) {
    rest.remove_prefix(end);
    const auto v = rest.find(", V");
    if (v != std::string_view::npos) {
      std::string_view build = rest.substr(v + 3);
      build = build.substr(0, build.find_first_of(" \t\r\n"));
      if (ParseCudaVersionText(build)) out.build = std::string(build);
    }
  }
  return out;
}

std::optional<CudartFileVersion> ParseCudartFileName(std::string_view file_name) {
  constexpr std::string_view kPrefix = "libcudart.so.";
  if (file_name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const std::string_view rest = file_name.substr(kPrefix.size());
  if (auto v = ParseCudaVersionText(rest)) return CudartFileVersion{v->major, v};
  const auto parts = SplitVersion(rest, 1, 1);
  if (!parts || parts->parts[0] <= 0) return std::nullopt;
  return CudartFileVersion{parts->parts[0], std::nullopt};
}

}  // namespace gpudoctor
