#include "collect/fabric_manager.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "collect/exec_capture.h"
#include "parse/dpkg_status.h"

namespace gpudoctor {
namespace {

constexpr const char* kUnit = "nvidia-fabricmanager.service";
constexpr const char* kConfig = "/usr/share/nvidia/nvswitch/fabricmanager.cfg";
constexpr const char* kBinary = "/usr/bin/nv-fabricmanager";
constexpr const char* kDpkgStatus = "/var/lib/dpkg/status";

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return s;
}

// The stanzas of /var/lib/dpkg/status whose package name starts with
// `prefix`, read line by line: the database is often megabytes, read every
// few minutes by the agent, and a whole copy of it was the largest thing in
// the agent's memory.
Result<std::string> ReadDpkgStanzas(const CollectContext& ctx, std::string_view prefix) {
  std::ifstream in(UnderRoot(ctx, kDpkgStatus));
  if (!in) return ErrnoError(errno, kDpkgStatus);
  const std::string package = "Package: " + std::string(prefix);
  std::string kept, stanza, line;
  bool wanted = false;  // dpkg writes a stanza's Package line first
  auto end_stanza = [&] {
    if (!stanza.empty()) kept += stanza + "\n";
    stanza.clear();
    wanted = false;
  };
  while (std::getline(in, line)) {
    if (line.empty()) {
      end_stanza();
      continue;
    }
    if (line.rfind("Package: ", 0) == 0) wanted = line.rfind(package, 0) == 0;
    if (wanted) stanza += line + "\n";
  }
  if (in.bad()) return ErrnoError(errno, kDpkgStatus);
  end_stanza();
  return kept;
}

void ReadVersion(const CollectContext& ctx, const FabricManagerOptions& options,
                 FabricManagerFacts& facts) {
  if (options.run_binary && ctx.root == "/") {
    auto out = ExecCapture({kBinary, "--version"}, std::chrono::seconds(5));
    std::optional<std::string> version;
    if (out.ok()) version = ParseFmVersionOutput(out->output);
    if (version) {
      facts.sources.push_back(SourceStatus{"nv-fabricmanager --version", true, ""});
      facts.version = version;
      facts.version_source = "nv-fabricmanager --version";
      return;
    }
    facts.sources.push_back(
        out.ok() ? SourceStatus{"nv-fabricmanager --version", false, "no version in its output"}
                 : StatusOf("nv-fabricmanager --version", out));
  }
  auto status = ReadDpkgStanzas(ctx, "nvidia-fabricmanager");
  facts.sources.push_back(StatusOf(kDpkgStatus, status));
  if (!status.ok()) return;
  for (const auto& pkg : FindInstalledDpkgPackages(*status, "nvidia-fabricmanager")) {
    // nvidia-fabricmanager-dev-* carries headers, not the daemon.
    if (pkg.name.find("-dev") != std::string::npos) continue;
    facts.version = pkg.upstream_version;
    facts.version_source = std::string(kDpkgStatus) + " (" + pkg.name + " " + pkg.version + ")";
    return;
  }
}

// Reads the log from the tail (at most max_bytes), line by line.
void ScanLog(const CollectContext& ctx, const FabricManagerOptions& options,
             FabricManagerFacts& facts) {
  const auto path = UnderRoot(ctx, facts.log_path);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    facts.sources.push_back(
        SourceStatus{facts.log_path, false, ErrnoError(errno, facts.log_path).message});
    return;
  }
  struct stat st {};
  std::size_t skip = 0;
  if (::fstat(fd, &st) == 0 && static_cast<std::size_t>(st.st_size) > options.max_log_bytes) {
    skip = static_cast<std::size_t>(st.st_size) - options.max_log_bytes;
    ::lseek(fd, static_cast<off_t>(skip), SEEK_SET);
  }
  FmLogScanner scanner(options.max_log_errors);
  std::string pending;
  bool drop_partial = skip > 0;  // the first line of a tail is cut
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', start)) {
      if (drop_partial) {
        drop_partial = false;
      } else {
        scanner.Feed(std::string_view(pending).substr(start, nl - start));
      }
      start = nl + 1;
    }
    pending.erase(0, start);
  }
  if (!pending.empty() && !drop_partial) scanner.Feed(pending);
  ::close(fd);
  facts.sources.push_back(SourceStatus{facts.log_path, true, ""});
  facts.log = scanner.summary();
  facts.log_skipped_bytes = skip;
}

}  // namespace

Result<int> CountNvSwitchesInSysfs(const CollectContext& ctx) {
  auto devices = ListRootDir(ctx, "/sys/bus/pci/devices");
  if (!devices.ok()) return devices.error();
  int count = 0;
  for (const auto& dev : *devices) {
    const std::string base = "/sys/bus/pci/devices/" + dev;
    auto vendor = ReadRootFile(ctx, base + "/vendor", 64);
    auto cls = ReadRootFile(ctx, base + "/class", 64);
    if (!vendor.ok() || !cls.ok()) continue;
    // sysfs writes "0x10de\n" and "0x068000\n".
    if (Lower(*vendor).rfind("0x10de", 0) == 0 && Lower(*cls).rfind("0x0680", 0) == 0) ++count;
  }
  return count;
}

FabricManagerFacts CollectFabricManager(const CollectContext& ctx,
                                        const FabricManagerOptions& options) {
  FabricManagerFacts facts;
  facts.nvswitch_present = options.nvswitch_present;
  facts.driver = options.driver;
  if (options.services != nullptr) {
    auto state = options.services->Read(kUnit);
    facts.sources.push_back(StatusOf(kUnit, state));
    if (state.ok()) facts.service = *state;
  } else {
    facts.sources.push_back(
        SourceStatus{kUnit, false, "no service manager reader (not the live root)"});
  }
  ReadVersion(ctx, options, facts);
  if (facts.version && facts.driver) {
    // Fabric Manager refuses to start unless its version equals the
    // driver's exactly (major.minor.patch).
    facts.version_matches_driver = *facts.version == facts.driver->ToString();
  }
  auto cfg = ReadRootFile(ctx, kConfig, 1 << 20);
  facts.sources.push_back(StatusOf(kConfig, cfg));
  facts.log_path = FmLogPathFromConfig(cfg.ok() ? std::string_view(*cfg) : std::string_view());
  ScanLog(ctx, options, facts);
  return facts;
}

}  // namespace gpudoctor
