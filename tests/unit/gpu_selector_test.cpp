#include "status/gpu_selector.h"

#include <gtest/gtest.h>

namespace gpudoctor {
namespace {

SystemStatus TwoGpus() {
  SystemStatus s;
  for (unsigned i = 0; i < 3; ++i) {
    GpuStatus g;
    g.index = i;
    g.uuid = "GPU-1111-" + std::to_string(i);
    g.pci_bus_id = "0000:3" + std::to_string(i) + ":00.0";
    s.gpus.push_back(g);
  }
  return s;
}

TEST(GpuSelector, ByIndexUuidAndBusId) {
  auto s = TwoGpus();
  EXPECT_EQ(*SelectGpus(s, {"1"}), (std::vector<std::size_t>{1}));
  EXPECT_EQ(*SelectGpus(s, {"gpu-1111-2"}), (std::vector<std::size_t>{2}));
  EXPECT_EQ(*SelectGpus(s, {"00000000:30:00.0"}), (std::vector<std::size_t>{0}));
  EXPECT_EQ(*SelectGpus(s, {"31:00.0", "0"}), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(SelectGpus(s, {})->size(), 3u);
}

TEST(GpuSelector, UnknownSelectorIsAnError) {
  auto s = TwoGpus();
  auto r = SelectGpus(s, {"7"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--gpu 7"), std::string::npos);
  EXPECT_FALSE(SelectGpus(s, {"GPU-nope"}).ok());
  EXPECT_FALSE(SelectGpus(s, {"99999999999999"}).ok());
}

TEST(GpuSelector, FilterKeepsOnlySelected) {
  auto s = TwoGpus();
  ASSERT_TRUE(FilterGpus(s, {"2"}).ok());
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].index, 2u);
}

TEST(PciBusId, Normalises) {
  EXPECT_EQ(NormalizePciBusId("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("0000:3B:00"), "0000:3b:00.0");
  EXPECT_EQ(NormalizePciBusId("garbage"), "");
  EXPECT_EQ(NormalizePciBusId("3b:00"), "");
  EXPECT_EQ(NormalizePciBusId("0000:3b:0g.0"), "");
  EXPECT_EQ(NormalizePciBusId(""), "");
  EXPECT_EQ(NormalizePciBusId("0000:3b:00.0x"), "");
  EXPECT_EQ(NormalizePciBusId("0000:3b:40.0"), "");  // device > 0x1f
}

// The four ways drivers and people write one device (issue: `--gpu
// PCI:0000:18:00` matched nothing on main).
TEST(PciBusId, EveryWrittenFormIsTheSameDevice) {
  for (const char* form :
       {"18:00.0", "PCI:0000:18:00", "0000:18:00.0", "00000000:18:00.0", "pci:0000:18:00.0"}) {
    EXPECT_EQ(NormalizePciBusId(form), "0000:18:00.0") << form;
    EXPECT_EQ(PciBusIdProblem(form), "") << form;
  }
  SystemStatus s = TwoGpus();
  s.gpus[1].pci_bus_id = "0000:18:00.0";
  EXPECT_EQ(*SelectGpus(s, {"PCI:0000:18:00"}), (std::vector<std::size_t>{1}));
}

TEST(PciBusId, SaysWhyATextIsNotABusId) {
  EXPECT_EQ(PciBusIdProblem("0000:18:3f.0"), "device 0x3f is above 0x1f");
  EXPECT_EQ(PciBusIdProblem("0000:18:00.8"), "function 8 is above 7");
  EXPECT_EQ(PciBusIdProblem("PCI:0000:18:20"), "device 0x20 is above 0x1f");
  EXPECT_NE(PciBusIdProblem("garbage"), "");
  EXPECT_EQ(NormalizePciBusId("PCI:0000:18:20"), "");
}

}  // namespace
}  // namespace gpudoctor
