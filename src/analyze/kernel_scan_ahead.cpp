#include "analyze/kernel_scan_ahead.h"

#include <sched.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace gpudoctor {

std::size_t UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  const int n = CPU_COUNT(&set);
  return n > 0 ? static_cast<std::size_t>(n) : 1;
}

namespace {

// A buffer of whole lines and what FindKernelCandidates read in it.
struct Piece {
  std::string buf;
  std::size_t len = 0;
  bool by_line = false;  // read no candidates: the scanner's state decides (ScanKernelLogBuffer)
  KernelCandidates found;
  std::string_view text() const { return std::string_view(buf.data(), len); }
};

// The scanner's side: pieces fed in the order handed, on the worker once
// it runs (on the caller's thread before).
class Feeder {
 public:
  Feeder(KernelEventScanner& scanner, const std::string& name, std::size_t chunk_bytes)
      : scanner_(scanner), name_(name) {
    for (std::size_t i = 0; i < kScanAheadBuffers; ++i) {
      pieces_.push_back(std::make_unique<Piece>());
      pieces_.back()->buf.resize(chunk_bytes + 1);
      free_.push_back(pieces_.back().get());
    }
  }
  ~Feeder() { Stop(); }
  Feeder(const Feeder&) = delete;
  Feeder& operator=(const Feeder&) = delete;

  // A piece to read into (waits while all are queued).
  Piece* Take() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty() || failed_; });
    if (failed_) return nullptr;
    Piece* p = free_.back();
    free_.pop_back();
    return p;
  }
  void Give(Piece* p) {
    std::lock_guard lock(mu_);
    free_.push_back(p);
    cv_.notify_all();
  }

  // Scans `p` after the pieces handed before; it comes back to the free list.
  // The second piece starts the worker when this process may use two CPUs.
  void Hand(Piece* p) {
    if (!worker_.joinable() && ++handed_ == 2 && UsableCpus() > 1) {
      try {
        worker_ = std::thread([this] { Work(); });
      } catch (const std::system_error&) {  // no thread to be had: this one scans
      }
    }
    if (!worker_.joinable()) {
      Feed(*p);
      Give(p);
      return;
    }
    std::lock_guard lock(mu_);
    queue_.push_back(p);
    cv_.notify_all();
  }

  // Waits for the pieces handed, joins the worker; rethrows its exception.
  void Finish() {
    Stop();
    if (error_) std::rethrow_exception(error_);
  }
 private:
  void Feed(const Piece& p) {
    const std::string_view text = p.text();
    line_ += p.by_line ? ScanKernelLogBuffer(text, name_, line_, scanner_)
                       : FeedKernelCandidates(text, name_, line_, p.found, scanner_);
  }
  void Work() {
    for (;;) {
      Piece* p = nullptr;
      {
        std::unique_lock lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty() || done_; });
        if (queue_.empty()) return;
        p = queue_.front();
      }
      try {
        Feed(*p);
      } catch (...) {
        std::lock_guard lock(mu_);
        error_ = std::current_exception();
        failed_ = true;
        queue_.clear();
        cv_.notify_all();
        return;
      }
      std::lock_guard lock(mu_);
      queue_.pop_front();
      free_.push_back(p);
      cv_.notify_all();
    }
  }
  void Stop() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
      cv_.notify_all();
    }
    if (worker_.joinable()) worker_.join();
  }

  KernelEventScanner& scanner_;
  const std::string& name_;
  std::size_t line_ = 1;  // the worker's (the caller's before it runs)
  std::size_t handed_ = 0;
  std::vector<std::unique_ptr<Piece>> pieces_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Piece*> free_;
  std::deque<Piece*> queue_;
  bool done_ = false;
  bool failed_ = false;
  std::exception_ptr error_;
  std::thread worker_;
};

}  // namespace

Result<std::size_t> ScanKernelLogAhead(
    const std::function<Result<std::size_t>(char*, std::size_t)>& read, const std::string& name,
    KernelEventScanner& scanner, const std::function<void(std::string_view)>& inspect,
    std::size_t chunk_bytes) {
  Feeder feeder(scanner, name, chunk_bytes);
  const LineTimeContext ctx = scanner.time_context();
  KernelLineParser parser;
  bool by_line = false;  // since a candidate that may switch the scanner to relative stamps
  bool log_start = true;
  // The candidates of p[0, len) found here; p handed to the feeder.
  auto hand = [&](Piece* p, std::size_t len) {
    p->len = len;
    if (inspect) inspect(p->text());
    p->by_line = by_line;
    if (!by_line) {
      FindKernelCandidates(p->text(), log_start, ctx, parser, p->found);
      by_line = p->found.stop != std::string_view::npos;
    }
    log_start = false;
    feeder.Hand(p);
  };
  // As StreamLines reads: whole lines to the scanner, the last part-line
  // carried into the next buffer; a line longer than a buffer in pieces.
  Piece* cur = feeder.Take();
  std::size_t carry = 0, total = 0;
  while (cur) {
    if (carry == cur->buf.size()) {
      hand(cur, carry);
      carry = 0;
      if (!(cur = feeder.Take())) break;
    }
    auto n = read(cur->buf.data() + carry, cur->buf.size() - carry);
    if (!n) {
      feeder.Give(cur);
      feeder.Finish();
      return n.error();
    }
    total += *n;
    const std::size_t len = carry + *n;
    if (*n == 0) {
      if (len > 0) {
        hand(cur, len);
      } else {
        feeder.Give(cur);
      }
      break;
    }
    const void* nl = memrchr(cur->buf.data(), '\n', len);
    const std::size_t whole =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - cur->buf.data()) + 1 : 0;
    carry = len - whole;
    if (whole == 0) continue;
    Piece* next = feeder.Take();
    if (!next) break;
    std::memcpy(next->buf.data(), cur->buf.data() + whole, carry);
    hand(cur, whole);
    cur = next;
  }
  feeder.Finish();
  return total;
}

}  // namespace gpudoctor
