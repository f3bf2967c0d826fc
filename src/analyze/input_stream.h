// Streaming reads of what is given to `gpudoctor analyze`: a file, a pipe
// (`<(journalctl -k)`) or standard input ("-"), plain or compressed, or an
// archive read member by member, in pieces, so that memory stays bounded
// whatever the size. The container is told from the first bytes, never the
// name:
//   - gzip (1f 8b, several members allowed): zlib;
//   - xz, bzip2, zstd, lz4, lzip, compress (.Z) streams and tar, zip, 7-Zip,
//     cpio archives (also compressed: .tar.gz, .tar.xz, ...): libarchive;
//   - anything else: plain bytes.
// A compressed stream cut short (a file copied while written, a crash) or
// corrupt part-way ends where it breaks: what came before is read, and
// note() names the byte where it ends. Errors are one line naming the
// input ("x.log: no such file", "r.gz: gzip data corrupt at byte 812
// (invalid stored block lengths)"). Thread-compatible; nothing here throws.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

// The path that means standard input.
inline constexpr std::string_view kStdinPath = "-";

// Why `path` cannot be read as an input ("x.log: no such file", "dir: not a
// file (a directory)", "x.log: permission denied"), or nothing when it is a
// regular file, a pipe or a character device this process may read, or "-".
std::optional<Error> NotAnInput(const std::filesystem::path& path);

class InputStream {
 public:
  InputStream();
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Opens `path` ("-": standard input) and tells its container. A format
  // known by its magic bytes but not read (an image, an ELF binary, a PDF)
  // is an error naming it.
  Status Open(const std::filesystem::path& path);
  // The next member to read: for an archive, the next regular file in it
  // (its path inside the archive), nullopt after the last; otherwise one
  // member with an empty name, then nullopt. Call before the first Read.
  Result<std::optional<std::string>> NextMember();
  // Up to `size` decompressed bytes of the current member into buf; 0 at
  // its end.
  Result<std::size_t> Read(char* buf, std::size_t size);
  // The first up to `size` bytes of the current member, without consuming
  // them: Read returns them again.
  Result<std::string_view> Peek(std::size_t size);
  // Done with the current member before its end (its reader gave up on
  // it): a thread decoding ahead is stopped and its buffers freed now, not
  // when the stream is. Only NextMember (or nothing) may follow: what the
  // thread had decoded is gone.
  void LeaveMember();
  // True while a thread decodes the current member ahead of Read.
  bool decoding_ahead() const;

  bool archive() const;
  bool gzip() const;
  // "gzip", "xz", "tar", "zip", ... or "" for plain bytes.
  const std::string& format() const;
  const std::string& name() const;
  // The input's size in bytes when it is a regular file (compressed size for
  // a compressed one), and the decompressed size gzip's trailer states.
  std::optional<std::uint64_t> file_size() const;
  std::optional<std::uint64_t> gzip_stated_size() const;
  // Why the data ended before the end of the input ("gzip data truncated at
  // byte 4096 of 8192: analysed as far as it decompresses"); empty when
  // it did not.
  const std::string& note() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The first `max_bytes` decompressed bytes of a file (for telling its kind).
Result<std::string> ReadHead(const std::filesystem::path& path, std::size_t max_bytes);

// Calls on_chunk with pieces of the decompressed member made of whole lines
// (only the last may lack its '\n'); a line longer than a chunk is passed in
// pieces of chunk_bytes. Returns the number of bytes read.
Result<std::size_t> StreamLines(InputStream& in,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t chunk_bytes = 1u << 20);

// The rest of the current member, at most max_bytes of it (an error naming
// the limit beyond).
Result<std::string> ReadAll(InputStream& in, std::size_t max_bytes);

// A std::streambuf over an InputStream, for readers that take an istream.
// A read error ends the stream; error() then says what happened.
class InputStreamBuf : public std::streambuf {
 public:
  explicit InputStreamBuf(InputStream& in) : in_(in) {}
  const std::string& error() const { return error_; }

 protected:
  int_type underflow() override;

 private:
  InputStream& in_;
  std::string error_;
  char buf_[1 << 16];
};

}  // namespace gpudoctor
