// analyze over every real capture in ../shared/fixtures: each file's kind
// (a table written after reading each file), GPUs from every dump, events
// from the logs, and nothing accepted that is none of the known kinds.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "analyze/analyze_input.h"
#include "support/fixtures.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

namespace fs = std::filesystem;
using test::FixtureDir;
using test::ReadFixtureFile;

// Files of other/ (the other folders hold one kind each: xml/ XML, text/
// `nvidia-smi -q` text, kernel/ kernel logs and journals).
const std::map<std::string, InputKind>& OtherKinds() {
  static const std::map<std::string, InputKind> kinds = {
      // PyTorch ProcessGroupNCCL watchdog logs: text logs for the event extractor.
      {"basicsr-issue-737-nccl-watchdog-timeout-new-format.log", InputKind::kKernelLog},
      {"ofa-issue-271-nccl-watchdog-timeout-old-format-8xv100.log", InputKind::kKernelLog},
      // `dmesg | grep` output with the kernel's PCIe "limited by" lines.
      {"mlengineering-dmesg-pcie-bandwidth-limited.txt", InputKind::kKernelLog},
      // Header-only excerpt of a real report (banner, Date, uname, sections).
      {"bugreport-rtx3060-laptop-arch-2022-header-excerpt.log", InputKind::kBugReport},
      // `nvidia-smi -q -d PERFORMANCE`, the command pasted above it.
      {"mangohud-issue-636-nvidia-smi-q-d-PERFORMANCE-495.44.txt", InputKind::kNvidiaSmiText},
      // Default tables (the rows below marked kNvidiaSmiTable) and nvlink -s /
      // -e output (kNvidiaSmiNvlink); topology matrices and CSV queries are
      // none of the kinds analyze reads.
      {"bsyonline-nvidia-smi-table-v100x8-470.129.06.txt", InputKind::kNvidiaSmiTable},
      {"bsyonline-topo-matrix-v100x8-470.129.06.txt", InputKind::kUnknown},
      {"gpud-nvidia-smi-table-err-fan-eprocess-525.125.06.txt", InputKind::kNvidiaSmiTable},
      {"gpud-nvidia-smi-table-h100x8-550.90.07.txt", InputKind::kNvidiaSmiTable},
      {"gpud-testdata-nvlink-status-a100x8.txt", InputKind::kNvidiaSmiNvlink},
      {"gpuexporter-h100-590.48.01-load-table.txt", InputKind::kNvidiaSmiTable},
      {"gpuexporter-h100-590.48.01-nvlink-s.txt", InputKind::kNvidiaSmiNvlink},
      {"gpuexporter-h100-590.48.01-query-retired-pages.txt", InputKind::kUnknown},
      {"gpuexporter-h100-590.48.01-topo-m.txt", InputKind::kUnknown},
      {"gpuexporter-h100-mig-590.48.01-idle-table.txt", InputKind::kNvidiaSmiTable},
      {"gpuexporter-h100-mig-590.48.01-nvlink-s-unsupported.txt", InputKind::kNvidiaSmiNvlink},
      {"gpuexporter-h200-590.48.01-nvlink-s.txt", InputKind::kNvidiaSmiNvlink},
      {"gpuexporter-h200-mig-590.48.01-load-table.txt", InputKind::kNvidiaSmiTable},
      {"gpuexporter-l40s-595.80-load-table.txt", InputKind::kNvidiaSmiTable},
      {"gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt", InputKind::kNvidiaSmiTable},
      {"gpuexporter-rtx2080super-windows-591.86-idle-table-wddm.txt", InputKind::kNvidiaSmiTable},
      {"mlengineering-h100-nvlink-e-excerpt.txt", InputKind::kNvidiaSmiNvlink},
      {"mlengineering-h100-nvlink-status-excerpt.txt", InputKind::kNvidiaSmiNvlink},
      {"open-gpu-kernel-modules-issue-446-nvidia-smi-table-a30x8-err-after-xid119-525.85.12.txt",
       InputKind::kNvidiaSmiTable},
      {"open-gpu-kernel-modules-issue-446-nvidia-smi-table-a40x8-err-after-xid119-525.60.13.txt",
       InputKind::kNvidiaSmiTable},
  };
  return kinds;
}

InputKind ExpectedKind(const std::string& folder, const std::string& name) {
  if (folder == "xml") return InputKind::kNvidiaSmiXml;
  if (folder == "text") return InputKind::kNvidiaSmiText;
  if (folder == "kernel") return InputKind::kKernelLog;
  auto it = OtherKinds().find(name);
  return it == OtherKinds().end() ? InputKind::kUnknown : it->second;
}

std::vector<fs::path> FilesIn(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(FixtureDir(folder))) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

class AnalyzeFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(FixtureDir("xml")))
      GTEST_SKIP() << "shared fixtures not found at " << FixtureDir("xml");
  }
};

