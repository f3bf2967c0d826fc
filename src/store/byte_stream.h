// Varint byte streams for the store's codecs: a writer that appends to a
// string and a bounds-checked reader that reports running off the end.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace gpudoctor {

inline std::uint64_t ZigZag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

inline std::int64_t UnZigZag(std::uint64_t v) {
  return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

class ByteWriter {
 public:
  void Varint(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  void Signed(std::int64_t v) { Varint(ZigZag(v)); }
  void Byte(std::uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void Fixed64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void Bytes(std::string_view s) {
    Varint(s.size());
    out_.append(s);
  }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

// Every read returns false once the input is exhausted or malformed; the
// reader then stays failed.
class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool Varint(std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return Fail();
      auto b = static_cast<std::uint8_t>(in_[pos_++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return Fail();
  }
  bool Signed(std::int64_t& v) {
    std::uint64_t u = 0;
    if (!Varint(u)) return false;
    v = UnZigZag(u);
    return true;
  }
  bool Byte(std::uint8_t& b) {
    if (pos_ >= in_.size()) return Fail();
    b = static_cast<std::uint8_t>(in_[pos_++]);
    return true;
  }
  bool Fixed64(std::uint64_t& v) {
    if (in_.size() - pos_ < 8) return Fail();
    v = 0;
    for (int i = 0; i < 8; ++i) {
      v |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in_[pos_ + i])) << (8 * i);
    }
    pos_ += 8;
    return true;
  }
  bool Bytes(std::string& s) {
    std::uint64_t n = 0;
    return Varint(n) && Raw(n, s);
  }
  bool Raw(std::uint64_t n, std::string& s) {
    if (n > in_.size() - pos_) return Fail();
    s.assign(in_.substr(pos_, n));
    pos_ += n;
    return true;
  }
  std::size_t position() const { return pos_; }
  bool failed() const { return failed_; }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  bool Fail() {
    failed_ = true;
    pos_ = in_.size();
    return false;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace gpudoctor
