// kernel_scan FILE...: scans kernel logs the way `gpudoctor analyze` does
// (streamed in chunks, never the whole file in memory) and prints what it
// found. Used by kernel_scan_vs_grep.sh.
#include <cstdio>
#include <string>

#include "collect/kernel_log_files.h"
#include "parse/kernel_events.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    gpudoctor::KernelEventScanner scanner;
    std::size_t line = 1;
    auto r = gpudoctor::StreamLogFile(path, [&](std::string_view chunk) {
      line += gpudoctor::ScanKernelLogBuffer(chunk, path, line, scanner);
    });
    if (!r) {
      std::fprintf(stderr, "%s\n", r.error().message.c_str());
      rc = 1;
      continue;
    }
    auto events = scanner.Finish();
    std::size_t xid_lines = 0;
    for (const auto& e : events) {
      if (e.kind == gpudoctor::KernelEventKind::kXid) xid_lines += e.count;
    }
    std::printf("%s: %zu events, %zu Xid lines, %zu lines, %zu bytes\n", path.c_str(),
                events.size(), xid_lines, line - 1, *r);
  }
  return rc;
}
