// The default nvidia-smi table parser: both column layouts, ERR! cells, MIG
// sub-tables, the process list with and without GI/CI, Windows, fragments,
// and the real tables of ../shared/fixtures/other.
#include "parse/nvsmi_table.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "support/fixtures.h"

namespace gpudoctor {
namespace {

constexpr std::int64_t kMiB = 1024 * 1024;

// The 79-column layout (drivers up to 525), one GPU healthy and one in the
// state nvidia-smi shows after a GSP failure, with a process.
constexpr const char* kOldLayout = R"(Mon Feb 27 16:08:33 2023
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.60.13    Driver Version: 525.60.13    CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  NVIDIA A40          On   | 00000000:03:00.0 Off |                    2 |
| 30%   24C    P8    14W / 300W |    821MiB / 46068MiB |     87%   E. Process |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
|   1  ERR!                Off  | 00000000:83:00.0 Off |                 ERR! |
|ERR!  ERR! ERR!    ERR! / ERR! |  23025MiB / 46068MiB |    ERR!      Default |
|                               |                      |                 ERR! |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Processes:                                                                  |
|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |
|        ID   ID                                                   Usage      |
|=============================================================================|
|    0   N/A  N/A   2111354      C   ...eratornet/venv/bin/python      818MiB |
|    0   N/A  N/A      4242    C+G   my job --with args                  3MiB |
+-----------------------------------------------------------------------------+
)";

TEST(NvsmiTable, OldLayoutValuesErrCellsAndProcesses) {
  auto s = ParseNvidiaSmiTable(kOldLayout, "t.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->nvml_loaded);
  EXPECT_EQ(s->driver_version, "525.60.13");
  EXPECT_EQ(s->cuda_driver_version, 12000);
  ASSERT_EQ(s->gpus.size(), 2u);

  const GpuStatus& a = s->gpus[0];
  EXPECT_EQ(a.index, 0u);
  EXPECT_EQ(a.name, "NVIDIA A40");
  EXPECT_EQ(a.pci_bus_id, "0000:03:00.0");
  EXPECT_EQ(a.persistence_mode, true);
  EXPECT_EQ(a.ecc_volatile_uncorrected, 2);
  EXPECT_EQ(a.ecc_mode_enabled, true);
  EXPECT_EQ(a.fan_speed_percent, 30);
  EXPECT_EQ(a.fan_speeds_percent, std::vector<std::int64_t>{30});
  EXPECT_EQ(a.temperature_c, 24);
  EXPECT_EQ(a.pstate, 8);
  EXPECT_EQ(a.power_draw_w, 14.0);
  EXPECT_EQ(a.power_limit_w, 300.0);
  EXPECT_EQ(a.memory_used_bytes, 821 * kMiB);
  EXPECT_EQ(a.memory_total_bytes, 46068 * kMiB);
  EXPECT_EQ(a.utilization_gpu_percent, 87);
  EXPECT_EQ(a.compute_mode, "Exclusive_Process");
  EXPECT_FALSE(a.mig_mode_enabled.has_value());  // N/A
  EXPECT_TRUE(a.field_errors.empty());
  ASSERT_TRUE(a.processes.has_value());
  ASSERT_EQ(a.processes->size(), 2u);
  EXPECT_EQ((*a.processes)[0].pid, 2111354u);
  EXPECT_EQ((*a.processes)[0].name, "...eratornet/venv/bin/python");
  EXPECT_EQ((*a.processes)[0].used_memory_bytes, 818 * kMiB);
  EXPECT_EQ((*a.processes)[1].name, "my job --with args");
  EXPECT_EQ((*a.processes)[1].used_memory_bytes, 3 * kMiB);

  const GpuStatus& b = s->gpus[1];
  EXPECT_EQ(b.index, 1u);
  EXPECT_EQ(b.pci_bus_id, "0000:83:00.0");
  EXPECT_EQ(b.name, "");
  EXPECT_EQ(b.persistence_mode, false);
  EXPECT_EQ(b.memory_used_bytes, 23025 * kMiB);  // still readable while the rest fails
  EXPECT_EQ(b.compute_mode, "Default");
  EXPECT_FALSE(b.temperature_c || b.fan_speed_percent || b.pstate || b.power_draw_w ||
               b.power_limit_w || b.utilization_gpu_percent || b.ecc_volatile_uncorrected ||
               b.mig_mode_enabled);
  const std::map<std::string, std::string> want_errors = {
      {"name", std::string(kTableErrCell)},
      {"fan_speed_percent", std::string(kTableErrCell)},
      {"temperature_c", std::string(kTableErrCell)},
      {"pstate", std::string(kTableErrCell)},
      {"power_draw_w", std::string(kTableErrCell)},
      {"power_limit_w", std::string(kTableErrCell)},
      {"utilization_gpu_percent", std::string(kTableErrCell)},
      {"ecc_volatile_uncorrected", std::string(kTableErrCell)},
      {"mig_mode_enabled", std::string(kTableErrCell)}};
  EXPECT_EQ(b.field_errors, want_errors);
  ASSERT_TRUE(b.processes.has_value());
  EXPECT_TRUE(b.processes->empty());
}

// The 89-column layout (530 and later) with MIG on: the ECC column shows the
// mode, utilisation is N/A, MIG device rows are not GPUs, no processes run.
constexpr const char* kMigLayout = R"(Tue Jul 14 09:00:26 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:00:09.0 Off |                   On |
| N/A   42C    P0             98W /  700W |      59MiB /  81559MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+

+-----------------------------------------------------------------------------------------+
| MIG devices:                                                                            |
+------------------+----------------------------------+-----------+-----------------------+
| GPU  GI  CI  MIG |              Shared Memory-Usage |        Vol|        Shared         |
|      ID  ID  Dev |                Shared BAR1-Usage | SM     Unc| CE ENC  DEC  OFA  JPG |
|                  |                                  |        ECC|                       |
|==================+==================================+===========+=======================|
|  0    2   0   0  |              26MiB / 40448MiB    | 60      0 |  3   0    3    0    3 |
|                  |               0MiB / 24739MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+
|  0    3   0   1  |              17MiB / 20096MiB    | 32      0 |  2   0    2    0    2 |
|                  |               0MiB / 12369MiB    |           |                       |
+------------------+----------------------------------+-----------+-----------------------+

+-----------------------------------------------------------------------------------------+
| Processes:                                                                              |
|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |
|        ID   ID                                                               Usage      |
|=========================================================================================|
|  No running processes found                                                             |
+-----------------------------------------------------------------------------------------+
)";

TEST(NvsmiTable, NewLayoutWithMigDevices) {
  auto s = ParseNvidiaSmiTable(kMigLayout, "mig.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->driver_version, "590.48.01");
  EXPECT_EQ(s->cuda_driver_version, 13010);
  ASSERT_EQ(s->gpus.size(), 1u);
  const GpuStatus& g = s->gpus[0];
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.pci_bus_id, "0000:00:09.0");
  EXPECT_EQ(g.ecc_mode_enabled, true);
  EXPECT_FALSE(g.ecc_volatile_uncorrected.has_value());
  EXPECT_FALSE(g.fan_speed_percent.has_value());
  EXPECT_TRUE(g.fan_speeds_percent.empty());
  EXPECT_EQ(g.temperature_c, 42);
  EXPECT_EQ(g.power_draw_w, 98.0);
  EXPECT_EQ(g.power_limit_w, 700.0);
  EXPECT_EQ(g.memory_used_bytes, 59 * kMiB);
  EXPECT_FALSE(g.utilization_gpu_percent.has_value());
  EXPECT_EQ(g.mig_mode_enabled, true);
  EXPECT_TRUE(g.field_errors.empty());  // N/A is "not available", not an error
  ASSERT_TRUE(g.processes.has_value());
  EXPECT_TRUE(g.processes->empty());
}

// 610's header names the kernel driver "KMD" and the CUDA version "UMD";
// Windows shows the driver model where Linux shows persistence mode; this one
// is `nvidia-smi -i 3` (one GPU, index 3) with drivers before 470's GI/CI
// columns in the process list, and no blank line before it.
TEST(NvsmiTable, KmdHeaderWindowsColumnOneGpuAndOldProcessColumns) {
  constexpr const char* kText = R"(+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 610.57.04              KMD Version: 610.57.04     CUDA UMD Version: 13.3     |
+-----------------------------------------+------------------------+----------------------+
| GPU  Name                  Driver-Model | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|=========================================+========================+======================|
|   3  NVIDIA GeForce RTX 2080 ...  WDDM  |   00000000:0C:00.0  On |                  N/A |
| 37%   40C    P8             38W /  250W |     702MiB /   8192MiB |      5%      Default |
+-----------------------------------------+------------------------+----------------------+
| Processes:                                                                              |
|  GPU       PID   Type   Process name                                         Usage      |
|=========================================================================================|
|    3      2056    C+G   C:\Program Files\NZXT CAM\NZXT CAM.exe                 N/A      |
|    3     12332      C   python                                               1234MiB    |
+-----------------------------------------------------------------------------------------+
)";
  auto s = ParseNvidiaSmiTable(kText, "win.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->driver_version, "610.57.04");
  EXPECT_EQ(s->cuda_driver_version, 13030);
  ASSERT_EQ(s->gpus.size(), 1u);
  const GpuStatus& g = s->gpus[0];
  EXPECT_EQ(g.index, 3u);
  EXPECT_EQ(g.name, "NVIDIA GeForce RTX 2080 ...");
  EXPECT_FALSE(g.persistence_mode.has_value());  // WDDM says nothing about it
  EXPECT_FALSE(g.mig_mode_enabled.has_value());  // no third row
  EXPECT_EQ(g.fan_speed_percent, 37);
  EXPECT_EQ(g.utilization_gpu_percent, 5);
  ASSERT_TRUE(g.processes.has_value());
  ASSERT_EQ(g.processes->size(), 2u);
  EXPECT_EQ((*g.processes)[0].pid, 2056u);
  EXPECT_EQ((*g.processes)[0].name, "C:\\Program Files\\NZXT CAM\\NZXT CAM.exe");
  EXPECT_FALSE((*g.processes)[0].used_memory_bytes.has_value());
  EXPECT_EQ((*g.processes)[1].pid, 12332u);
  EXPECT_EQ((*g.processes)[1].used_memory_bytes, 1234 * kMiB);
}

// A fragment: no date, no process table, CRLF line ends, no final newline.
TEST(NvsmiTable, FragmentWithoutProcessTableHasNoProcessList) {
  std::string text =
      "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\r\n"
      "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\r\n"
      "|===============================+======================+======================|\r\n"
      "|   0  NVIDIA GeForce ...  Off  | 00000000:01:00.0 Off |                  N/A |\r\n"
      "|ERR!   38C    P5    49W / 450W |   2021MiB / 23028MiB |      0%   E. Process |\r\n"
      "+-------------------------------+----------------------+----------------------+";
  auto s = ParseNvidiaSmiTable(text, "frag.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_FALSE(s->driver_version.has_value());
  ASSERT_EQ(s->gpus.size(), 1u);
  const GpuStatus& g = s->gpus[0];
  EXPECT_FALSE(g.processes.has_value());
  EXPECT_EQ(g.temperature_c, 38);
  EXPECT_EQ(g.compute_mode, "Exclusive_Process");
  EXPECT_FALSE(g.ecc_mode_enabled.has_value());  // N/A: ECC off or not supported
  EXPECT_EQ(g.field_errors.size(), 1u);
  EXPECT_EQ(g.field_errors.count("fan_speed_percent"), 1u);
}

// Two runs in one paste, the second straight after the first's process list
// (no blank line): two tables, each from its date line, each parsed alone.
TEST(NvsmiTable, SplitsRunsIntoTablesAtTheirDateLines) {
  std::string second = kOldLayout;
  second.replace(second.find(" 24C "), 5, " 61C ");
  second.replace(second.find("Mon Feb 27 16:08:33"), 19, "Mon Feb 27 16:09:33");
  std::string text = "$ nvidia-smi\n" + std::string(kOldLayout) + second;
  auto tables = SplitNvidiaSmiTables(text);
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].substr(0, 13), "$ nvidia-smi\n");
  EXPECT_EQ(tables[1].substr(0, 24), "Mon Feb 27 16:09:33 2023");
  EXPECT_EQ(tables[0].size() + tables[1].size(), text.size());
  auto first = ParseNvidiaSmiTable(tables[0], "t");
  auto later = ParseNvidiaSmiTable(tables[1], "t");
  ASSERT_TRUE(first.ok() && later.ok());
  EXPECT_EQ(first->gpus[0].temperature_c, 24);
  EXPECT_EQ(later->gpus[0].temperature_c, 61);
  EXPECT_EQ(later->gpus[0].processes->size(), 2u);
  // One table: the text whole; a banner without a GPU table before it does not split.
  EXPECT_EQ(SplitNvidiaSmiTables(kMigLayout).size(), 1u);
  EXPECT_EQ(SplitNvidiaSmiTables(kMigLayout)[0].size(), std::string_view(kMigLayout).size());
  // Parsed as one text anyway, a GPU row repeated replaces the earlier one.
  auto whole = ParseNvidiaSmiTable(text, "t");
  ASSERT_TRUE(whole.ok());
  ASSERT_EQ(whole->gpus.size(), 2u);
  EXPECT_EQ(whole->gpus[0].temperature_c, 61);
}

