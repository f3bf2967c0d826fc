// Outside bytes made into valid output text. Every string that comes from
// outside (process, GPU, pod and container names, log lines, file names,
// label and configuration values) may hold any bytes; every renderer turns it
// into output through these functions, so that all outputs agree:
//   - a byte sequence that is not UTF-8 becomes U+FFFD, one per maximal
//     subpart (the Unicode Standard's recommended practice, WHATWG's decoder,
//     and nlohmann/json's error_handler_t::replace all do the same);
//   - in text for people (terminal, Markdown, HTML) a control character (C0
//     but tab and newline, DEL, C1) also becomes U+FFFD, so no escape
//     sequence from outside ever reaches a terminal raw.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpudoctor {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// Decodes the code point at text[pos] (pos < text.size()). Returns how many
// bytes it takes; an invalid sequence gives U+FFFD in code_point and the
// length of its maximal subpart (at least 1).
std::size_t DecodeUtf8(std::string_view text, std::size_t pos, char32_t& code_point);

bool IsValidUtf8(std::string_view text);

// Appends code point cp (at most U+10FFFF, not a surrogate) as UTF-8.
void AppendUtf8(char32_t cp, std::string& out);

// text with every invalid sequence replaced by U+FFFD. Valid text comes back
// unchanged.
std::string ToValidUtf8(std::string_view text);

// A control character a terminal would act on: C0 (U+0000-U+001F) but tab
// and newline, DEL (U+007F) and C1 (U+0080-U+009F).
bool IsControlForPeople(char32_t code_point);

// Text for people: ToValidUtf8, and every control character but tab and
// newline replaced by U+FFFD. The one exception is gpudoctor's own colour:
// an ESC immediately followed by colour_token (when not empty) stays an ESC
// and the token is dropped. The token is a secret of this process (see
// render/ansi.h), so a name from outside cannot forge it.
std::string ToPrintableText(std::string_view text, std::string_view colour_token = {});

// ToPrintableText over a stream that arrives in pieces: a sequence cut at a
// piece's end waits for the next piece (or Finish), so that the result is the
// same as filtering the whole text at once.
class PrintableTextFilter {
 public:
  explicit PrintableTextFilter(std::string colour_token = {});
  // The printable text of everything fed so far that can be decided now.
  std::string Feed(std::string_view piece);
  // The rest, at the end of the stream.
  std::string Finish();

 private:
  std::string token_;
  std::string pending_;
};

}  // namespace gpudoctor
