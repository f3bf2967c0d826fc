#include "parse/nvsmi_messages.h"

#include <algorithm>
#include <cstring>

#include "core/gpu_status.h"
#include "parse/kernel_prefilter.h"
#include "parse/nvsmi_values.h"

namespace gpudoctor {
namespace {

struct MessageWord {
  std::string_view word;
  NvsmiMessageKind kind;
  std::size_t anchor;  // a byte of the word that kernel-log lines rarely hold
};

constexpr MessageWord kMessageWords[] = {
    {" the device handle for ", NvsmiMessageKind::kNoDeviceHandle, 7},    // 'v'
    {"No devices were found", NvsmiMessageKind::kNoDevices, 5},           // 'v'
    {"Failed to initialize NVML", NvsmiMessageKind::kNvmlInitFailed, 18},  // 'z'
    {"NVIDIA-SMI has failed because it couldn't communicate", NvsmiMessageKind::kDriverUnreachable,
     39},  // the apostrophe
};

// The first occurrence of w.word in `line` (as find), found by its anchor
// byte: every line a flood scans is asked for the four words, and find
// would compare at every space, memmem set up its tables each time.
std::size_t FindWord(std::string_view line, const MessageWord& w) {
  const char anchor = w.word[w.anchor];
  for (std::size_t pos = w.anchor; pos < line.size();) {
    const void* hit = std::memchr(line.data() + pos, anchor, line.size() - pos);
    if (!hit) break;
    std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - line.data());
    std::size_t start = at - w.anchor;
    if (start + w.word.size() <= line.size() &&
        std::memcmp(line.data() + start, w.word.data(), w.word.size()) == 0)
      return start;
    pos = at + 1;
  }
  return std::string_view::npos;
}

bool IsDecimal(char c) { return c >= '0' && c <= '9'; }

// "GPU1: 0000:34:00.0: Unknown Error", "GPU0000:A1:00.0: Unknown Error",
// "GPU 0000:0B:00.0: GPU is lost.  Reboot the system to recover this GPU".
void ReadDeviceHandleTarget(std::string_view rest, NvsmiMessage& m) {
  if (rest.substr(0, 3) == "GPU") rest.remove_prefix(3);
  rest = nvsmi::Trim(rest);
  std::size_t digits = 0;
  while (digits < rest.size() && digits < 5 && IsDecimal(rest[digits])) ++digits;
  if (digits > 0 && rest.substr(digits, 2) == ": ") {
    unsigned index = 0;
    for (std::size_t i = 0; i < digits; ++i) index = index * 10 + static_cast<unsigned>(rest[i] - '0');
    m.gpu_index = index;
    rest = nvsmi::Trim(rest.substr(digits + 2));
  }
  std::size_t colon = rest.find(": ");
  std::string_view bus = rest.substr(0, colon);
  m.pci_bus_id = NormalizePciBusId(std::string(bus));
  if (colon != std::string_view::npos) m.reason = std::string(nvsmi::Trim(rest.substr(colon + 2)));
}

}  // namespace

std::optional<NvsmiMessage> MatchNvidiaSmiMessage(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  for (const MessageWord& w : kMessageWords) {
    std::size_t at = FindWord(line, w);
    if (at == std::string_view::npos) continue;
    NvsmiMessage m;
    m.kind = w.kind;
    std::size_t word_end = at + w.word.size();
    if (w.kind == NvsmiMessageKind::kNoDeviceHandle) {
      std::string_view before = line.substr(0, at);
      std::size_t unable = before.rfind("Unable to ");
      if (unable == std::string_view::npos || before.size() - unable > 20) continue;
      at = unable;
    }
    std::string_view text = nvsmi::Trim(line.substr(at));
    m.text = std::string(text);
    if (w.kind == NvsmiMessageKind::kNoDeviceHandle) {
      ReadDeviceHandleTarget(line.substr(word_end), m);
    } else if (w.kind == NvsmiMessageKind::kNvmlInitFailed) {
      std::string_view reason = text.substr(w.word.size());
      if (!reason.empty() && reason.front() == ':') reason.remove_prefix(1);
      m.reason = std::string(nvsmi::Trim(reason));
    }
    return m;
  }
  return std::nullopt;
}

std::vector<NvsmiMessage> FindNvidiaSmiMessages(std::string_view text) {
  // Start offsets of the lines holding a message word, found word by word.
  std::vector<std::size_t> line_starts;
  for (const MessageWord& w : kMessageWords) {
    std::size_t from = 0;
    while (from < text.size()) {
      const void* hit =
          memmem(text.data() + from, text.size() - from, w.word.data(), w.word.size());
      if (!hit) break;
      std::size_t at = static_cast<std::size_t>(static_cast<const char*>(hit) - text.data());
      std::size_t start = text.rfind('\n', at);
      start = start == std::string_view::npos ? 0 : start + 1;
      line_starts.push_back(start);
      std::size_t end = text.find('\n', at);
      from = end == std::string_view::npos ? text.size() : end + 1;
    }
  }
  std::sort(line_starts.begin(), line_starts.end());
  line_starts.erase(std::unique(line_starts.begin(), line_starts.end()), line_starts.end());
  std::vector<NvsmiMessage> out;
  std::size_t counted_to = 0, line = 1;
  for (std::size_t start : line_starts) {
    line += CountNewlines(text, counted_to, start);
    counted_to = start;
    std::size_t end = std::min(text.find('\n', start), text.size());
    if (auto m = MatchNvidiaSmiMessage(text.substr(start, end - start))) {
      m->line = line;
      out.push_back(std::move(*m));
    }
  }
  return out;
}

}  // namespace gpudoctor
