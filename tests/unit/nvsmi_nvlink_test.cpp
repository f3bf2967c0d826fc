// nvidia-smi nvlink -s / -e: the parser, its detection, and analyze over the
// real captures in ../shared/fixtures/other (H100, H200, 8x A100, MIG mode).
#include <gtest/gtest.h>

#include "analyze/analyze_input.h"
#include "analyze/nvlink_merge.h"
#include "parse/nvsmi_nvlink.h"
#include "rules/engine/engine.h"
#include "support/fixtures.h"
#include "support/temp_files.h"

namespace gpudoctor {
namespace {

using test::FixtureDir;
using test::ReadFixtureFile;

// The shape drivers print when a GPU has NVLink and none of its links is up
// (the message as users quote it from R470 to R570 hosts).
constexpr std::string_view kTwoGpusOneDown =
    "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555555)\n"
    "\t Link 0: 26.562 GB/s\n"
    "\t Link 1: <inactive>\n"
    "\t Link 2: 13.281 GB/s\n"
    "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-66666666-2222-3333-4444-555555555555)\n"
    "\t NVML: Unable to retrieve Nvlink information as all links are inActive\n";

TEST(NvsmiNvlink, ReadsSpeedsInactiveLinksAndTheAllInactiveLine) {
  auto s = ParseNvidiaSmiNvlink(kTwoGpusOneDown, "links.txt");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->gpus.size(), 2u);
  const GpuStatus& g0 = s->gpus[0];
  EXPECT_EQ(g0.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g0.uuid, "GPU-11111111-2222-3333-4444-555555555555");
  ASSERT_EQ(g0.nvlinks.size(), 3u);
  EXPECT_EQ(g0.nvlinks[0].active, true);
  EXPECT_DOUBLE_EQ(*g0.nvlinks[0].speed_gb_per_s, 26.562);
  EXPECT_EQ(g0.nvlinks[1].active, false);
  EXPECT_FALSE(g0.nvlinks[1].speed_gb_per_s);
  EXPECT_FALSE(g0.nvlinks_all_inactive);
  EXPECT_EQ(s->gpus[1].index, 1u);
  EXPECT_TRUE(s->gpus[1].nvlinks.empty());
  EXPECT_TRUE(s->gpus[1].nvlinks_all_inactive);
}

TEST(NvsmiNvlink, NotSupportedAndMigModeGiveNoLinks) {
  auto s = ParseNvidiaSmiNvlink(
      "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-a)\n"
      "\t NVML: Unable to retrieve NVLink information: Not Supported\n",
      "x");
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->gpus.at(0).nvlinks.empty());
  EXPECT_FALSE(s->gpus.at(0).nvlinks_all_inactive);
  EXPECT_TRUE(LooksLikeNvidiaSmiNvlink(
      "GPU 0: NVIDIA GeForce RTX 4090 (UUID: GPU-a)\n\t NVML: Unable to retrieve NVLink information: Not Supported\n"));
}

TEST(NvsmiNvlink, ErrorCountersAndPastedPromptAndElision) {
  std::vector<std::string> notes;
  auto s = ParseNvidiaSmiNvlink(ReadFixtureFile("other", "mlengineering-h100-nvlink-e-excerpt.txt"), "e.txt",
                                &notes);
  if (ReadFixtureFile("other", "mlengineering-h100-nvlink-e-excerpt.txt").empty())
    GTEST_SKIP() << "shared fixtures not found at " << FixtureDir("other");
  ASSERT_TRUE(s) << s.error().message;
  ASSERT_EQ(s->gpus.size(), 1u);
  ASSERT_EQ(s->gpus[0].nvlinks.size(), 3u);  // links 0, 1 and 17; the author's "[...]" skipped
  EXPECT_EQ(s->gpus[0].nvlinks[2].link, 17u);
  EXPECT_EQ(s->gpus[0].nvlinks[2].replay_errors, 0);
  EXPECT_EQ(s->gpus[0].nvlinks[2].recovery_errors, 0);
  EXPECT_EQ(s->gpus[0].nvlinks[2].crc_flit_errors, 0);
  EXPECT_FALSE(s->gpus[0].nvlinks[2].active);  // -e says nothing of the state
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("2 lines"), std::string::npos) << notes[0];  // "$ nvidia-smi ..." and "[...]"
}

