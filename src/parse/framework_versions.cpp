#include "parse/framework_versions.h"
#include "parse/proc_text.h"

#include <cctype>
#include <charconv>

namespace gpudoctor {
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// Reads a Python value token at the start of `s`.
PyValue ReadValue(std::string_view s) {
  PyValue v;
  s = Trim(s);
  if (!s.empty() && (s.front() == '\'' || s.front() == '"')) {
    const char q = s.front();
    const auto end = s.find(q, 1);
    if (end != std::string_view::npos) {
      v.kind = PyValue::Kind::kString;
      v.text = std::string(s.substr(1, end - 1));
      return v;
    }
  }
  std::size_t n = 0;
  while (n < s.size() && IsIdentChar(s[n])) ++n;
  v.text = std::string(s.substr(0, n));
  if (v.text == "True") v.kind = PyValue::Kind::kTrue;
  if (v.text == "False") v.kind = PyValue::Kind::kFalse;
  if (v.text == "None") v.kind = PyValue::Kind::kNone;
  return v;
}

std::optional<PyValue> AssignedOnLine(std::string_view line, std::string_view key) {
  line = Trim(line);
  if (line.substr(0, key.size()) != key) return std::nullopt;
  std::string_view rest = line.substr(key.size());
  if (!rest.empty() && IsIdentChar(rest.front())) return std::nullopt;
  const auto eq = rest.find('=');
  if (eq == std::string_view::npos || rest.substr(eq, 2) == "==") return std::nullopt;
  // Between the key and '=' only a type annotation may stand.
  const std::string_view between = Trim(rest.substr(0, eq));
  if (!between.empty() && between.front() != ':') return std::nullopt;
  return ReadValue(rest.substr(eq + 1));
}

std::optional<PyValue> QuotedKey(std::string_view text, std::string_view key) {
  for (const char q : {'\'', '"'}) {
    const std::string needle = std::string(1, q) + std::string(key) + std::string(1, q);
    for (auto pos = text.find(needle); pos != std::string_view::npos;
         pos = text.find(needle, pos + 1)) {
      std::string_view rest = text.substr(pos + needle.size());
      const auto v = rest.find_first_not_of(" \t\r\n]):=,");
      if (v == std::string_view::npos) break;
      // A list of names (__all__ = ['cuda', 'hip']) is not a key: the
      // separator must assign (':' or '='), or the key opens a pair ('k', v).
      const std::string_view sep = rest.substr(0, v);
      const bool pair = pos > 0 && text[pos - 1] == '(';
      if (sep.find_first_of(":=") == std::string_view::npos && !pair) continue;
      return ReadValue(rest.substr(v));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<PyValue> FindPyValue(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (auto v = AssignedOnLine(text.substr(pos, end - pos), key)) return v;
    pos = end + 1;
  }
  return QuotedKey(text, key);
}

std::optional<TorchVersionPy> ParseTorchVersionPy(std::string_view text) {
  auto version = FindPyValue(text, "__version__");
  if (!version || version->kind != PyValue::Kind::kString) return std::nullopt;
  TorchVersionPy out;
  out.version = version->text;
  if (auto cuda = FindPyValue(text, "cuda"); cuda && cuda->kind == PyValue::Kind::kString) {
    out.cuda = cuda->text;
  }
  if (auto hip = FindPyValue(text, "hip"); hip && hip->kind == PyValue::Kind::kString) {
    out.hip = hip->text;
  }
  if (auto git = FindPyValue(text, "git_version"); git && git->kind == PyValue::Kind::kString) {
    out.git_version = git->text;
  }
  return out;
}

TfBuildInfo ParseTfBuildInfo(std::string_view text) {
  TfBuildInfo info;
  auto str = [&](std::string_view key) -> std::optional<std::string> {
    auto v = FindPyValue(text, key);
    if (v && v->kind == PyValue::Kind::kString) return v->text;
    return std::nullopt;
  };
  auto boolean = [&](std::string_view key) -> std::optional<bool> {
    auto v = FindPyValue(text, key);
    if (v && v->kind == PyValue::Kind::kTrue) return true;
    if (v && v->kind == PyValue::Kind::kFalse) return false;
    return std::nullopt;
  };
  info.cuda_version = str("cuda_version");
  if (!info.cuda_version) info.cuda_version = str("cuda_version_number");
  info.cudnn_version = str("cudnn_version");
  if (!info.cudnn_version) info.cudnn_version = str("cudnn_version_number");
  info.is_cuda_build = boolean("is_cuda_build");
  info.is_rocm_build = boolean("is_rocm_build");
  return info;
}

std::string NormalizeDistName(std::string_view name) {
  std::string out;
  bool sep = false;
  for (const char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out.push_back('-');
    sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::optional<DistName> ParseDistInfoDirName(std::string_view dir_name) {
  constexpr std::string_view kSuffix = ".dist-info";
  if (!dir_name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view stem = dir_name.substr(0, dir_name.size() - kSuffix.size());
  // Wheel dist-info names escape '-' in the name to '_', so the first '-'
  // separates name and version.
  const auto dash = stem.find('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 >= stem.size()) return std::nullopt;
  return DistName{NormalizeDistName(stem.substr(0, dash)), std::string(stem.substr(dash + 1))};
}

std::optional<DistName> ParseDistMetadata(std::string_view text) {
  DistName out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // end of the header block
    if (line.substr(0, 5) == "Name:") out.name = NormalizeDistName(Trim(line.substr(5)));
    if (line.substr(0, 8) == "Version:") out.version = std::string(Trim(line.substr(8)));
  }
  if (out.name.empty() || out.version.empty()) return std::nullopt;
  return out;
}

LocalBuildTag ParseLocalBuildTag(std::string_view version) {
  LocalBuildTag tag;
  const auto plus = version.find('+');
  if (plus == std::string_view::npos) return tag;
  const std::string_view local = Trim(version.substr(plus + 1));
  tag.text = std::string(local);
  tag.kind = LocalBuildTag::Kind::kOther;
  if (local == "cpu") {
    tag.kind = LocalBuildTag::Kind::kCpu;
  } else if (local.substr(0, 4) == "rocm") {
    tag.kind = LocalBuildTag::Kind::kRocm;
  } else if (local.substr(0, 2) == "cu" && local.size() >= 4 && local.size() <= 5) {
    // cuXYZ: the last digit is the minor ("cu121" = 12.1, "cu92" = 9.2).
    const std::string_view digits = local.substr(2);
    int value = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc() && ptr == digits.data() + digits.size()) {
      tag.kind = LocalBuildTag::Kind::kCuda;
      tag.cuda = CudaVersion{value / 10, value % 10, std::nullopt};
    }
  }
  return tag;
}

std::optional<CudaWheelName> ParseCudaWheelName(std::string_view name, std::string_view version) {
  auto major_at = [](std::string_view digits) -> int {
    int v = 0;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    return (ec == std::errc() && ptr == digits.data() + digits.size() && v >= 9 && v <= 99) ? v : 0;
  };
  if (name.substr(0, 7) == "nvidia-") {
    const auto cu = name.rfind("-cu");
    if (cu != std::string_view::npos && cu >= 7) {
      if (int major = major_at(name.substr(cu + 3)); major != 0) {
        return CudaWheelName{std::string(name.substr(0, cu)), major};
      }
    }
    if (name.substr(0, 12) == "nvidia-cuda-") {
      const auto parts =
          SplitVersion(version.substr(0, version.find_first_not_of("0123456789.")), 1, 4);
      if (parts && parts->parts[0] >= 9 && parts->parts[0] <= 99) {
        return CudaWheelName{std::string(name), parts->parts[0]};
      }
    }
    return std::nullopt;
  }
  if (name.substr(0, 8) == "jax-cuda") {  // jax-cuda12-plugin, jax-cuda12-pjrt
    const std::string_view rest = name.substr(8);
    const auto dash = rest.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    if (int major = major_at(rest.substr(0, dash)); major != 0) {
      return CudaWheelName{"jax-cuda-" + std::string(rest.substr(dash + 1)), major};
    }
    return std::nullopt;
  }
  if (name.substr(0, 9) == "cupy-cuda" && name.ends_with("x")) {  // cupy-cuda12x
    if (int major = major_at(name.substr(9, name.size() - 10)); major != 0) {
      return CudaWheelName{"cupy", major};
    }
  }
  return std::nullopt;
}

}  // namespace gpudoctor
