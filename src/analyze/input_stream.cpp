#include "analyze/input_stream.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "analyze/input_file.h"
#include "collect/kernel_log_files.h"

namespace gpudoctor {

struct InputStream::State {
  std::string name;
  int fd = -1;
  bool gzip = false;
  bool gzip_ended = false;  // a member ended; more may follow
  bool eof = false;
  z_stream zs{};
  bool z_ready = false;
  std::vector<char> in;  // compressed bytes read ahead
  std::size_t consumed = 0;  // compressed bytes given to inflate so far (for errors)

  ~State() {
    if (z_ready) inflateEnd(&zs);
    if (fd >= 0) ::close(fd);
  }

  Result<std::size_t> RawRead(char* buf, std::size_t size) {
    for (;;) {
      ssize_t n = ::read(fd, buf, size);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return ErrnoError(errno, name);
    }
  }

  // Refills zs.next_in when empty; false at the end of the file.
  Result<bool> Refill() {
    if (zs.avail_in > 0) return true;
    if (eof) return false;
    auto n = RawRead(in.data(), in.size());
    if (!n) return n.error();
    if (*n == 0) {
      eof = true;
      return false;
    }
    zs.next_in = reinterpret_cast<Bytef*>(in.data());
    zs.avail_in = static_cast<uInt>(*n);
    return true;
  }

  Result<std::size_t> Inflate(char* buf, std::size_t size) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = static_cast<uInt>(size);
    while (zs.avail_out == size) {
      auto more = Refill();
      if (!more) return more.error();
      if (!*more) {
        if (gzip_ended) return std::size_t{0};
        return Error{ErrorCode::kCorrupt,
                     name + ": gzip data truncated at byte " + std::to_string(consumed)};
      }
      if (gzip_ended) {
        // After a member: another one (cat a.gz b.gz), or trailing bytes gzip ignores.
        if (zs.avail_in >= 1 && static_cast<unsigned char>(zs.next_in[0]) != 0x1f) {
          eof = true;
          zs.avail_in = 0;
          return std::size_t{0};
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
        std::string why = zs.msg ? std::string(" (") + zs.msg + ")" : std::string();
        return Error{ErrorCode::kCorrupt,
                     name + ": gzip data corrupt at byte " + std::to_string(consumed) + why};
      } else if (rc == Z_MEM_ERROR) {
        return Error{ErrorCode::kIo, name + ": out of memory decompressing"};
      }
    }
    return size - zs.avail_out;
  }
};

InputStream::InputStream() : s_(std::make_unique<State>()) {}
InputStream::~InputStream() = default;

Result<bool> InputStream::Open(const std::filesystem::path& path) {
  s_->name = path.string();
  if (auto why = NotAFile(path)) return *why;
  s_->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (s_->fd < 0) return ErrnoError(errno, s_->name);
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(s_->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  unsigned char magic[2] = {0, 0};
  if (::pread(s_->fd, magic, 2, 0) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
    s_->gzip = true;
    s_->in.resize(256u << 10);
    if (inflateInit2(&s_->zs, 16 + MAX_WBITS) != Z_OK)
      return Error{ErrorCode::kIo, s_->name + ": cannot start the gzip decoder"};
    s_->z_ready = true;
  }
  return true;
}

Result<std::size_t> InputStream::Read(char* buf, std::size_t size) {
  if (size == 0) return std::size_t{0};
  return s_->gzip ? s_->Inflate(buf, size) : s_->RawRead(buf, size);
}

bool InputStream::gzip() const { return s_->gzip; }
const std::string& InputStream::name() const { return s_->name; }

Result<std::string> ReadHead(const std::filesystem::path& path, std::size_t max_bytes) {
  InputStream in;
  if (auto r = in.Open(path); !r) return r.error();
  std::string head(max_bytes, '\0');
  std::size_t have = 0;
  while (have < max_bytes) {
    auto n = in.Read(head.data() + have, max_bytes - have);
    if (!n) return n.error();
    if (*n == 0) break;
    have += *n;
  }
  head.resize(have);
  return head;
}

Result<std::size_t> StreamLines(InputStream& in,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t chunk_bytes) {
  return StreamLines([&](char* buf, std::size_t size) { return in.Read(buf, size); }, on_chunk, 0,
                     chunk_bytes, in.name());
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

}  // namespace gpudoctor