// `nvidia-smi -l 1` for hours: the latest kMaxTables tables, in order.
TEST(NvsmiTable, KeepsTheLatestTablesOfALongLog) {
  std::string text;
  for (std::size_t i = 0; i < kMaxTables + 5; ++i) text += kOldLayout;
  auto tables = SplitNvidiaSmiTables(text);
  ASSERT_EQ(tables.size(), kMaxTables);
  EXPECT_EQ(tables.back().data() + tables.back().size(), text.data() + text.size());
}

// Drivers before 320: no Persistence-M column, memory in MB ("MiB" in
// fact), "Compute processes:" without a Type column. No rules between GPUs.
TEST(NvsmiTable, Pre340LayoutWithoutRulesBetweenGpus) {
  constexpr const char* kText = R"(+------------------------------------------------------+
| NVIDIA-SMI 4.304.54   Driver Version: 304.54         |
|-------------------------------+----------------------+----------------------+
| GPU  Name                     | Bus-Id        Disp.  | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla M2090              | 0000:08:00.0     Off |                    0 |
| N/A   N/A   P0    76W / 225W  |   0%    9MB / 5375MB |   56%      Default    |
|   1  Tesla M2090              | 0000:09:00.0     Off |                    0 |
| N/A   N/A   P0    77W / 225W  |   0%  4700MB / 5375MB |   0%      Default    |
+-------------------------------+----------------------+----------------------+

+-----------------------------------------------------------------------------+
| Compute processes:                                               GPU Memory |
|  GPU       PID  Process name                                     Usage      |
|=============================================================================|
|    1      4242  python train.py                                    4690MB  |
+-----------------------------------------------------------------------------+
)";
  auto s = ParseNvidiaSmiTable(kText, "old.txt");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->gpus.size(), 2u);
  EXPECT_EQ(s->gpus[0].name, "Tesla M2090");
  EXPECT_FALSE(s->gpus[0].persistence_mode.has_value());
  EXPECT_EQ(s->gpus[1].pci_bus_id, "0000:09:00.0");
  EXPECT_EQ(s->gpus[0].memory_used_bytes, 9 * kMiB);
  EXPECT_EQ(s->gpus[1].memory_used_bytes, 4700 * kMiB);
  EXPECT_EQ(s->gpus[1].memory_total_bytes, 5375 * kMiB);
  EXPECT_EQ(s->gpus[0].power_limit_w, 225.0);
  ASSERT_TRUE(s->gpus[1].processes.has_value());
  ASSERT_EQ(s->gpus[1].processes->size(), 1u);
  EXPECT_EQ((*s->gpus[1].processes)[0].pid, 4242u);
  EXPECT_EQ((*s->gpus[1].processes)[0].name, "python train.py");
  EXPECT_EQ((*s->gpus[1].processes)[0].used_memory_bytes, 4690 * kMiB);
  EXPECT_TRUE(s->gpus[0].processes->empty());
}

