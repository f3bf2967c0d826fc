#include "analyze/input_stream.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <system_error>
#include <vector>

#include "analyze/decode_ahead.h"
#include "collect/kernel_log_files.h"

namespace gpudoctor {
// How the bytes of an input are decoded (a member's type in InputStream::State,
// so not in an unnamed namespace).
namespace input_stream_mode {
enum class Mode { kPlain, kGzip, kArchive };
}  // namespace input_stream_mode

namespace {
namespace input_stream_magic {

constexpr std::size_t kMagicBytes = 512;  // tar's "ustar" stands at 257

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

bool IsTar(std::string_view s) { return s.size() >= 262 && s.substr(257, 5) == "ustar"; }

// Streams and archives libarchive reads, by their magic bytes.
const char* ArchiveMagic(std::string_view s) {
  if (StartsWith(s, std::string_view("\xFD" "7zXZ\0", 6))) return "xz";
  if (StartsWith(s, "BZh")) return "bzip2";
  if (StartsWith(s, "\x28\xB5\x2F\xFD")) return "zstd";
  if (StartsWith(s, "\x04\x22\x4D\x18")) return "lz4";
  if (StartsWith(s, "LZIP")) return "lzip";
  if (StartsWith(s, "\x1F\x9D")) return "compress";
  if (StartsWith(s, "7z\xBC\xAF\x27\x1C")) return "7-Zip";
  if (StartsWith(s, "PK\x03\x04") || StartsWith(s, "PK\x05\x06")) return "zip";
  if (StartsWith(s, "Rar!\x1A\x07")) return "RAR";
  if (StartsWith(s, "070707") || StartsWith(s, "070701") || StartsWith(s, "070702")) return "cpio";
  if (IsTar(s)) return "tar";
  return nullptr;
}

// Formats known by their magic bytes that hold no text gpudoctor reads.
const char* UnreadMagic(std::string_view s) {
  if (StartsWith(s, "\x89PNG")) return "a PNG image";
  if (StartsWith(s, "\xFF\xD8\xFF")) return "a JPEG image";
  if (StartsWith(s, "%PDF")) return "a PDF document";
  if (StartsWith(s, "\x7F" "ELF")) return "an ELF binary";
  if (StartsWith(s, std::string_view("SQLite format 3\0", 16)))
    return "an SQLite database (a gpudoctor store is read by `gpudoctor report --store`)";
  if (StartsWith(s, "MSCF")) return "a Windows cabinet archive";
  return nullptr;
}

// A tar archive inside gzip (.tar.gz, .tgz): inflate the first bytes.
bool GzipHoldsTar(std::string_view raw) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return false;
  char out[kMagicBytes];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out);
  zs.avail_out = sizeof out;
  inflate(&zs, Z_SYNC_FLUSH);
  std::size_t have = sizeof out - zs.avail_out;
  inflateEnd(&zs);
  return IsTar(std::string_view(out, have));
}

}  // namespace input_stream_magic
}  // namespace


std::optional<Error> NotAnInput(const std::filesystem::path& path) {
  if (path == std::filesystem::path(kStdinPath)) return std::nullopt;
  std::error_code ec;
  auto st = std::filesystem::status(path, ec);
  const std::string name = path.string();
  if (st.type() == std::filesystem::file_type::not_found)
    return Error{ErrorCode::kNotFound, name + ": no such file"};
  if (ec) return ErrnoError(ec.value(), name);
  if (st.type() == std::filesystem::file_type::directory)
    return Error{ErrorCode::kInvalid, name + ": not a file (a directory)"};
  if (st.type() != std::filesystem::file_type::regular &&
      st.type() != std::filesystem::file_type::fifo &&
      st.type() != std::filesystem::file_type::character &&
      st.type() != std::filesystem::file_type::socket)
    return Error{ErrorCode::kInvalid, name + ": not a file"};
  if (::access(path.c_str(), R_OK) != 0) return ErrnoError(errno, name);
  return std::nullopt;
}

struct InputStream::State {
  std::string name;
  std::string format;
  int fd = -1;
  bool own_fd = true;
  std::optional<std::uint64_t> file_size, gzip_size;
  input_stream_mode::Mode mode = input_stream_mode::Mode::kPlain;
  std::string raw_head;  // bytes read to tell the container, given out first
  std::size_t raw_pos = 0;
  bool raw_eof = false;
  std::string note;

  // gzip
  z_stream zs{};
  bool z_ready = false;
  bool gzip_ended = false;  // a member ended; more may follow
  std::vector<char> in;     // compressed bytes read ahead
  std::uint64_t consumed = 0, produced = 0;

