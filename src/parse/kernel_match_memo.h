// A memo of the catalog's answers (MatchNvrm, MatchOther: pure) by the
// line's text: a log repeats its ordinary NVRM and driver lines ("GPU Board
// Serial Number", "GPU at PCI:...", "mlx5_core ...: Port module event")
// thousands of times, and each would run every matcher again. A fixed
// number of slots, each holding its line (long lines are not kept), so
// memory stays bounded. Speed only: a lookup gives what the matcher gave.
// Not thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parse/kernel_catalog.h"

namespace gpudoctor::kscan {

class MatchMemo {
 public:
  // The answer for this line into `out` when known.
  bool Lookup(bool nvrm, std::string_view ident, std::string_view text,
              std::optional<kevents::LineMatch>& out) const {
    const Slot& s = slots_[SlotOf(nvrm, ident, text)];
    if (!s.used || s.nvrm != nvrm || s.ident != ident || s.text != text) return false;
    out = s.match;
    if (out && s.message_at != std::string_view::npos)
      out->message = text.substr(s.message_at, s.match->message.size());
    return true;
  }
  void Add(bool nvrm, std::string_view ident, std::string_view text,
           const std::optional<kevents::LineMatch>& match) {
    if (text.size() + ident.size() > kMaxBytes) return;
    std::size_t message_at = std::string_view::npos;
    if (match && !match->message.empty()) {
      // A view into the line: kept as its place in it.
      if (match->message.data() < text.data() ||
          match->message.data() + match->message.size() > text.data() + text.size())
        return;
      message_at = static_cast<std::size_t>(match->message.data() - text.data());
    }
    Slot& s = slots_[SlotOf(nvrm, ident, text)];
    s.used = true;
    s.nvrm = nvrm;
    s.ident.assign(ident);
    s.text.assign(text);
    s.match = match;
    s.message_at = message_at;
  }

 private:
  // Enough for a few hundred distinct lines (a NIC port's line for each of
  // 256 addresses) with few collisions; at most about 3 MB.
  static constexpr std::size_t kSlots = 4096;
  static constexpr std::size_t kMaxBytes = 512;
  struct Slot {
    bool used = false;
    bool nvrm = false;
    std::string ident, text;
    std::optional<kevents::LineMatch> match;
    std::size_t message_at = std::string_view::npos;
  };
  static std::size_t SlotOf(bool nvrm, std::string_view ident, std::string_view text) {
    std::size_t h = std::hash<std::string_view>{}(text);
    h ^= std::hash<std::string_view>{}(ident) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2) + nvrm;
    return h % kSlots;
  }
  std::vector<Slot> slots_ = std::vector<Slot>(kSlots);
};

}  // namespace gpudoctor::kscan
