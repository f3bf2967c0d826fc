#include "analyze/input_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <memory>
#include <optional>

#include "core/utf8.h"

namespace gpudoctor {
namespace {

std::string GunzipLimitText(std::size_t max_bytes) {
  return std::to_string(max_bytes >> 20) + " MiB limit";
}

}  // namespace

std::optional<Error> NotAFile(const std::filesystem::path& path) {
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  const std::string name = path.string();
  if (st.type() == std::filesystem::file_type::not_found)
    return Error{ErrorCode::kNotFound, name + ": no such file"};
  if (ec) return ErrnoError(ec.value(), name);
  if (st.type() == std::filesystem::file_type::directory)
    return Error{ErrorCode::kInvalid, name + ": not a file (a directory)"};
  if (st.type() != std::filesystem::file_type::regular)
    return Error{ErrorCode::kInvalid, name + ": not a file"};
  if (::access(path.c_str(), R_OK) != 0) return ErrnoError(errno, name);
  return std::nullopt;
}

bool IsGzipData(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f &&
         static_cast<unsigned char>(data[1]) == 0x8b;
}

Result<std::string> GunzipData(std::string_view data, const std::string& name,
                               std::size_t max_bytes) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return Error{ErrorCode::kIo, name + ": cannot start the gzip decoder"};
  std::unique_ptr<z_stream, int (*)(z_stream*)> ender(&zs, inflateEnd);
  std::string out;
  char buf[1 << 16];
  std::size_t pos = 0;  // offset in `data` of zs.next_in
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    const uInt before = zs.avail_in;
    int rc = inflate(&zs, Z_NO_FLUSH);
    pos += before - zs.avail_in;
    out.append(buf, sizeof buf - zs.avail_out);
    if (max_bytes && out.size() > max_bytes) {
      return Error{ErrorCode::kInvalid,
                   name + ": larger than the " + GunzipLimitText(max_bytes) + " once decompressed"};
    }
    if (rc == Z_STREAM_END) {
      // gzip allows several members one after another (cat a.gz b.gz);
      // anything else after the end (padding, garbage) is ignored as gzip does.
      if (!IsGzipData(data.substr(pos))) return out;
      inflateReset(&zs);
      continue;
    }
    if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
      std::string why = zs.msg ? std::string(" (") + zs.msg + ")" : std::string();
      return Error{ErrorCode::kCorrupt,
                   name + ": gzip data corrupt at byte " + std::to_string(pos) + why};
    }
    if (rc == Z_MEM_ERROR) return Error{ErrorCode::kIo, name + ": out of memory decompressing"};
    // All input used, room left for output, and still no end of stream: the
    // file was cut short. (Z_BUF_ERROR means no progress was possible.)
    if ((zs.avail_in == 0 && zs.avail_out != 0) || rc == Z_BUF_ERROR) {
      return Error{ErrorCode::kCorrupt,
                   name + ": gzip data truncated at byte " + std::to_string(data.size())};
    }
  }
}

std::optional<std::string> Utf16ToUtf8(std::string_view data) {
  if (data.size() < 2) return std::nullopt;
  const auto b0 = static_cast<unsigned char>(data[0]), b1 = static_cast<unsigned char>(data[1]);
  bool little = b0 == 0xFF && b1 == 0xFE;
  if (!little && !(b0 == 0xFE && b1 == 0xFF)) return std::nullopt;
  auto unit = [&](std::size_t i) -> char32_t {
    auto lo = static_cast<unsigned char>(data[little ? i : i + 1]);
    auto hi = static_cast<unsigned char>(data[little ? i + 1 : i]);
    return static_cast<char32_t>(hi << 8 | lo);
  };
  std::string out;
  out.reserve(data.size() / 2);
  for (std::size_t i = 2; i + 1 < data.size(); i += 2) {
    char32_t c = unit(i);
    if (c >= 0xD800 && c <= 0xDBFF && i + 3 < data.size()) {
      char32_t low = unit(i + 2);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        AppendUtf8(0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00), out);
        i += 2;
        continue;
      }
    }
    if (c == 0xFEFF) continue;  // the mark of a second file appended to the first
    AppendUtf8(c >= 0xD800 && c <= 0xDFFF ? char32_t{0xFFFD} : c, out);
  }
  return out;
}

std::vector<LogLine> SplitLogLines(std::string_view content, const std::string& file) {
  std::vector<LogLine> lines;
  while (!content.empty()) {
    std::size_t nl = content.find('\n');
    std::string_view line = content.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(LogLine{std::string(line), SourceRef{file, lines.size() + 1}, {}, {}});
    content.remove_prefix(nl == std::string_view::npos ? content.size() : nl + 1);
  }
  return lines;
}

}  // namespace gpudoctor
