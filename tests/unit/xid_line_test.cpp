// The Xid line `gpudoctor inject` writes: the driver's format, which the
// kernel catalog reads back as the same code on the same GPU, for every
// code NVIDIA documents; refused for other codes and malformed bus ids.
#include "knowledge/xid_line.h"

#include <gtest/gtest.h>

#include "knowledge/xid_catalog.h"
#include "parse/kernel_catalog.h"

namespace gpudoctor {
namespace {

TEST(XidLine, TheDriversFormatFromTheCatalog) {
  auto line = XidKernelLine(79, "00000000:3B:00.0");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(*line,
            "NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off "
            "the bus.");
}

TEST(XidLine, EveryDocumentedCodeReadsBackAsItselfOnItsGpu) {
  int checked = 0;
  for (const XidInfo& info : AllXids()) {
    if (!info.in_catalog || info.unused) continue;
    auto line = XidKernelLine(info.code, "0000:18:00.0");
    ASSERT_TRUE(line.ok()) << info.code << ": " << line.error().message;
    const std::string nvrm = line->substr(std::string("NVRM:").size());
    auto match = kevents::MatchNvrm(nvrm);
    ASSERT_TRUE(match.has_value()) << *line;
    EXPECT_EQ(match->code, info.code) << *line;
    EXPECT_EQ(match->pci, "0000:18:00.0") << *line;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST(XidLine, UnknownCodesAndBadBusIdsAreRefused) {
  auto unknown = XidKernelLine(100000, "0000:18:00.0");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "--xid 100000: not an Xid NVIDIA's catalog documents");
  auto bad = XidKernelLine(79, "0000:18:3f.0");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("--gpu 0000:18:3f.0: not a PCI bus id ("), std::string::npos)
      << bad.error().message;
  EXPECT_FALSE(XidKernelLine(79, "").ok());
}

}  // namespace
}  // namespace gpudoctor
