// ReadPaste over real pastes (tests/data/tickets) and real tool files
// (../shared/fixtures): the wrapping a ticket puts around a tool's output is
// found and left out, and a tool's own file is not taken for a paste.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "analyze/analyze_input.h"
#include "analyze/paste.h"
#include "support/fixtures.h"

namespace gpudoctor {
namespace {
namespace paste_test_local {

std::string ReadTicket(const std::string& name) {
  std::ifstream in(std::string(TEST_DATA_DIR) + "/tickets/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReadPaste, ABashPromptIsACommandAndItsOutputOneBlock) {
  Paste p = ReadPaste(ReadTicket("bottlerocket-4418-nvlink-status-bash-prompt.txt"));
  EXPECT_EQ(p.commands, 1u);
  EXPECT_EQ(p.fences, 1u);  // the paste runs past the stored excerpt: no closing fence
  ASSERT_EQ(p.blocks.size(), 1u);
  EXPECT_EQ(p.blocks[0].command,
            "./x86_64-bottlerocket-linux-gnu/sys-root/usr/libexec/nvidia/tesla/bin/nvidia-smi "
            "nvlink --status");
  EXPECT_EQ(DetectInputKind(p.blocks[0].text), InputKind::kNvidiaSmiNvlink);
  EXPECT_EQ(p.blocks[0].text.rfind("GPU 0: NVIDIA H100 80GB HBM3", 0), 0u);
  EXPECT_EQ(p.prose_lines, 1u);  // "#### NVLink status when MIG is disabled"
}

TEST(ReadPaste, ARootPromptGrepsSeparatorsAndProseAreLeftOut) {
  Paste p = ReadPaste(ReadTicket("dra-driver-626-fabric-unhealthy-grep.txt"));
  EXPECT_EQ(p.commands, 1u);
  EXPECT_EQ(p.fences, 2u);
  EXPECT_EQ(p.elisions, 1u);  // grep's "--"
  EXPECT_EQ(p.prose_lines, 1u);
  ASSERT_EQ(p.blocks.size(), 1u);
  EXPECT_EQ(p.blocks[0].command, "nvidia-smi -q | grep -E -C3 \"ClusterUUID|CliqueId\"");
  EXPECT_EQ(p.blocks[0].text.find("--"), std::string::npos);
}

TEST(ReadPaste, PromptsOfUserAtHostWithAVirtualenvAndInBrackets) {
  Paste venv = ReadPaste(ReadTicket("akash-209-prompts-smi-dmesg-xid79.txt"));
  EXPECT_EQ(venv.commands, 2u);
  ASSERT_EQ(venv.blocks.size(), 2u);
  EXPECT_EQ(venv.blocks[0].command, "nvidia-smi");
  EXPECT_EQ(venv.blocks[1].command, "dmesg -T | grep NVRM");
  Paste bracket = ReadPaste(ReadTicket("cbio-38-table-under-prompt.txt"));
  ASSERT_EQ(bracket.blocks.size(), 1u);
  EXPECT_EQ(bracket.blocks[0].command, "nvidia-smi");
  EXPECT_EQ(DetectInputKind(bracket.blocks[0].text), InputKind::kNvidiaSmiTable);
}

TEST(ReadPaste, AHostPrefixOnEveryLineIsRemovedAndNamed) {
  Paste p = ReadPaste(ReadTicket("ogkm-446-talos-gsp-timeout-reset.txt"));
  ASSERT_EQ(p.hosts.size(), 1u);
  EXPECT_EQ(p.hosts[0], "192.168.11.119");
  ASSERT_FALSE(p.blocks.empty());
  EXPECT_EQ(p.blocks[0].text.rfind("kern: warning: [2026-04-22T21:30:51.52643656Z]", 0), 0u);
  EXPECT_NE(PasteLeftOut(p).find("the host prefix of 192.168.11.119"), std::string::npos);
}

TEST(ReadPaste, ALogWithItsOwnIdentAndAToolMessageAreNoPaste) {
  // "NVRM: ..." on every line is the driver's ident, not a host.
  Paste nvrm = ReadPaste(
      "NVRM: GPU at PCI:0000:a1:00: GPU-979426f2-893a-7cbb-c4cf-81472f89a462\n"
      "NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the "
      "bus.\n"
      "NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus.\n");
  EXPECT_FALSE(nvrm.Marked());
  EXPECT_TRUE(nvrm.hosts.empty());
  // nvidia-smi's own sentence under a GPU line (a MIG GPU's nvlink -s).
  Paste mig = ReadPaste(
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)\n"
      "Nvlink queries are not supported for Devices in MIG mode\n");
  EXPECT_FALSE(mig.Marked());
}

TEST(ReadPaste, NoFixtureOfATool) {
  // Real files as the tools write them (nvidia-smi -q, tables, nvlink, dmesg,
  // journals): none has a fence, a prompt, a command line or host prefixes.
  std::filesystem::path root = test::FixtureDir("");
  if (!std::filesystem::exists(root / "text")) GTEST_SKIP() << root << " not found";
  std::size_t files = 0;
  for (const char* dir : {"text", "other", "kernel"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      std::string head(64 << 10, '\0');
      in.read(head.data(), static_cast<std::streamsize>(head.size()));
      head.resize(static_cast<std::size_t>(in.gcount()));
      if (head.size() == (64u << 10)) continue;  // only what analyze reads as a paste
      ++files;
      Paste p = ReadPaste(head);
      EXPECT_EQ(p.fences, 0u) << entry.path();
      EXPECT_TRUE(p.hosts.empty()) << entry.path() << ": " << (p.hosts.empty() ? "" : p.hosts[0]);
    }
  }
  EXPECT_GT(files, 30u);
}

}  // namespace paste_test_local
}  // namespace
}  // namespace gpudoctor
