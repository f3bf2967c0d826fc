// Standard output and standard error as every command writes them: through
// render/ansi.h's ForTerminal (core/utf8.h's ToPrintableText), so that a
// process, GPU or file name from outside can never put a control character,
// an escape sequence or invalid UTF-8 on an operator's screen, whichever
// command or error message quotes it. JSON (already valid UTF-8 with its
// control characters escaped) passes through unchanged.
#pragma once

#include <memory>
#include <streambuf>

namespace gpudoctor {

// While alive, std::cout and std::cerr write through the filter; the
// destructor flushes and puts the original stream buffers back. One at a time,
// made on the main thread before any output.
class PrintableOutput {
 public:
  // translate_stderr_zh: standard error's lines go through
  // TranslateStderrLineZh.
  explicit PrintableOutput(bool translate_stderr_zh = false);
  ~PrintableOutput();
  PrintableOutput(const PrintableOutput&) = delete;
  PrintableOutput& operator=(const PrintableOutput&) = delete;

 private:
  std::unique_ptr<std::streambuf> out_;
  std::unique_ptr<std::streambuf> err_;
  std::streambuf* saved_out_ = nullptr;
  std::streambuf* saved_err_ = nullptr;
};

// The exit code to leave with once standard output is flushed: code when
// all of it reached its destination, else 3 (cannot run) with one line on
// standard error ("cannot write standard output: No space left on device"),
// so that an exit code never says a report was written that a full disk or
// /dev/full cut short. A closed pipe (`| head`) is the reader's choice: 3,
// quietly.
int ExitCodeAfterOutput(int code);

}  // namespace gpudoctor