  // libarchive
  struct archive* ar = nullptr;
  bool pending_header = false;  // Open read the first header
  bool is_archive = false;
  std::string member;
  std::vector<char> ar_buf;

  // members and peeking
  bool started = false;  // NextMember called
  bool member_end = false;
  std::string peeked;
  std::size_t peek_pos = 0;

  // A compressed member's bytes decoded in a thread of its own while the
  // reader scans (started by the first Read, not by Peek). While it runs,
  // the decoder's state above (zs, ar, member_end, note, ...) is its
  // thread's; resetting it joins the thread and hands the state back.
  std::unique_ptr<DecodeAhead> ahead;

  ~State() {
    ahead.reset();  // before the decoder it uses
    if (z_ready) inflateEnd(&zs);
    if (ar) archive_read_free(ar);
    if (fd >= 0 && own_fd) ::close(fd);
  }

  Result<std::size_t> RawRead(char* buf, std::size_t size) {
    if (raw_pos < raw_head.size()) {
      std::size_t n = std::min(size, raw_head.size() - raw_pos);
      std::memcpy(buf, raw_head.data() + raw_pos, n);
      raw_pos += n;
      if (raw_pos == raw_head.size()) {
        std::string().swap(raw_head);
        raw_pos = 0;
      }
      return n;
    }
    if (raw_eof) return std::size_t{0};
    for (;;) {
      ssize_t n = ::read(fd, buf, size);
      if (n > 0) return static_cast<std::size_t>(n);
      if (n == 0) {
        raw_eof = true;
        return std::size_t{0};
      }
      if (errno != EINTR) return ErrnoError(errno, name);
    }
  }