// The desktop's own processes (type G) are not compute jobs; Windows
// without administrator rights hides names.
TEST(NvsmiTable, GraphicsOnlyProcessesAreLeftOutHiddenNamesAreEmpty) {
  std::string text = kMigLayout;
  std::size_t at = text.find("|  No running processes found");
  std::size_t end = text.find('\n', at);
  text.replace(at, end - at,
               "|    0   N/A  N/A            1720      G   /usr/bin/gnome-shell                    173MiB |\n"
               "|    0   N/A  N/A            2056    C+G   Insufficient Permissions                  N/A      |");
  auto s = ParseNvidiaSmiTable(text, "t");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->gpus[0].processes->size(), 1u);
  EXPECT_EQ((*s->gpus[0].processes)[0].pid, 2056u);
  EXPECT_EQ((*s->gpus[0].processes)[0].name, "");
}

TEST(NvsmiTable, MoreGpuRowsThanAnyMachineIsAnError) {
  std::string text =
      "| GPU  Name  Persistence-M| Bus-Id  Disp.A | Volatile Uncorr. ECC |\n|===|\n";
  for (int i = 0; i < 1025; ++i) text += "|   " + std::to_string(i % 4096) + "  X  On | | 0 |\n";
  auto s = ParseNvidiaSmiTable(text, "many.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("more than 1024 GPU rows"), std::string::npos)
      << s.error().message;
}

TEST(NvsmiTable, WithoutAGpuTableItIsAOneLineError) {
  for (const char* text : {"", "hello\n", "| NVIDIA-SMI 525.60.13  Driver Version: 525.60.13 |\n",
                           "GPU 0: NVIDIA A100 (UUID: GPU-1)\n"}) {
    auto s = ParseNvidiaSmiTable(text, "x.txt");
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_EQ(s.error().code, ErrorCode::kCorrupt);
    EXPECT_EQ(s.error().message.rfind("x.txt: not an nvidia-smi table: ", 0), 0u)
        << s.error().message;
    EXPECT_EQ(s.error().message.find('\n'), std::string::npos);
  }
  // A GPU row that is not a table row of three cells.
  auto s = ParseNvidiaSmiTable(
      "| GPU  Name | Bus-Id | ECC |\n|====|\n|   0  NVIDIA A40 |\n+---+\n", "y.txt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("'|   0  NVIDIA A40 |' is not a row of the GPU table"),
            std::string::npos)
      << s.error().message;
}

TEST(NvsmiTable, DetectsTablesOnly) {
  EXPECT_TRUE(LooksLikeNvidiaSmiTable(kOldLayout));
  EXPECT_TRUE(LooksLikeNvidiaSmiTable(kMigLayout));
  EXPECT_TRUE(LooksLikeNvidiaSmiTable("$ nvidia-smi\n  | GPU  Name    | Bus-Id  Disp.A |\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiTable("==============NVSMI LOG==============\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiTable("        GPU0    GPU1    CPU Affinity\nGPU0     X      NV12\n"));
  EXPECT_FALSE(LooksLikeNvidiaSmiTable("NVIDIA-SMI has failed because it couldn't communicate "
                                       "with the NVIDIA driver.\n"));
}

// The real tables: GPU counts, versions and the ERR! rows, as each file shows
// them (read by eye).
TEST(NvsmiTable, EveryFixtureTable) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(test::FixtureDir("other"))) {
    GTEST_SKIP() << "shared fixtures not found at " << test::FixtureDir("other");
  }
  struct Want {
    const char* file;
    std::size_t gpus;
    const char* driver;
    int err_gpu;  // index of the GPU with ERR! cells, -1 none
  };
  const Want wants[] = {
      {"bsyonline-nvidia-smi-table-v100x8-470.129.06.txt", 8, "470.129.06", -1},
      {"gpud-nvidia-smi-table-err-fan-eprocess-525.125.06.txt", 1, "525.125.06", 0},
      {"gpud-nvidia-smi-table-h100x8-550.90.07.txt", 8, "550.90.07", -1},
      {"gpuexporter-h100-590.48.01-load-table.txt", 1, "590.48.01", -1},
      {"gpuexporter-h100-mig-590.48.01-idle-table.txt", 1, "590.48.01", -1},
      {"gpuexporter-h200-mig-590.48.01-load-table.txt", 1, "590.48.01", -1},
      {"gpuexporter-l40s-595.80-load-table.txt", 1, "595.80", -1},
      {"gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt", 1, "610.57.04", -1},
      {"gpuexporter-rtx2080super-windows-591.86-idle-table-wddm.txt", 1, "591.86", -1},
      {"open-gpu-kernel-modules-issue-446-nvidia-smi-table-a30x8-err-after-xid119-525.85.12.txt",
       8, "525.85.12", 3},
      {"open-gpu-kernel-modules-issue-446-nvidia-smi-table-a40x8-err-after-xid119-525.60.13.txt",
       8, "525.60.13", 4},
  };
  for (const Want& w : wants) {
    std::string text = test::ReadFixtureFile("other", w.file);
    ASSERT_FALSE(text.empty()) << w.file;
    EXPECT_TRUE(LooksLikeNvidiaSmiTable(text)) << w.file;
    auto s = ParseNvidiaSmiTable(text, w.file);
    ASSERT_TRUE(s.ok()) << s.error().message;
    EXPECT_EQ(s->gpus.size(), w.gpus) << w.file;
    EXPECT_EQ(s->driver_version, w.driver) << w.file;
    for (const GpuStatus& g : s->gpus) {
      EXPECT_EQ(g.pci_bus_id.size(), 12u) << w.file << " GPU " << g.index;
      EXPECT_TRUE(g.memory_total_bytes.has_value()) << w.file << " GPU " << g.index;
      EXPECT_EQ(!g.field_errors.empty(), static_cast<int>(g.index) == w.err_gpu)
          << w.file << " GPU " << g.index;
    }
    for (std::size_t i = 0; i < s->gpus.size(); ++i) EXPECT_EQ(s->gpus[i].index, i) << w.file;
  }
  // Spot checks against the text: the V100 table's processes, the A30 ERR! row.
  auto v100 = ParseNvidiaSmiTable(
      test::ReadFixtureFile("other", "bsyonline-nvidia-smi-table-v100x8-470.129.06.txt"), "v100");
  ASSERT_TRUE(v100.ok());
  ASSERT_TRUE(v100->gpus[5].processes.has_value());
  ASSERT_EQ(v100->gpus[5].processes->size(), 1u);
  EXPECT_EQ((*v100->gpus[5].processes)[0].pid, 230331u);
  EXPECT_EQ((*v100->gpus[5].processes)[0].used_memory_bytes, 32319 * kMiB);
  EXPECT_TRUE(v100->gpus[0].processes->empty());
  auto a30 = ParseNvidiaSmiTable(
      test::ReadFixtureFile(
          "other",
          "open-gpu-kernel-modules-issue-446-nvidia-smi-table-a30x8-err-after-xid119-525.85.12.txt"),
      "a30");
  ASSERT_TRUE(a30.ok());
  EXPECT_EQ(a30->gpus[3].pci_bus_id, "0000:61:00.0");
  EXPECT_EQ(a30->gpus[3].field_errors.size(), 9u);
  EXPECT_EQ(a30->gpus[3].memory_used_bytes, 23025 * kMiB);
  EXPECT_EQ(a30->gpus[1].utilization_gpu_percent, 88);
}

