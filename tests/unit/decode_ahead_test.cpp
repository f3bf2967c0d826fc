// Decompression ahead of the reader (analyze/decode_ahead.h) and the
// InputStream that uses it for compressed members: the bytes in order,
// an error after the bytes before it, the thread joined on every path
// (the end, an error, an exception, a reader that stops early), and a
// truncated .gz still named by the byte where it ends.
#include "analyze/decode_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <string>

#include "analyze/analyze_input.h"
#include "analyze/input_stream.h"
#include "support/temp_files.h"
#include "unit/analyze_samples.h"

namespace gpudoctor {
namespace decode_ahead_test_ns {

// A source of `total` bytes (byte i is i % 251) given out in pieces of
// uneven sizes, failing after `fail_after` bytes when set.
struct PatternSource {
  std::size_t total = 0;
  std::size_t given = 0;
  std::size_t calls = 0;
  std::size_t fail_after = static_cast<std::size_t>(-1);
  bool throw_instead = false;

  Result<std::size_t> operator()(char* buf, std::size_t size) {
    ++calls;
    if (given >= fail_after) {
      if (throw_instead) throw std::runtime_error("boom");
      return Error{ErrorCode::kCorrupt, "x.gz: gzip data corrupt at byte 77"};
    }
    std::size_t n = std::min({size, total - given, 1000 + (calls * 7919) % 300000,
                              fail_after - given});
    for (std::size_t i = 0; i < n; ++i) buf[i] = static_cast<char>((given + i) % 251);
    given += n;
    return n;
  }
};

// Everything Read gives, in reads of `piece` bytes, and the error that ended it.
std::pair<std::string, std::string> ReadAllOf(DecodeAhead& ahead, std::size_t piece) {
  std::string out, error;
  std::string buf(piece, '\0');
  for (;;) {
    auto n = ahead.Read(buf.data(), buf.size());
    if (!n) {
      error = n.error().message;
      break;
    }
    if (*n == 0) break;
    out.append(buf.data(), *n);
  }
  return {out, error};
}

bool IsPattern(const std::string& s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != static_cast<char>(i % 251)) return false;
  }
  return true;
}

TEST(DecodeAhead, GivesEveryByteInOrder) {
  for (std::size_t piece : {std::size_t{1} << 20, std::size_t{4093}, std::size_t{3} << 20}) {
    PatternSource src;
    src.total = 9'000'001;  // more than the ring holds
    DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
    auto [out, error] = ReadAllOf(ahead, piece);
    EXPECT_EQ(out.size(), src.total) << piece;
    EXPECT_TRUE(IsPattern(out)) << piece;
    EXPECT_EQ(error, "");
    EXPECT_TRUE(ahead.finished());
    std::string more(16, '\0');
    EXPECT_EQ(*ahead.Read(more.data(), more.size()), 0u);  // and stays at its end
  }
}

TEST(DecodeAhead, AnErrorComesAfterTheBytesBeforeIt) {
  PatternSource src;
  src.total = 5'000'000;
  src.fail_after = 2'500'017;
  DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
  auto [out, error] = ReadAllOf(ahead, 65536);
  EXPECT_EQ(out.size(), 2'500'017u);
  EXPECT_TRUE(IsPattern(out));
  EXPECT_EQ(error, "x.gz: gzip data corrupt at byte 77");
  std::string more(16, '\0');
  auto again = ahead.Read(more.data(), more.size());
  ASSERT_TRUE(again.ok());  // given once, then the end
  EXPECT_EQ(*again, 0u);
}

TEST(DecodeAhead, AnExceptionInTheThreadIsAnError) {
  PatternSource src;
  src.total = 3'000'000;
  src.fail_after = 1'000'000;
  src.throw_instead = true;
  DecodeAhead ahead([&src](char* b, std::size_t n) { return src(b, n); });
  auto [out, error] = ReadAllOf(ahead, 1 << 20);
  EXPECT_EQ(out.size(), 1'000'000u);
  EXPECT_EQ(error, "decompressing failed: boom");
}