TEST(NvsmiNvlink, MalformedInputIsOneLineErrorNotACrash) {
  auto none = ParseNvidiaSmiNvlink("Link 0: 26.562 GB/s\n", "bad.txt");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "bad.txt: not nvidia-smi nvlink output: no GPU line");
  std::string text(kTwoGpusOneDown);
  for (std::size_t cut = 0; cut < text.size(); ++cut) {
    auto r = ParseNvidiaSmiNvlink(std::string_view(text).substr(0, cut), "cut.txt");
    if (!r) {
      EXPECT_EQ(r.error().message.find('\n'), std::string::npos);
    }
  }
  auto odd = ParseNvidiaSmiNvlink("GPU 0: X\n Link 99999999999: 1 GB/s\n Link 1: -3 GB/s\n Link 2: Replay Errors: x\n",
                                  "odd.txt");
  ASSERT_TRUE(odd);
  EXPECT_TRUE(odd->gpus[0].nvlinks.empty());
}

TEST(NvsmiNvlink, DetectionKeepsOtherGpuListsApart) {
  EXPECT_TRUE(LooksLikeNvidiaSmiNvlink(kTwoGpusOneDown));
  EXPECT_EQ(DetectInputKind(kTwoGpusOneDown), InputKind::kNvidiaSmiNvlink);
  // nvidia-smi -L lists GPUs without links: not nvlink output.
  EXPECT_FALSE(LooksLikeNvidiaSmiNvlink("GPU 0: NVIDIA A100 (UUID: GPU-a)\nGPU 1: NVIDIA A100 (UUID: GPU-b)\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiNvlink("hello\nGPU 0: X\n\t Link 0: 25 GB/s\n"));
}

TEST(NvsmiNvlink, MergeMatchesByUuidElseIndex) {
  GpuStatus dump;
  dump.index = 3;
  dump.uuid = "GPU-66666666-2222-3333-4444-555555555555";
  dump.pci_bus_id = "00000000:19:00.0";
  GpuStatus links;
  links.index = 1;  // another index under CUDA_VISIBLE_DEVICES or a different order
  links.uuid = dump.uuid;
  links.nvlinks_all_inactive = true;
  EXPECT_TRUE(SameNvlinkGpu(dump, links));
  GpuStatus masked;
  masked.index = 3;
  masked.uuid = "GPU-00000000-0000-0000-0000-000000000000";
  EXPECT_TRUE(SameNvlinkGpu(dump, masked));  // a masked UUID: by index
  masked.index = 2;
  EXPECT_FALSE(SameNvlinkGpu(dump, masked));
  SystemStatus reading;
  reading.gpus.push_back(dump);
  auto left = MergeNvlinksInto({links, masked}, reading);
  EXPECT_TRUE(reading.gpus[0].nvlinks_all_inactive);
  EXPECT_EQ(reading.gpus[0].pci_bus_id, "00000000:19:00.0");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].index, 2u);
}

class NvlinkFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    if (ReadFixtureFile("other", "gpud-testdata-nvlink-status-a100x8.txt").empty())
      GTEST_SKIP() << "shared fixtures not found at " << FixtureDir("other");
  }
  static std::string Path(const std::string& name) { return (FixtureDir("other") / name).string(); }
};

TEST_F(NvlinkFixtures, RealCapturesAreHealthyNodes) {
  for (const char* name : {"gpud-testdata-nvlink-status-a100x8.txt", "gpuexporter-h100-590.48.01-nvlink-s.txt",
                           "gpuexporter-h200-590.48.01-nvlink-s.txt"}) {
    auto r = AnalyzeFiles({Path(name)}, Config{});
    const AnalyzedFile& f = r.files.at(0);
    ASSERT_TRUE(f.ok) << name << ": " << f.error;
    EXPECT_EQ(f.kind, InputKind::kNvidiaSmiNvlink) << name;
    EXPECT_TRUE(f.notes.empty()) << name << ": " << f.notes.at(0);
    ASSERT_FALSE(r.input.gpus.empty());
    for (const GpuSeries& g : r.input.gpus) {
      EXPECT_GE(g.latest().nvlinks.size(), 12u) << name;
      for (const NvLinkStatus& l : g.latest().nvlinks) EXPECT_EQ(l.active, true) << name;
    }
    Diagnosis d = Diagnose(r.input);
    for (const Finding& finding : d.findings) EXPECT_NE(finding.id, "nvlink.errors") << name;
  }
  auto a100 = AnalyzeFiles({Path("gpud-testdata-nvlink-status-a100x8.txt")}, Config{});
  EXPECT_EQ(a100.input.gpus.size(), 8u);
  EXPECT_DOUBLE_EQ(*a100.input.gpus[5].latest().nvlinks[11].speed_gb_per_s, 25.0);
}