  // Reads until kMagicBytes are at hand or the input ends (a pipe gives
  // what it has).
  Status ReadMagic() {
    raw_head.resize(input_stream_magic::kMagicBytes);
    std::size_t have = 0;
    while (have < input_stream_magic::kMagicBytes) {
      ssize_t n = ::read(fd, raw_head.data() + have, input_stream_magic::kMagicBytes - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return ErrnoError(errno, name);
      if (n == 0) {
        raw_eof = true;
        break;
      }
      have += static_cast<std::size_t>(n);
    }
    raw_head.resize(have);
    return OkStatus();
  }

  // Refills zs.next_in when empty; false at the end of the input.
  Result<bool> Refill() {
    if (zs.avail_in > 0) return true;
    auto n = RawRead(in.data(), in.size());
    if (!n) return n.error();
    if (*n == 0) return false;
    zs.next_in = reinterpret_cast<Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(*n);
    return true;
  }

  void EndEarly(const std::string& why) {
    member_end = true;
    if (note.empty()) note = why + ": analysed as far as it decompresses";
  }

  Result<std::size_t> Inflate(char* buf, std::size_t size) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = static_cast<uInt>(size);
    while (zs.avail_out == size && !member_end) {
      auto more = Refill();
      if (!more) return more.error();
      if (!*more) {
        if (!gzip_ended)
          EndEarly("gzip data truncated at byte " + std::to_string(consumed) +
                   " (the input ends there)");
        member_end = true;
        break;
      }
      if (gzip_ended) {
        // After a member: another one (cat a.gz b.gz), or trailing bytes gzip ignores.
        if (static_cast<unsigned char>(zs.next_in[0]) != 0x1f) {
          member_end = true;
          zs.avail_in = 0;
          break;
        }
        inflateReset(&zs);
        gzip_ended = false;
      }
      uInt before = zs.avail_in;
      int rc = inflate(&zs, Z_NO_FLUSH);
      consumed += before - zs.avail_in;
      if (rc == Z_STREAM_END) {
        gzip_ended = true;
      } else if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR) {
        std::string why = "gzip data corrupt at byte " + std::to_string(consumed) +
                          (zs.msg ? std::string(" (") + zs.msg + ")" : std::string());
        if (produced == 0 && zs.avail_out == size) return Error{ErrorCode::kCorrupt, name + ": " + why};
        EndEarly(why);
      } else if (rc == Z_MEM_ERROR) {
        return Error{ErrorCode::kIo, name + ": out of memory decompressing"};
      }
    }
    std::size_t n = size - zs.avail_out;
    produced += n;
    return n;
  }

  static la_ssize_t ArchiveRead(struct archive* a, void* client, const void** buff) {
    auto* s = static_cast<State*>(client);
    auto n = s->RawRead(s->ar_buf.data(), s->ar_buf.size());
    if (!n) {
      archive_set_error(a, EIO, "%s", n.error().message.c_str());
      return -1;
    }
    *buff = s->ar_buf.data();
    return static_cast<la_ssize_t>(*n);
  }

  std::string ArchiveError() const {
    const char* e = archive_error_string(ar);
    return e ? e : "unreadable data";
  }

  Status OpenArchive() {
    ar = archive_read_new();
    if (!ar) return Error{ErrorCode::kIo, name + ": cannot start the archive reader"};
    archive_read_support_filter_all(ar);
    archive_read_support_format_tar(ar);
    archive_read_support_format_zip(ar);
    archive_read_support_format_7zip(ar);
    archive_read_support_format_rar(ar);
    archive_read_support_format_cpio(ar);
    archive_read_support_format_raw(ar);
    ar_buf.resize(256u << 10);
    if (archive_read_open(ar, this, nullptr, &State::ArchiveRead, nullptr) != ARCHIVE_OK)
      return Error{ErrorCode::kCorrupt, name + ": " + format + " data unreadable (" + ArchiveError() + ")"};
    struct archive_entry* entry = nullptr;
    int rc = archive_read_next_header(ar, &entry);
    if (rc == ARCHIVE_EOF) {
      is_archive = true;  // an empty archive
      return OkStatus();
    }
    if (rc < ARCHIVE_WARN)
      return Error{ErrorCode::kCorrupt, name + ": " + format + " data unreadable (" + ArchiveError() + ")"};
    is_archive = archive_format(ar) != ARCHIVE_FORMAT_RAW;
    pending_header = true;
    member = is_archive ? EntryName(entry) : std::string();
    if (is_archive && archive_entry_filetype(entry) != AE_IFREG) pending_header = false;
    return OkStatus();
  }

  static std::string EntryName(struct archive_entry* entry) {
    const char* p = archive_entry_pathname(entry);
    return p ? p : "?";
  }

  Result<std::optional<std::string>> NextArchiveMember() {
    if (pending_header) {
      pending_header = false;
      return std::optional<std::string>(member);
    }
    if (!is_archive) return std::optional<std::string>();
    for (;;) {
      struct archive_entry* entry = nullptr;
      int rc = archive_read_next_header(ar, &entry);
      if (rc == ARCHIVE_EOF) return std::optional<std::string>();
      if (rc < ARCHIVE_WARN) {
        // A damaged or truncated archive: the members before still count.
        EndEarly(format + " archive damaged after byte " +
                 std::to_string(archive_filter_bytes(ar, -1)) + " (" + ArchiveError() + ")");
        return std::optional<std::string>();
      }
      if (archive_entry_filetype(entry) != AE_IFREG) continue;
      member = EntryName(entry);
      return std::optional<std::string>(member);
    }
  }

  Result<std::size_t> ArchiveData(char* buf, std::size_t size) {
    la_ssize_t n = archive_read_data(ar, buf, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    std::string where = is_archive ? " in " + member : "";
    EndEarly(format + " data ends early at byte " + std::to_string(archive_filter_bytes(ar, -1)) +
             where + " (" + ArchiveError() + ")");
    return std::size_t{0};
  }

  // The member's next bytes: from the thread decoding ahead when one runs
  // (or, for a compressed member and `ahead_ok`, is started now), else
  // decoded here.
  Result<std::size_t> Decode(char* buf, std::size_t size, bool ahead_ok) {
    if (!ahead && !member_end && ahead_ok && mode != input_stream_mode::Mode::kPlain) {
      try {
        ahead = std::make_unique<DecodeAhead>(
            [this](char* b, std::size_t n) { return DecodeHere(b, n); });
      } catch (const std::system_error&) {  // no thread to be had: decode here
      }
    }
    if (!ahead) return DecodeHere(buf, size);
    auto n = ahead->Read(buf, size);
    if (!n || *n == 0) {
      ahead.reset();  // ended: joined, its state (member_end, note) is ours again
      member_end = true;
    }
    return n;
  }

  // Stops a thread decoding ahead (the member is left before its end).
  void StopAhead() { ahead.reset(); }

  Result<std::size_t> DecodeHere(char* buf, std::size_t size) {
    if (member_end) return std::size_t{0};
    Result<std::size_t> n = std::size_t{0};
    switch (mode) {
      case input_stream_mode::Mode::kPlain:
        n = RawRead(buf, size);
        break;
      case input_stream_mode::Mode::kGzip:
        n = Inflate(buf, size);
        break;
      case input_stream_mode::Mode::kArchive:
        n = ArchiveData(buf, size);
        break;
    }
    if (n && *n == 0) member_end = true;
    return n;
  }
};