// GPU rows pasted without the banner and the column header: the rows of
// the real tables other/gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt
// (new layout) and other/open-gpu-kernel-modules-issue-446-...-a40x8-...txt
// (old layout, ERR! rows), cut out of them.
TEST(NvsmiTable, RowsWithoutBannerOrHeaderAreRead) {
  std::string table = test::ReadFixtureFile(
      "other", "gpuexporter-rtx2080super-610.57.04-idle-table-kmd-header.txt");
  if (table.empty()) GTEST_SKIP() << "shared fixtures missing";
  std::size_t from = table.find("|   0  NVIDIA GeForce");
  ASSERT_NE(from, std::string::npos);
  std::size_t to = table.find("+---", from);
  std::string rows = table.substr(from, to - from);
  EXPECT_TRUE(LooksLikeNvidiaSmiTable(rows));
  auto doc = ParseNvidiaSmiTable(rows, "rows.txt");
  ASSERT_TRUE(doc.ok()) << doc.error().message;
  ASSERT_EQ(doc->gpus.size(), 1u);
  EXPECT_EQ(doc->gpus[0].pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(doc->gpus[0].temperature_c, 33);
  EXPECT_EQ(doc->gpus[0].memory_used_bytes, 211 * kMiB);
  EXPECT_FALSE(doc->driver_version);

  std::string a40 = test::ReadFixtureFile(
      "other", "open-gpu-kernel-modules-issue-446-nvidia-smi-table-a40x8-err-after-xid119-525.60.13.txt");
  if (a40.empty()) GTEST_SKIP() << "shared fixtures missing";
  std::size_t body = a40.find("|=====");
  ASSERT_NE(body, std::string::npos);
  body = a40.find('\n', body) + 1;
  std::size_t end = a40.find("\n\n", body);
  auto old_rows = ParseNvidiaSmiTable(a40.substr(body, end - body), "a40-rows.txt");
  ASSERT_TRUE(old_rows.ok()) << old_rows.error().message;
  EXPECT_EQ(old_rows->gpus.size(), 8u);
  std::size_t err_gpus = 0;
  for (const GpuStatus& g : old_rows->gpus) err_gpus += g.field_errors.size() >= 5;
  EXPECT_EQ(err_gpus, 1u);  // GPU 4's row of ERR! cells
  // A line that only looks like a row (no bus id) is no table.
  EXPECT_FALSE(LooksLikeNvidiaSmiTable("|   0  something | else | more |\n"));
}

}  // namespace
}  // namespace gpudoctor
