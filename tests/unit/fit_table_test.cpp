#include <gtest/gtest.h>

#include <sstream>

#include "render/ansi.h"
#include "render/fit_table.h"
#include "render/wrap_text.h"

namespace gpudoctor {
namespace fit_table_test_ns {

std::size_t WidestLine(const std::string& text) {
  std::istringstream in(text);
  std::size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, VisibleWidth(line));
  return widest;
}

const std::vector<FitColumn> kColumns = {
    {"GPU", true, 0, 0}, {"Name", false, 4, 8}, {"Util", true, 0, 0}, {"Clock", true, 2, 0}, {"Persist", false, 1, 0},
};
const std::vector<std::vector<std::string>> kRows = {
    {"0", "NVIDIA H100 80GB HBM3", "75%", "1980 MHz", "on"},
    {"1", "NVIDIA H100 80GB HBM3", "100%", "1755 MHz", "off"},
};

TEST(FitTable, WithoutAWidthEveryColumnIsShownInFull) {
  FitResult t = FitTable(kColumns, kRows, std::nullopt, false);
  EXPECT_TRUE(t.dropped.empty());
  EXPECT_NE(t.text.find("NVIDIA H100 80GB HBM3"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("Persist"), std::string::npos);
  EXPECT_EQ(t.text.find("  \n"), std::string::npos) << "no trailing spaces";
}

TEST(FitTable, ColumnsGiveWayInPriorityOrderUntilItFits) {
  // Full: 3+2+21+2+4+2+8+2+7 = 51 columns.
  FitResult t = FitTable(kColumns, kRows, 45, false);
  EXPECT_LE(WidestLine(t.text), 45u) << t.text;
  ASSERT_EQ(t.dropped, std::vector<std::string>{"Persist"});
  EXPECT_NE(t.text.find("NVIDIA H100 80GB HBM3"), std::string::npos);

  t = FitTable(kColumns, kRows, 30, false);
  EXPECT_LE(WidestLine(t.text), 30u) << t.text;
  EXPECT_EQ(t.dropped, (std::vector<std::string>{"Persist", "Clock"}));
  // The name shrinks (cut with "~") rather than go.
  EXPECT_NE(t.text.find("NVIDIA H100 80GB H~"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("100%"), std::string::npos);
}

TEST(FitTable, ColumnsThatNeverGiveWayStayWhenNothingFits) {
  FitResult t = FitTable(kColumns, kRows, 5, false);
  EXPECT_NE(t.text.find("100%"), std::string::npos) << t.text;
  EXPECT_NE(t.text.find("GPU"), std::string::npos);
}

TEST(FitTable, ColouredCellsArePaddedByWhatIsVisible) {
  std::vector<std::vector<std::string>> rows = {{"0", "A", Colorize("75%", Level::kWarning, true), "1 MHz", "on"},
                                                {"10", "B", "100%", "1 MHz", "on"}};
  FitResult t = FitTable(kColumns, rows, std::nullopt, false);
  std::istringstream in(t.text);
  std::string header, first, second;
  std::getline(in, header);
  std::getline(in, first);
  std::getline(in, second);
  EXPECT_EQ(VisibleWidth(first), VisibleWidth(second)) << t.text;
}

TEST(WrapToWidth, BreaksBetweenWordsWithAHangingIndent) {
  const std::string text =
      "  - The GPU's temperature stayed above its slowdown threshold for most of the window\n";
  const std::string wrapped = WrapToWidth(text, 40);
  EXPECT_EQ(wrapped,
            "  - The GPU's temperature stayed above\n"
            "    its slowdown threshold for most of\n"
            "    the window\n");
}

TEST(WrapToWidth, NumberedActionsHangUnderTheirText) {
  EXPECT_EQ(WrapToWidth("    12. Reset the GPU when no process uses it, then watch it\n", 40),
            "    12. Reset the GPU when no process\n"
            "        uses it, then watch it\n");
}

TEST(WrapToWidth, ACommandToTypeStaysOneLine) {
  const std::string line =
      "       $ nvidia-smi --query-gpu=index,pci.bus_id,clocks_event_reasons.active --format=csv\n";
  EXPECT_EQ(WrapToWidth(line, 40), line);
}

TEST(WrapToWidth, ALongWordStaysWhole) {
  const std::string path = "/sys/bus/pci/devices/0000:18:00.0/aer_dev_correctable";
  const std::string wrapped = WrapToWidth("  read " + path + " twice\n", 40);
  EXPECT_EQ(wrapped, "  read\n  " + path + "\n  twice\n");
}

TEST(WrapToWidth, ParagraphsKeepTheirIndentAndColumnsTheirSpacing) {
  EXPECT_EQ(WrapToWidth("  The GPU lowers its clocks to protect itself when it runs hot\n", 30),
            "  The GPU lowers its clocks to\n"
            "  protect itself when it runs\n"
            "  hot\n");
  EXPECT_EQ(WrapToWidth("GPU 0  0000:18:00.0  NVIDIA H100  CRITICAL  thermal.slowdown, thermal.high\n", 62),
            "GPU 0  0000:18:00.0  NVIDIA H100  CRITICAL  thermal.slowdown,\n"
            "  thermal.high\n");
}

TEST(WrapToWidth, ShortLinesAndBlankLinesAreKept) {
  EXPECT_EQ(WrapToWidth("a\n\nb c\n", 80), "a\n\nb c\n");
  EXPECT_EQ(WrapToWidth("no newline at the end", 80), "no newline at the end");
}

}  // namespace
}  // namespace gpudoctor