InputStream::InputStream() : s_(std::make_unique<State>()) {}
InputStream::~InputStream() = default;

Status InputStream::Open(const std::filesystem::path& path) {
  const bool stdin_input = path == std::filesystem::path(kStdinPath);
  s_->name = stdin_input ? "standard input" : path.string();
  if (auto why = NotAnInput(path)) return *why;
  if (stdin_input) {
    s_->fd = STDIN_FILENO;
    s_->own_fd = false;
  } else {
    s_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (s_->fd < 0) return ErrnoError(errno, s_->name);
  }
  struct stat st {};
  if (::fstat(s_->fd, &st) == 0 && S_ISREG(st.st_mode)) {
    s_->file_size = static_cast<std::uint64_t>(st.st_size);
#ifdef POSIX_FADV_SEQUENTIAL
    ::posix_fadvise(s_->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  }
  if (auto r = s_->ReadMagic(); !r) return r.error();
  std::string_view magic = s_->raw_head;
  if (const char* what = input_stream_magic::UnreadMagic(magic)) {
    return Error{ErrorCode::kNotSupported,
                 s_->name + ": " + what + ", not something gpudoctor reads (text logs, journals, "
                 "nvidia-smi output and bug reports; plain, gzip, xz, bzip2, zstd, or in tar, "
                 "zip and 7-Zip archives)"};
  }
  if (magic.size() >= 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
      static_cast<unsigned char>(magic[1]) == 0x8b && !input_stream_magic::GzipHoldsTar(magic)) {
    s_->mode = input_stream_mode::Mode::kGzip;
    s_->format = "gzip";
    s_->in.resize(256u << 10);
    if (inflateInit2(&s_->zs, 16 + MAX_WBITS) != Z_OK)
      return Error{ErrorCode::kIo, s_->name + ": cannot start the gzip decoder"};
    s_->z_ready = true;
    unsigned char trailer[4];
    if (s_->file_size && *s_->file_size >= 18 &&
        ::pread(s_->fd, trailer, 4, static_cast<off_t>(*s_->file_size - 4)) == 4) {
      s_->gzip_size = std::uint64_t{trailer[0]} | std::uint64_t{trailer[1]} << 8 |
                      std::uint64_t{trailer[2]} << 16 | std::uint64_t{trailer[3]} << 24;
    }
    return OkStatus();
  }
  const char* archived = input_stream_magic::ArchiveMagic(magic);
  if (!archived && magic.size() >= 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
      static_cast<unsigned char>(magic[1]) == 0x8b)
    archived = "tar.gz";
  if (!archived) return OkStatus();  // plain bytes
  s_->mode = input_stream_mode::Mode::kArchive;
  s_->format = archived;
  return s_->OpenArchive();
}

Result<std::optional<std::string>> InputStream::NextMember() {
  s_->StopAhead();
  s_->peeked.clear();
  s_->peek_pos = 0;
  s_->member_end = false;
  if (s_->mode == input_stream_mode::Mode::kArchive) {
    s_->started = true;
    return s_->NextArchiveMember();
  }
  if (s_->started) return std::optional<std::string>();
  s_->started = true;
  return std::optional<std::string>(std::string());
}

Result<std::size_t> InputStream::Read(char* buf, std::size_t size) {
  if (size == 0) return std::size_t{0};
  if (!s_->started) {
    if (auto m = NextMember(); !m) return m.error();
  }
  if (s_->peek_pos < s_->peeked.size()) {
    std::size_t n = std::min(size, s_->peeked.size() - s_->peek_pos);
    std::memcpy(buf, s_->peeked.data() + s_->peek_pos, n);
    s_->peek_pos += n;
    if (s_->peek_pos == s_->peeked.size()) {
      s_->peeked.clear();
      s_->peek_pos = 0;
    }
    return n;
  }
  return s_->Decode(buf, size, /*ahead_ok=*/true);
}

Result<std::string_view> InputStream::Peek(std::size_t size) {
  if (!s_->started) {
    if (auto m = NextMember(); !m) return m.error();
  }
  s_->peeked.erase(0, s_->peek_pos);
  s_->peek_pos = 0;
  while (s_->peeked.size() < size) {
    std::size_t have = s_->peeked.size();
    s_->peeked.resize(size);
    auto n = s_->Decode(s_->peeked.data() + have, size - have, /*ahead_ok=*/false);
    if (!n) {
      s_->peeked.resize(have);
      return n.error();
    }
    s_->peeked.resize(have + *n);
    if (*n == 0) break;
  }
  return std::string_view(s_->peeked).substr(0, size);
}

void InputStream::LeaveMember() {
  s_->StopAhead();
  std::string().swap(s_->peeked);
  s_->peek_pos = 0;
}

bool InputStream::decoding_ahead() const { return s_->ahead != nullptr; }

bool InputStream::archive() const { return s_->is_archive; }
bool InputStream::gzip() const { return s_->mode == input_stream_mode::Mode::kGzip; }
const std::string& InputStream::format() const { return s_->format; }
const std::string& InputStream::name() const { return s_->name; }
std::optional<std::uint64_t> InputStream::file_size() const { return s_->file_size; }
std::optional<std::uint64_t> InputStream::gzip_stated_size() const { return s_->gzip_size; }
const std::string& InputStream::note() const {
  static const std::string kNone;
  // While a thread decodes ahead it may still write the note.
  if (s_->ahead && !s_->ahead->finished()) return kNone;
  return s_->note;
}

Result<std::string> ReadHead(const std::filesystem::path& path, std::size_t max_bytes) {
  InputStream in;
  if (auto r = in.Open(path); !r) return r.error();
  auto head = in.Peek(max_bytes);
  if (!head) return head.error();
  return std::string(*head);
}

Result<std::size_t> StreamLines(InputStream& in,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t chunk_bytes) {
  return StreamLines([&](char* buf, std::size_t size) { return in.Read(buf, size); }, on_chunk, 0,
                     chunk_bytes, in.name());
}

Result<std::string> ReadAll(InputStream& in, std::size_t max_bytes) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    auto n = in.Read(buf, sizeof buf);
    if (!n) return n.error();
    if (*n == 0) return out;
    out.append(buf, *n);
    if (max_bytes && out.size() > max_bytes) {
      return Error{ErrorCode::kInvalid, in.name() + ": larger than the " +
                                            std::to_string(max_bytes >> 20) + " MiB limit" +
                                            (in.format().empty() ? "" : " once decompressed")};
    }
  }
}

