#include "collect/kernel_log_files.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace gpudoctor {
namespace {

// Reads raw or gzip data from one descriptor into a buffer.
class Source {
 public:
  ~Source() {
    if (gz_)
      gzclose(gz_);  // also closes fd_
    else if (fd_ >= 0)
      ::close(fd_);
  }
  Status Open(const std::filesystem::path& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) return ErrnoError(errno, path.string());
    unsigned char magic[2] = {0, 0};
    ssize_t n = ::pread(fd_, magic, 2, 0);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
      gz_ = gzdopen(fd_, "rb");
      if (!gz_) return Error{ErrorCode::kIo, path.string() + ": cannot open gzip stream"};
      gzbuffer(gz_, 256u << 10);
    }
    return OkStatus();
  }
  // Bytes read into buf (0 at end), or an error naming the file.
  Result<std::size_t> Read(char* buf, std::size_t size, const std::string& name) {
    if (gz_) {
      int n = gzread(gz_, buf, static_cast<unsigned>(size));
      if (n < 0) {
        int code = 0;
        const char* msg = gzerror(gz_, &code);
        return Error{ErrorCode::kCorrupt, name + ": corrupt gzip data (" + msg + ")"};
      }
      if (n == 0) {
        // zlib reports a stream cut short only through gzerror at the end.
        int code = Z_OK;
        gzerror(gz_, &code);
        if (code == Z_BUF_ERROR) {
          return Error{ErrorCode::kCorrupt, name + ": gzip data truncated (unexpected end of file)"};
        }
      }
      return static_cast<std::size_t>(n);
    }
    for (;;) {
      ssize_t n = ::read(fd_, buf, size);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return ErrnoError(errno, name);
    }
  }

 private:
  int fd_ = -1;
  gzFile gz_ = nullptr;
};

bool IsBugReportRule(std::string_view s) {
  return s.size() >= 20 && s.find_first_not_of('_') == std::string_view::npos;
}

// Whether a section whose first line is `header` holds kernel messages.
bool IsKernelSectionHeader(std::string_view h) {
  if (h.rfind("Scanning kernel log files", 0) == 0) return true;
  if (h == "dmesg:" || h.find("dmesg") == 0 || h.find("/bin/dmesg") != std::string_view::npos) {
    return true;
  }
  if (h.find("journalctl") != std::string_view::npos)
    return h.find("_COMM=") == std::string_view::npos;
  for (std::string_view f : {"/var/log/kern.log", "/var/log/messages", "/var/log/syslog",
                             "/var/log/dmesg", "/var/log/kernel.log"}) {
    if (h.rfind("*** ", 0) == 0 && h.find(f) != std::string_view::npos) return true;
  }
  return false;
}

// Lines inside a kernel section that are the report's own labels.
bool IsReportLabel(std::string_view s) {
  if (s.rfind("*** ", 0) == 0) return true;
  if (s.empty() || s.back() != ':') return false;
  std::string_view t = s.substr(s.find_first_not_of(' '));
  return s.front() == ' ' && (t.front() == '/' || t.rfind("journalctl", 0) == 0);
}

}  // namespace

Result<std::size_t> StreamLines(const std::function<Result<std::size_t>(char*, std::size_t)>& read,
                                const std::function<void(std::string_view)>& on_chunk,
                                std::size_t max_bytes, std::size_t chunk_bytes,
                                const std::string& name) {
  std::string buf(chunk_bytes + 1, '\0');
  std::size_t carry = 0, total = 0;
  for (;;) {
    if (carry == buf.size()) {
      // One line longer than a chunk (a run of NUL bytes a crash left, a
      // binary blob): passed in pieces, so that memory stays bounded.
      on_chunk(std::string_view(buf.data(), carry));
      carry = 0;
    }
    auto n = read(buf.data() + carry, buf.size() - carry);
    if (!n) return n.error();
    total += *n;
    if (max_bytes && total > max_bytes) {
      return Error{ErrorCode::kInvalid,
                   name + ": larger than the " + std::to_string(max_bytes >> 20) + " MiB limit"};
    }
    std::size_t len = carry + *n;
    if (*n == 0) {
      if (len > 0) on_chunk(std::string_view(buf.data(), len));
      return total;
    }
    const void* nl = memrchr(buf.data(), '\n', len);
    std::size_t whole =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - buf.data()) + 1 : 0;
    if (whole > 0) on_chunk(std::string_view(buf.data(), whole));
    carry = len - whole;
    std::memmove(buf.data(), buf.data() + whole, carry);
  }
}

Result<std::size_t> StreamLogFile(const std::filesystem::path& path,
                                  const std::function<void(std::string_view)>& on_chunk,
                                  std::size_t max_bytes, std::size_t chunk_bytes) {
  const std::string name = path.string();
  Source src;
  if (auto r = src.Open(path); !r) return r.error();
  return StreamLines([&](char* buf, std::size_t size) { return src.Read(buf, size, name); },
                     on_chunk, max_bytes, chunk_bytes, name);
}

Result<std::vector<LogLine>> ReadLogFile(const std::filesystem::path& path, std::size_t max_bytes) {
  std::vector<LogLine> lines;
  const std::string name = path.string();
  auto r = StreamLogFile(
      path,
      [&](std::string_view chunk) {
        while (!chunk.empty()) {
          auto nl = chunk.find('\n');
          std::string_view line = chunk.substr(0, nl);
          if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
          lines.push_back(LogLine{std::string(line), SourceRef{name, lines.size() + 1}, {}, {}});
          chunk.remove_prefix(nl == std::string_view::npos ? chunk.size() : nl + 1);
        }
      },
      max_bytes);
  if (!r) return r.error();
  return lines;
}

bool LooksLikeBugReport(const std::vector<LogLine>& lines) {
  for (std::size_t i = 0; i < lines.size() && i < 40; ++i) {
    const std::string& t = lines[i].text;
    // The report's own banner lines, at the start of a line: a kernel log
    // that merely quotes "please run nvidia-bug-report.sh" (the Xid 79
    // crash-dump message) is not a bug report.
    if (t.rfind("nvidia-bug-report.sh Version", 0) == 0 ||
        t.rfind("Start of NVIDIA bug report log file", 0) == 0) {
      return true;
    }
  }
  return false;
}

bool BugReportKernelFilter::IsKernelLine(std::string_view t) {
  if (IsBugReportRule(t)) {
    in_kernel_ = false;
    want_header_ = true;
    return false;
  }
  if (want_header_) {
    if (t.empty()) return false;
    want_header_ = false;
    in_kernel_ = IsKernelSectionHeader(t);
    return false;
  }
  return in_kernel_ && !t.empty() && !IsReportLabel(t);
}

std::vector<LogLine> BugReportKernelLines(const std::vector<LogLine>& lines) {
  std::vector<LogLine> out;
  BugReportKernelFilter filter;
  for (const auto& line : lines) {
    if (filter.IsKernelLine(line.text)) out.push_back(line);
  }
  return out;
}

Result<std::vector<LogLine>> ReadKernelLogFile(const std::filesystem::path& path,
                                               std::size_t max_bytes) {
  auto lines = ReadLogFile(path, max_bytes);
  if (!lines) return lines.error();
  if (LooksLikeBugReport(*lines)) return BugReportKernelLines(*lines);
  return lines;
}

}  // namespace gpudoctor
