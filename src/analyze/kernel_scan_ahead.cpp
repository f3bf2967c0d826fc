#include "analyze/kernel_scan_ahead.h"

#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
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

// A buffer of whole lines on its way: read, its candidates found, fed.
struct Piece {
  enum class State { kFree, kRead, kFinding, kFound };
  State state = State::kFree;
  std::size_t seq = 0;  // its place in the log
  std::string buf;
  std::size_t len = 0;
  KernelCandidates found;
  std::string_view text() const { return std::string_view(buf.data(), len); }
};

// The three kinds of work, shared by the caller and the workers: reading
// (one thread at a time, in order: a buffer's last part-line goes on in
// the next), finding candidates (any thread, any buffer read) and feeding
// the scanner (one thread at a time, in order). Each thread does the work
// that is ready, feeding first: the scanner's order is the only one that
// binds.
class Scan {
 public:
  using Read = std::function<Result<std::size_t>(char*, std::size_t)>;
  using Inspect = std::function<void(std::string_view)>;

  Scan(const Read& read, const std::string& name, KernelEventScanner& scanner,
       const Inspect& inspect, std::size_t chunk_bytes, std::size_t threads)
      : read_(read), name_(name), scanner_(scanner), inspect_(inspect),
        ctx_(scanner.time_context()), threads_(threads) {
    for (std::size_t i = 0; i < threads + 2; ++i) {
      pieces_.push_back(std::make_unique<Piece>());
      pieces_.back()->buf.resize(chunk_bytes + 1);
    }
  }

  Result<std::size_t> Run() {
    caller_ = std::this_thread::get_id();
    Work();
    for (std::thread& t : workers_) t.join();
    if (exception_) std::rethrow_exception(exception_);
    if (read_error_) return *read_error_;
    return total_;
  }

 private:
  // Until everything read is fed, or a thread failed.
  void Work() {
    KernelLineParser parser;  // this thread's memo
    std::unique_lock lock(mu_);
    while (!failed_) {
      if (Piece* p = NextToFeed()) {
        feeding_ = true;
        lock.unlock();
        const bool ok = Guard([&] { Feed(*p); });
        lock.lock();
        feeding_ = false;
        p->state = Piece::State::kFree;
        ++fed_;
        if (!ok) break;
        cv_.notify_all();
        continue;
      }
      if (Piece* p = NextToFind()) {
        p->state = Piece::State::kFinding;
        lock.unlock();
        const bool ok = Guard([&] {
          FindKernelCandidates(p->text(), p->seq == 0, ctx_, parser, p->found);
        });
        lock.lock();
        p->state = Piece::State::kFound;
        if (!ok) break;
        cv_.notify_all();
        continue;
      }
      // A buffer to read into and one for the part-line after it.
      if (!reading_ && !read_done_ && FreePieces() >= 2) {
        reading_ = true;
        lock.unlock();
        const bool ok = Guard([&] { ReadNext(); });
        // The second buffer read: a log worth more threads (the caller's
        // thread reads until then; only it touches workers_ before the join).
        if (ok && std::this_thread::get_id() == caller_ && workers_.empty() && handed_ >= 2)
          StartWorkers();
        lock.lock();
        reading_ = false;
        if (!ok) break;
        cv_.notify_all();
        continue;
      }
      if (read_done_ && !reading_ && fed_ == handed_) break;
      cv_.wait(lock);
    }
    cv_.notify_all();
  }

  void StartWorkers() {
    for (std::size_t i = 1; i < threads_; ++i) {
      try {
        workers_.emplace_back([this] { Work(); });
      } catch (const std::system_error&) {  // fewer threads: the same work
        break;
      }
    }
  }

  // Runs f; an exception stops every thread and waits for Run to rethrow.
  template <typename F>
  bool Guard(F&& f) {
    try {
      f();
      return true;
    } catch (...) {
      std::lock_guard lock(mu_);
      if (!exception_) exception_ = std::current_exception();
      failed_ = true;
      return false;
    }
  }

  Piece* NextToFeed() {
    if (feeding_) return nullptr;
    for (auto& p : pieces_) {
      if (p->seq == fed_ && p->state == Piece::State::kFound) return p.get();
    }
    return nullptr;
  }
  Piece* NextToFind() {
    Piece* best = nullptr;  // the earliest: the feeder waits for it first
    for (auto& p : pieces_) {
      if (p->state == Piece::State::kRead && (!best || p->seq < best->seq)) best = p.get();
    }
    return best;
  }
  std::size_t FreePieces() const {
    return static_cast<std::size_t>(std::count_if(pieces_.begin(), pieces_.end(), [](const auto& p) {
      return p->state == Piece::State::kFree;
    }));
  }
  Piece* TakeFree() {
    for (auto& p : pieces_) {
      if (p->state == Piece::State::kFree && p.get() != reading_into_) return p.get();
    }
    return nullptr;
  }

