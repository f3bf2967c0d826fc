#include "cli/printable_output.h"

#include <unistd.h>

#include <iostream>
#include <string>

#include "core/terminal.h"
#include "core/utf8.h"
#include "render/ansi.h"

namespace gpudoctor {
namespace {
namespace printable_output {

// Collects what the stream writes and hands it, filtered, to the descriptor
// when flushed or when 64 KiB have gathered.
class FilteringBuffer : public std::streambuf {
 public:
  explicit FilteringBuffer(int fd) : fd_(fd), filter_(ColourToken()) {}
  ~FilteringBuffer() override {
    Drain();
    WriteAll(fd_, filter_.Finish());
  }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    buffer_ += traits_type::to_char_type(ch);
    if (buffer_.size() >= kFlushBytes) Drain();
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    buffer_.append(s, static_cast<std::size_t>(n));
    if (buffer_.size() >= kFlushBytes) Drain();
    return n;
  }
  int sync() override {
    Drain();
    return 0;
  }

 private:
  static constexpr std::size_t kFlushBytes = 64 * 1024;

  void Drain() {
    if (buffer_.empty()) return;
    WriteAll(fd_, filter_.Feed(buffer_));
    buffer_.clear();
  }

  int fd_;
  PrintableTextFilter filter_;
  std::string buffer_;
};

}  // namespace printable_output
}  // namespace

PrintableOutput::PrintableOutput()
    : out_(std::make_unique<printable_output::FilteringBuffer>(STDOUT_FILENO)),
      err_(std::make_unique<printable_output::FilteringBuffer>(STDERR_FILENO)) {
  std::cout.flush();
  std::cerr.flush();
  saved_out_ = std::cout.rdbuf(out_.get());
  saved_err_ = std::cerr.rdbuf(err_.get());
}

PrintableOutput::~PrintableOutput() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(saved_out_);
  std::cerr.rdbuf(saved_err_);
}

}  // namespace gpudoctor