TEST_F(NvlinkFixtures, MigModeCaptureIsReadWithoutLinks) {
  auto r = AnalyzeFiles({Path("gpuexporter-h100-mig-590.48.01-nvlink-s-unsupported.txt")}, Config{});
  ASSERT_TRUE(r.files.at(0).ok) << r.files.at(0).error;
  ASSERT_EQ(r.input.gpus.size(), 1u);
  EXPECT_TRUE(r.input.gpus[0].latest().nvlinks.empty());
}

// A real 8x A100 capture with GPU 4's links down, as the driver prints it:
// critical, naming GPU 4 only; and one link slowed on GPU 2: a warning.
TEST_F(NvlinkFixtures, AGpuWithoutLinksAmongActivePeersIsCriticalAndASlowLinkAWarning) {
  std::string text = ReadFixtureFile("other", "gpud-testdata-nvlink-status-a100x8.txt");
  std::size_t g4 = text.find("GPU 4:"), g5 = text.find("GPU 5:");
  ASSERT_NE(g4, std::string::npos);
  std::size_t g4_end = text.find('\n', g4) + 1;
  text.replace(g4_end, g5 - g4_end, "\t NVML: Unable to retrieve Nvlink information as all links are inActive\n");
  std::size_t g2 = text.find("GPU 2:");
  std::size_t l7 = text.find("Link 7: 25 GB/s", g2);
  text.replace(l7, 15, "Link 7: 12.5 GB/s");
  test::TempDir dir;
  auto r = AnalyzeFiles({dir.Write("nvlink-s.txt", text)}, Config{});
  ASSERT_TRUE(r.files.at(0).ok) << r.files.at(0).error;
  Diagnosis d = Diagnose(r.input);
  std::vector<const Finding*> nvlink;
  for (const Finding& f : d.findings) {
    if (f.id == "nvlink.errors") nvlink.push_back(&f);
  }
  ASSERT_EQ(nvlink.size(), 2u);
  std::string all;
  for (const Finding* f : nvlink) all += f->title.en + "|";
  EXPECT_NE(all.find("GPU 4"), std::string::npos) << all;
  EXPECT_NE(all.find("GPU 2"), std::string::npos) << all;
  for (const Finding* f : nvlink) {
    const bool whole = f->title.en.find("no NVLink link up") != std::string::npos;
    EXPECT_EQ(f->severity, whole ? Severity::kCritical : Severity::kWarning) << f->title.en;
    if (!whole) {
      EXPECT_EQ(f->evidence.at(0).value, 12.5);
    }
  }
}

// nvlink output given with a -q dump of the same machine joins the dump's
// GPUs (one GPU, with its bus id), whichever order the files come in.
TEST_F(NvlinkFixtures, JoinsTheDumpOfTheSameGpus) {
  std::string dump = (FixtureDir("text") / "gpud-h100x8-535.183.01-q-replays.txt").string();
  if (ReadFixtureFile("text", "gpud-h100x8-535.183.01-q-replays.txt").empty()) GTEST_SKIP();
  test::TempDir dir;
  std::string links = dir.Write("s.txt",
                                "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
                                "\t NVML: Unable to retrieve Nvlink information as all links are inActive\n");
  for (auto paths : {std::vector<std::string>{dump, links}, std::vector<std::string>{links, dump}}) {
    auto r = AnalyzeFiles(paths, Config{});
    ASSERT_TRUE(r.files.at(0).ok && r.files.at(1).ok);
    std::size_t flagged = 0;
    for (const GpuSeries& g : r.input.gpus) {
      EXPECT_FALSE(g.key.empty());
      if (g.latest().nvlinks_all_inactive) {
        ++flagged;
        EXPECT_EQ(g.latest().index, 0u);
        EXPECT_TRUE(g.latest().temperature_c.has_value());  // the dump's reading, links added
      }
    }
    EXPECT_EQ(flagged, 1u);
  }
}

}  // namespace
}  // namespace gpudoctor
