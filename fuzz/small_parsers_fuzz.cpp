// Fuzzes the small parsers of outside text: the first byte picks the parser
// (modulo their number), the rest is its input. Covers command-line values
// (durations, time points, ping targets, --listen addresses), the Accept-Encoding header, /proc
// and /sys files, cgroup files, dpkg status, driver/CUDA/framework version
// files, ld.so.conf, the fabric manager log, nvidia-smi values.
#include <algorithm>
#include <cctype>
#include <string>

#include "core/duration.h"
#include "core/time_parse.h"
#include "fuzz_check.h"
#include "http/content_encoding.h"
#include "http/listen_address.h"
#include "parse/cgroup.h"
#include "parse/cuda_versions.h"
#include "parse/dpkg_status.h"
#include "parse/driver_version.h"
#include "parse/fabricmanager_log.h"
#include "parse/framework_versions.h"
#include "parse/kernel_line.h"
#include "parse/ld_so_conf.h"
#include "parse/nvsmi_values.h"
#include "parse/ping_target.h"
#include "parse/proc_meminfo.h"
#include "parse/proc_pid.h"
#include "parse/proc_stat.h"
#include "parse/proc_text.h"
#include "parse/proc_vmstat.h"
#include "parse/sysfs_net.h"
#include "parse/sysfs_pci.h"
#include "parse/version_numbers.h"

namespace {

using namespace gpudoctor;

void CommandLineValues(std::string_view s) {
  if (auto d = ParseDuration(s)) FUZZ_CHECK(d->count() > 0);
  (void)ParseTimePoint(s);
  if (auto p = ParsePingTarget(s)) FUZZ_CHECK(!p->host.empty() && p->text == Trim(s));
  if (auto a = ParseListenAddress(std::string(s))) {
    FUZZ_CHECK(a->port >= 0 && a->port <= 65535 && !a->host.empty());
  }
}

void AcceptEncoding(std::string_view s) {
  std::string upper(s);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  FUZZ_CHECK(AcceptsGzip(s) == AcceptsGzip(upper));  // case-insensitive
}

void ProcFiles(std::string_view s) {
  (void)ParseProcStat(s);
  (void)ParseLoadAvg(s);
  if (auto cpus = ParseCpuList(s)) FUZZ_CHECK(std::is_sorted(cpus->begin(), cpus->end()));
  (void)ParsePidStat(s);
  (void)ParseMeminfo(s);
  (void)ParseVmstat(s);
  (void)ParseStatusUid(s);
  (void)CmdlineToString(s);
  (void)ParsePasswd(s);
}

void CgroupFiles(std::string_view s) {
  if (auto lines = ParseProcCgroup(s)) {
    (void)CgroupPathFor(*lines, "memory");
    (void)CgroupPathFor(*lines, "");
  }
  (void)ParseCpuMax(s);
  const std::size_t nl = s.find('\n');
  (void)ParseCfsQuota(s.substr(0, nl), nl == std::string_view::npos ? "" : s.substr(nl + 1));
  (void)ParseMemoryLimit(s);
  (void)ContainerFromCgroupPath(s);
}

void SysFiles(std::string_view s) {
  (void)ParseNetSpeedMbps(s);
  (void)ParseIbPortState(s);
  (void)ParseIbRateGbps(s);
  if (auto gt = ParseLinkSpeedGtPerS(s)) (void)PcieGenFromGtPerS(*gt);
  (void)gpudoctor::ParseLinkWidth(s);
  (void)ParseAerCounters(s);
}

void DriverFiles(std::string_view s) {
  (void)FindInstalledDpkgPackages(s, "nvidia-");
  (void)DpkgUpstreamVersion(s);
  (void)ParseProcDriverVersion(s);
  (void)DriverVersionFromLibraryName(s, "libcuda.so");
  (void)ParseNvidiaParam(s, "EnableGpuFirmware");
  if (auto v = ParseDriverVersion(s)) {
    auto again = ParseDriverVersion(v->ToString());
    FUZZ_CHECK(again && *again == *v);
  }
  if (auto v = ParseCudaVersionText(s)) {
    auto again = ParseCudaVersionText(v->ToString());
    FUZZ_CHECK(again && *again == *v);
  }
  (void)SplitVersion(s, 1, 4);
}

void CudaFiles(std::string_view s) {
  (void)ParseCudaVersionJson(s);
  (void)ParseCudaVersionTxt(s);
  (void)ParseNvccVersion(s);
  (void)ParseCudartFileName(s);
  (void)ParseLdSoConf(s);
  (void)SplitPathList(s);
}

void FabricManager(std::string_view s) {
  (void)ParseFmLogLine(s);
  (void)ParseFmVersionMismatch(s);
  (void)ParseFmVersionOutput(s);
  (void)FmLogPathFromConfig(s);
  const FmLogSummary sum = ScanFabricManagerLog(s, 3);
  FUZZ_CHECK(sum.last_errors.size() <= 3 && sum.last_errors.size() <= sum.error_count);
  FUZZ_CHECK(sum.entries <= sum.lines);
}

void Frameworks(std::string_view s) {
  (void)FindPyValue(s, "cuda");
  (void)ParseTorchVersionPy(s);
  (void)ParseTfBuildInfo(s);
  const std::string name = NormalizeDistName(s);
  (void)ParseDistInfoDirName(s);
  (void)ParseDistMetadata(s);
  (void)ParseLocalBuildTag(s);
  (void)ParseCudaWheelName(name, s);
}

void NvsmiValues(std::string_view s) {
  using namespace gpudoctor::nvsmi;
  (void)ParseText(s);
  if (QueryFailure(s)) FUZZ_CHECK(IsUnavailable(s));  // a failed query has no value
  (void)ParseQuantity(s, "W");
  (void)ParseInteger(s);
  (void)ParseMemoryBytes(s);
  (void)ParsePercent(s);
  (void)ParseCelsius(s);
  (void)ParseWatts(s);
  (void)ParseMegahertz(s);
  (void)ParseKilobytesPerSecond(s);
  (void)ParseMicroseconds(s);
  (void)nvsmi::ParseLinkWidth(s);
  if (auto p = ParsePstate(s)) FUZZ_CHECK(*p >= 0 && *p <= 15);
  (void)nvsmi::ParseCudaVersion(s);
  (void)ParseEnabled(s);
  (void)ParseYesNo(s);
  (void)ParseActive(s);
  (void)NormalizeComputeMode(s);
}

void KernelLineParts(std::string_view s) {
  std::size_t used = 0;
  if (ParseMonthName(s, &used)) FUZZ_CHECK(used > 0 && used <= s.size());
  (void)ParseKernelLine(s, LineTimeContext{2025, std::chrono::hours(8)});
}

constexpr void (*kParsers[])(std::string_view) = {
    CommandLineValues, AcceptEncoding, ProcFiles,  CgroupFiles, SysFiles,        DriverFiles,
    CudaFiles,         FabricManager,  Frameworks, NvsmiValues, KernelLineParts,
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t count = sizeof kParsers / sizeof kParsers[0];
  kParsers[data[0] % count](fuzz::AsText(data + 1, size - 1));
  return 0;
}