InputStreamBuf::int_type InputStreamBuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  auto n = in_.Read(buf_, sizeof buf_);
  if (!n) {
    if (error_.empty()) error_ = n.error().message;
    return traits_type::eof();
  }
  if (*n == 0) return traits_type::eof();
  setg(buf_, buf_, buf_ + *n);
  return traits_type::to_int_type(*gptr());
}

// DecodeAhead (decode_ahead.h): here, beside its one user.
DecodeAhead::DecodeAhead(Fill fill) : fill_(std::move(fill)) {
  thread_ = std::thread([this] { Produce(); });
}

DecodeAhead::~DecodeAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void DecodeAhead::Produce() {
  for (;;) {
    std::size_t slot = 0;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || filled_ < kDecodeAheadSlots; });
      if (stop_) return;
      slot = (head_ + filled_) % kDecodeAheadSlots;
    }
    // The slot past the filled ones is the producer's alone.
    Slot& s = slots_[slot];
    Result<std::size_t> n = std::size_t{0};
    try {
      if (s.data.size() < kDecodeAheadSlotBytes) s.data.resize(kDecodeAheadSlotBytes);
      n = fill_(s.data.data(), s.data.size());
    } catch (const std::bad_alloc&) {
      n = Error{ErrorCode::kIo, "out of memory decompressing"};
    } catch (const std::exception& e) {
      n = Error{ErrorCode::kIo, std::string("decompressing failed: ") + e.what()};
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!n) {
        error_ = n.error();
        done_ = true;
      } else if (*n == 0) {
        done_ = true;
      } else {
        s.size = *n;
        ++filled_;
      }
    }
    cv_.notify_all();
    if (!n || *n == 0) return;
  }
}

Result<std::size_t> DecodeAhead::Read(char* buf, std::size_t size) {
  if (size == 0) return std::size_t{0};
  const char* from = nullptr;
  std::size_t n = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return filled_ > 0 || done_; });
    if (filled_ == 0) {
      if (error_ && !error_given_) {
        error_given_ = true;
        return *error_;
      }
      return std::size_t{0};
    }
    // The head slot is the reader's alone while it is filled.
    const Slot& s = slots_[head_];
    from = s.data.data() + pos_;
    n = std::min(size, s.size - pos_);
  }
  std::memcpy(buf, from, n);
  bool freed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pos_ += n;
    if (pos_ == slots_[head_].size) {
      pos_ = 0;
      head_ = (head_ + 1) % kDecodeAheadSlots;
      --filled_;
      freed = true;
    }
  }
  if (freed) cv_.notify_all();
  return n;
}

bool DecodeAhead::finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

}  // namespace gpudoctor