TEST(DecodeAhead, AReaderThatStopsEarlyStopsTheThread) {
  std::atomic<std::size_t> produced{0};
  {
    // An endless source: the producer fills the ring and waits; the
    // destructor must wake it and join it.
    DecodeAhead ahead([&produced](char* buf, std::size_t size) -> Result<std::size_t> {
      std::fill(buf, buf + size, 'x');
      produced += size;
      return size;
    });
    std::string buf(100, '\0');
    ASSERT_EQ(*ahead.Read(buf.data(), buf.size()), 100u);
    EXPECT_FALSE(ahead.finished());
  }
  // Bounded: the ring and the slot being filled, never more.
  EXPECT_LE(produced.load(), (kDecodeAheadSlots + 1) * kDecodeAheadSlotBytes);
}

// A log large enough for several of the ring's slots, gzipped and cut in
// the middle: analysed up to where it ends, with the note naming the byte.
TEST(DecodeAhead, ATruncatedGzipThroughTheThreadNamesTheByte) {
  std::string log;
  for (int i = 0; i < 120000; ++i) {
    log += "Feb 15 17:37:45 gpu-node-07 kernel: [80000.001000] NVRM: Xid (PCI:0000:3b:00): 79, pid=" +
           std::to_string(10000 + i % 4096) + ", name=python3, GPU has fallen off the bus.\n";
  }
  ASSERT_GT(log.size(), 2 * kDecodeAheadSlots * kDecodeAheadSlotBytes);
  std::string gz = test::Gzip(log);
  const std::size_t cut = gz.size() * 3 / 4;
  test::TempDir dir;
  const std::string path = dir.Write("kern.log.gz", gz.substr(0, cut));

  InputStream in;
  ASSERT_TRUE(in.Open(path).ok());
  std::string got;
  auto r = StreamLines(in, [&](std::string_view chunk) { got.append(chunk); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(got.size(), kDecodeAheadSlots * kDecodeAheadSlotBytes);
  EXPECT_LT(got.size(), log.size());
  EXPECT_EQ(got, log.substr(0, got.size()));
  EXPECT_EQ(in.note(), "gzip data truncated at byte " + std::to_string(cut) +
                           " (the input ends there): analysed as far as it decompresses");

  // The same through analyze: the events up to the cut, and the note.
  auto a = AnalyzeFiles({path}, Config{});
  ASSERT_EQ(a.files.size(), 1u);
  EXPECT_TRUE(a.files[0].ok) << a.files[0].error;
  ASSERT_EQ(a.files[0].notes.size(), 1u);
  EXPECT_EQ(a.files[0].notes[0], in.note());
  ASSERT_TRUE(a.input.kernel.has_value());
  std::size_t xid_lines = 0;
  for (const KernelEvent& e : a.input.kernel->events) {
    if (e.kind == KernelEventKind::kXid) xid_lines += e.count;
  }
  const std::size_t whole_lines = static_cast<std::size_t>(std::count(got.begin(), got.end(), '\n'));
  EXPECT_GE(xid_lines, whole_lines);  // the last, partial line may still read as one
  EXPECT_LE(xid_lines, whole_lines + 1);
}

// A reader that leaves a compressed member before its end (an archive's
// next member, a stream closed early) joins the thread.
TEST(DecodeAhead, AStreamClosedBeforeItsEndJoinsTheThread) {
  std::string log(6 * kDecodeAheadSlotBytes, 'a');
  for (std::size_t i = 80; i < log.size(); i += 81) log[i] = '\n';
  test::TempDir dir;
  const std::string path = dir.Write("big.log.gz", test::Gzip(log));
  for (int i = 0; i < 20; ++i) {
    InputStream in;
    ASSERT_TRUE(in.Open(path).ok());
    std::string buf(4096, '\0');
    auto n = in.Read(buf.data(), buf.size());
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, buf.size());
    EXPECT_EQ(in.note(), "");
    // Destroyed here with the thread still filling or waiting.
  }
}

}  // namespace decode_ahead_test_ns
}  // namespace gpudoctor
