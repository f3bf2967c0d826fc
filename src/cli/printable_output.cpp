#include "cli/printable_output.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/zh_messages.h"
#include "core/terminal.h"
#include "core/utf8.h"
#include "render/ansi.h"

namespace gpudoctor {
namespace {
namespace printable_output {

// The first failed write to standard output's descriptor (its errno), for
// ExitCodeAfterOutput; 0 while every write has gone through.
int stdout_write_errno = 0;

// Collects what the stream writes and hands it, filtered, to the descriptor
// when flushed or when 64 KiB have gathered. With `translate_zh`, whole lines:
// a line that starts as gpudoctor's messages do waits for its end (std::cerr
// flushes after every <<) and is translated; other text (a prompt) passes
// when flushed.
class FilteringBuffer : public std::streambuf {
 public:
  FilteringBuffer(int fd, bool translate_zh) : fd_(fd), translate_zh_(translate_zh), filter_(ColourToken()) {}
  ~FilteringBuffer() override {
    Drain(true);
    Write(filter_.Finish());
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

  void Drain(bool at_end = false) {
    if (buffer_.empty()) return;
    if (!translate_zh_) {
      Write(filter_.Feed(buffer_));
      buffer_.clear();
      return;
    }
    std::string out;
    std::size_t start = 0;
    for (std::size_t nl = buffer_.find('\n'); nl != std::string::npos; nl = buffer_.find('\n', start)) {
      out += TranslateStderrLineZh(std::string_view(buffer_).substr(start, nl - start)) + "\n";
      start = nl + 1;
    }
    std::string rest = buffer_.substr(start);
    constexpr std::string_view kOurs = "gpudoctor";
    const bool ours = std::string_view(rest).substr(0, kOurs.size()) == kOurs.substr(0, std::min(rest.size(), kOurs.size()));
    if (at_end || !ours || rest.size() >= kFlushBytes) {
      out += at_end && ours ? TranslateStderrLineZh(rest) : rest;
      rest.clear();
    }
    buffer_ = std::move(rest);
    if (!out.empty()) Write(filter_.Feed(out));
  }

  void Write(std::string_view bytes) {
    if (WriteAll(fd_, bytes) || fd_ != STDOUT_FILENO) return;
    if (stdout_write_errno == 0) stdout_write_errno = errno != 0 ? errno : EIO;
  }

  int fd_;
  bool translate_zh_;
  PrintableTextFilter filter_;
  std::string buffer_;
};

}  // namespace printable_output
}  // namespace

PrintableOutput::PrintableOutput(bool translate_stderr_zh)
    : out_(std::make_unique<printable_output::FilteringBuffer>(STDOUT_FILENO, false)),
      err_(std::make_unique<printable_output::FilteringBuffer>(STDERR_FILENO, translate_stderr_zh)) {
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

int ExitCodeAfterOutput(int code) {
  std::cout.flush();
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  int err = errno;
  if (flushed && !std::ferror(stdout) && !std::cout.bad() &&
      printable_output::stdout_write_errno == 0) {
    return code;
  }
  if (printable_output::stdout_write_errno != 0) err = printable_output::stdout_write_errno;
  if (err != EPIPE) {
    std::cerr << "gpudoctor: cannot write standard output: "
              << std::strerror(err != 0 ? err : EIO) << "\n";
  }
  return kExitCannotRun;
}

}  // namespace gpudoctor