TEST_F(AnalyzeFixtures, EveryFileHasTheExpectedKind) {
  std::size_t seen = 0;
  for (std::string folder : {"xml", "text", "kernel", "other"}) {
    for (const fs::path& p : FilesIn(folder)) {
      std::string name = p.filename().string();
      if (folder == "other") {
        EXPECT_TRUE(OtherKinds().count(name)) << "other/" << name << " is missing from the table";
      }
      EXPECT_EQ(InputKindName(DetectInputKind(ReadFixtureFile(folder, name))),
                std::string(InputKindName(ExpectedKind(folder, name))))
          << folder << "/" << name;
      ++seen;
    }
  }
  EXPECT_GE(seen, 80u);
}

// An excerpt cut from inside a GPU block (11 lines of "ECC Errors", no
// "GPU <bus id>" line and no header): one GPU, but nothing names it.
bool IsHeaderlessExcerpt(const fs::path& p) {
  return p.filename() == "mlengineering-q-ecc-errors-sram-uncorrectable-excerpt.txt";
}

// Every XML and -q text dump yields at least one GPU with its bus id.
TEST_F(AnalyzeFixtures, EveryDumpYieldsGpusWithBusIds) {
  for (std::string folder : {"xml", "text"}) {
    for (const fs::path& p : FilesIn(folder)) {
      auto r = AnalyzeFiles({p.string()}, Config{});
      const AnalyzedFile& f = r.files.at(0);
      EXPECT_TRUE(f.ok) << f.error;
      EXPECT_GE(f.gpu_count, 1u) << p;
      ASSERT_FALSE(r.input.gpus.empty()) << p;
      const bool headerless = IsHeaderlessExcerpt(p);
      for (const GpuSeries& s : r.input.gpus) EXPECT_EQ(s.latest().pci_bus_id.empty(), headerless) << p;
      EXPECT_NE(r.input.driver_version.has_value(), headerless) << p;
    }
  }
}

// Every kernel log, and the NCCL logs, give at least one event.
TEST_F(AnalyzeFixtures, EveryLogYieldsEvents) {
  std::vector<fs::path> logs = FilesIn("kernel");
  for (const auto& [name, kind] : OtherKinds()) {
    if (kind == InputKind::kKernelLog) logs.push_back(FixtureDir("other") / name);
  }
  for (const fs::path& p : logs) {
    auto r = AnalyzeFiles({p.string()}, Config{});
    EXPECT_TRUE(r.files.at(0).ok) << r.files.at(0).error;
    EXPECT_GE(r.files.at(0).event_count, 1u) << p;
    ASSERT_TRUE(r.input.kernel.has_value()) << p;
    EXPECT_EQ(r.input.kernel->events.size(), r.files.at(0).event_count) << p;
  }
}

TEST_F(AnalyzeFixtures, BugReportHeaderGivesHostAndRelease) {
  auto r = AnalyzeFiles(
      {(FixtureDir("other") / "bugreport-rtx3060-laptop-arch-2022-header-excerpt.log").string()},
      Config{});
  ASSERT_TRUE(r.files.at(0).ok) << r.files.at(0).error;
  EXPECT_EQ(r.input.hostname, "nomade007");
  EXPECT_EQ(r.input.kernel_release, "6.0.1-arch2-1");
  EXPECT_TRUE(r.input.kernel.has_value());  // read, even with no kernel section in the excerpt
  EXPECT_EQ(r.files.at(0).gpu_count, 0u);   // the excerpt stops before nvidia-smi's section
}

TEST_F(AnalyzeFixtures, MixOfRealDumpAndRealLog) {
  auto r = AnalyzeFiles(
      {(FixtureDir("xml") / "netdata-rtx4090-535.86.05-v12.xml").string(),
       (FixtureDir("kernel") / "gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log").string()},
      Config{});
  EXPECT_EQ(r.input.gpus.size(), 1u);
  ASSERT_TRUE(r.input.kernel.has_value());
  bool xid119 = false;
  for (const KernelEvent& e : r.input.kernel->events) xid119 |= e.code == 119;
  EXPECT_TRUE(xid119);
  ASSERT_TRUE(r.input.window_from && r.input.window_to);
  EXPECT_LT(*r.input.window_from, *r.input.window_to);  // 2023 dump, 2025 log
}

// Files cut at any point (an interrupted copy) give a result or a one-line
// error naming the file, never a crash.
TEST_F(AnalyzeFixtures, CutFilesNeverCrash) {
  test::TempDir dir;
  for (auto [folder, name] :
       {std::pair{"xml", "telegraf-dual-rtx2070-590.44.01-v13.xml"},
        std::pair{"text", "gpud-titanv-560.35.03-q.txt"},
        std::pair{"kernel", "gpud-testdata-xid119-gsp-rpc-history-dmesg-T.log"},
        std::pair{"other", "bugreport-rtx3060-laptop-arch-2022-header-excerpt.log"}}) {
    std::string bytes = ReadFixtureFile(folder, name);
    for (std::size_t cut = 1; cut < bytes.size(); cut += bytes.size() / 7 + 1) {
      std::string path = dir.Write("cut-" + std::to_string(cut), bytes.substr(0, cut));
      const AnalyzedFile f = AnalyzeFiles({path}, Config{}).files.at(0);
      if (!f.ok) {
        EXPECT_EQ(f.error.rfind(path + ": ", 0), 0u) << f.error;
      }
      EXPECT_EQ(f.error.find('\n'), std::string::npos) << f.error;
    }
  }
}

}  // namespace
}  // namespace gpudoctor
