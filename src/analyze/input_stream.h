// Streaming reads of the files given to `gpudoctor analyze`: plain or gzip
// (told by the magic bytes 1f 8b, several members allowed), in pieces, so
// that memory stays bounded whatever the file's size. Errors are one line
// naming the file, the same as ReadInputFile's ("r.gz: gzip data corrupt at
// byte 812 (invalid stored block lengths)", "r.gz: gzip data truncated at
// byte 4096"). Thread-compatible; nothing here throws.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

class InputStream {
 public:
  InputStream();
  ~InputStream();
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Opens a regular file (NotAFile's errors); gzip is detected here.
  Result<bool> Open(const std::filesystem::path& path);
  // Up to `size` decompressed bytes into buf; 0 at the end.
  Result<std::size_t> Read(char* buf, std::size_t size);
  bool gzip() const;
  const std::string& name() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

// The first `max_bytes` decompressed bytes of a file (for telling its kind).
Result<std::string> ReadHead(const std::filesystem::path& path, std::size_t max_bytes);

// Calls on_chunk with pieces of the decompressed file made of whole lines
// (only the last may lack its '\n'); a line longer than a chunk is passed
// whole. Returns the number of bytes read.
Result<std::size_t> StreamLines(InputStream& in,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t chunk_bytes = 1u << 20);

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
