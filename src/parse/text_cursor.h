// A forward-only cursor over a string_view for hand-written parsers of
// line prefixes. Every Take*/Lit call either consumes and returns true, or
// leaves the position unchanged and returns false.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace gpudoctor {

class TextCursor {
 public:
  explicit TextCursor(std::string_view s, std::size_t pos = 0) : s_(s), pos_(pos) {}

  std::size_t pos() const { return pos_; }
  void set_pos(std::size_t pos) { pos_ = pos; }
  bool done() const { return pos_ >= s_.size(); }
  char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0';
  }
  std::string_view rest() const { return s_.substr(pos_ < s_.size() ? pos_ : s_.size()); }

  bool Lit(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool Lit(std::string_view text) {
    // The first byte inline: most tries fail there, without a memcmp call.
    if (!text.empty() && peek() != text[0]) return false;
    if (rest().substr(0, text.size()) != text) return false;
    pos_ += text.size();
    return true;
  }
  std::size_t SkipSpaces() {
    std::size_t n = 0;
    while (peek() == ' ' || peek() == '\t') ++pos_, ++n;
    return n;
  }
  // Unsigned decimal with min..max digits.
  bool Int(int& out, int min_digits, int max_digits) {
    std::size_t p = pos_;
    std::int64_t v = 0;
    int n = 0;
    while (n < max_digits && p < s_.size() && IsDigit(s_[p])) v = v * 10 + (s_[p++] - '0'), ++n;
    if (n < min_digits || (p < s_.size() && IsDigit(s_[p]))) return false;
    out = static_cast<int>(v);
    pos_ = p;
    return true;
  }
  // Unsigned decimal of any length into 64 bits.
  bool Uint64(std::uint64_t& out) {
    std::size_t p = pos_;
    std::uint64_t v = 0;
    while (p < s_.size() && IsDigit(s_[p])) v = v * 10 + static_cast<unsigned>(s_[p++] - '0');
    if (p == pos_) return false;
    out = v;
    pos_ = p;
    return true;
  }
  // Digits after a decimal point as a fraction of one ("123" -> 0.123).
  // The first 18 digits as one integer, divided once (a division per digit
  // is a chain of slow ones; later digits weigh less than 1e-18).
  bool Fraction(double& out) {
    static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,
                                        1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13,
                                        1e14, 1e15, 1e16, 1e17, 1e18};
    std::uint64_t v = 0;
    std::size_t p = pos_, n = 0;
    for (; p < s_.size() && IsDigit(s_[p]); ++p) {
      if (n < 18) v = v * 10 + static_cast<unsigned>(s_[p] - '0'), ++n;
    }
    if (p == pos_) return false;
    out = static_cast<double>(v) / kPow10[n];
    pos_ = p;
    return true;
  }
  // Up to the next space (not consumed); false when empty.
  bool Token(std::string_view& out) {
    std::size_t p = pos_;
    while (p < s_.size() && s_[p] != ' ' && s_[p] != '\t') ++p;
    if (p == pos_) return false;
    out = s_.substr(pos_, p - pos_);
    pos_ = p;
    return true;
  }

  static bool IsDigit(char c) { return c >= '0' && c <= '9'; }

 private:
  std::string_view s_;
  std::size_t pos_;
};

}  // namespace gpudoctor