  // Reads into the buffer held for reading until it holds whole lines (or
  // the end), as StreamLines does: whole lines go on, the last part-line
  // is carried into the next buffer, a line longer than a buffer goes in
  // pieces. Called by the one reading thread; the lock is not held but for
  // the buffers' states.
  void ReadNext() {
    Piece* cur = nullptr;
    {
      std::lock_guard lock(mu_);
      if (!reading_into_) reading_into_ = TakeFree();
      cur = reading_into_;
    }
    for (;;) {
      if (carry_ == cur->buf.size()) {
        Hand(cur, carry_, 0);
        return;
      }
      auto n = read_(cur->buf.data() + carry_, cur->buf.size() - carry_);
      if (!n) {
        std::lock_guard lock(mu_);
        read_error_ = n.error();
        read_done_ = true;
        reading_into_ = nullptr;
        return;
      }
      total_ += *n;
      const std::size_t len = carry_ + *n;
      if (*n == 0) {
        std::lock_guard lock(mu_);
        read_done_ = true;
        reading_into_ = nullptr;
        if (len > 0) {
          carry_ = 0;
          HandLocked(cur, len);
        }
        return;
      }
      const void* nl = memrchr(cur->buf.data(), '\n', len);
      const std::size_t whole =
          nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - cur->buf.data()) + 1 : 0;
      carry_ = len - whole;
      if (whole > 0) {
        Hand(cur, whole, carry_);
        return;
      }
    }
  }
  // cur[0, len) to find and feed; its last `carry` bytes after len into the
  // next buffer to read into.
  void Hand(Piece* cur, std::size_t len, std::size_t carry) {
    if (inspect_) inspect_(std::string_view(cur->buf.data(), len));
    std::lock_guard lock(mu_);
    HandLocked(cur, len);
    reading_into_ = nullptr;
    Piece* next = TakeFree();  // there is one: reading starts with two free
    reading_into_ = next;
    std::memcpy(next->buf.data(), cur->buf.data() + len, carry);
    carry_ = carry;
  }
  void HandLocked(Piece* cur, std::size_t len) {
    cur->len = len;
    cur->seq = handed_++;
    cur->state = Piece::State::kRead;
  }

  void Feed(const Piece& p) {
    const std::string_view text = p.text();
    // Once candidates stopped where the scanner's state decides (relative
    // stamps), every later buffer is scanned with that state at hand.
    if (by_line_) {
      line_ += ScanKernelLogBuffer(text, name_, line_, scanner_);
      return;
    }
    line_ += FeedKernelCandidates(text, name_, line_, p.found, scanner_);
    by_line_ = p.found.stop != std::string_view::npos;
  }

  const Read& read_;
  const std::string& name_;
  KernelEventScanner& scanner_;
  const Inspect& inspect_;
  const LineTimeContext ctx_;
  const std::size_t threads_;
  std::vector<std::unique_ptr<Piece>> pieces_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t handed_ = 0, fed_ = 0;
  bool reading_ = false, feeding_ = false, read_done_ = false, failed_ = false;
  Piece* reading_into_ = nullptr;
  std::exception_ptr exception_;
  std::vector<std::thread> workers_;  // started and joined by the caller's thread
  std::thread::id caller_;
  // The reading thread's.
  std::size_t carry_ = 0, total_ = 0;
  std::optional<Error> read_error_;
  // The feeding thread's.
  std::size_t line_ = 1;
  bool by_line_ = false;
};

}  // namespace

Result<std::size_t> ScanKernelLogAhead(
    const std::function<Result<std::size_t>(char*, std::size_t)>& read, const std::string& name,
    KernelEventScanner& scanner, const std::function<void(std::string_view)>& inspect,
    std::size_t chunk_bytes, std::size_t threads) {
  if (threads == 0) threads = std::min<std::size_t>(UsableCpus(), kScanAheadMaxThreads);
  Scan scan(read, name, scanner, inspect, chunk_bytes, std::max<std::size_t>(threads, 1));
  return scan.Run();
}

}  // namespace gpudoctor
