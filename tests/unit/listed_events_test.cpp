// Each Xid 79 is listed once under "Kernel events" (main listed the Xid and
// the fallen_off_bus copy the extractor makes for the rules: twice). Lines 7
// and 8 of the shared fixture
// akash-support-issue-209-xid79-crash-dump-multiline-535.161.07-dmesg-T.log.
#include "render/listed_events.h"

#include <gtest/gtest.h>

#include "parse/kernel_events.h"
#include "render/report_text.h"
#include "support/rule_testing.h"

namespace gpudoctor::testing {
namespace listed_events_test_ns {

std::vector<KernelEvent> AkashXid79() {
  std::vector<LogLine> lines;
  for (const char* t :
       {"[Fri Apr  5 21:29:39 2024] NVRM: Xid (PCI:0000:a1:00): 79, pid='<unknown>', "
        "name=<unknown>, GPU has fallen off the bus.",
        "[Fri Apr  5 21:29:39 2024] NVRM: GPU 0000:a1:00.0: GPU has fallen off the bus."}) {
    lines.push_back(LogLine{t, SourceRef{"kern.log", lines.size() + 7}, {}, {}});
  }
  return ExtractKernelEvents(lines, {});
}

TEST(ListedEvents, AnXid79IsListedOnce) {
  std::vector<KernelEvent> events = AkashXid79();
  ASSERT_GE(events.size(), 2u);  // the Xid and the rules' copy
  auto listed = ListedEvents(events);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]->kind, KernelEventKind::kXid);
  EXPECT_EQ(listed[0]->code, 79);
}

TEST(ListedEvents, TheTextReportCountsTheXid79Once) {
  DiagnosisInput input;
  input.kernel = KernelFacts{};
  input.kernel->events = AkashXid79();
  Diagnosis d = Diagnose(input, {});
  ReportContext report;
  report.input = &input;
  report.diagnosis = &d;
  report.generated_at = TestTime(10);
  std::string text = ReportToText(report, false);
  EXPECT_NE(text.find("Kernel events (1)"), std::string::npos) << text;
}

TEST(ListedEvents, ADistinctFallenOffBusLineStays) {
  // The probe-time loss has no Xid: its fallen_off_bus event is no copy.
  std::vector<KernelEvent> events(1);
  events[0].kind = KernelEventKind::kFallenOffBus;
  events[0].source = SourceRef{"kern.log", 3};
  EXPECT_EQ(ListedEvents(events).size(), 1u);
}

}  // namespace
}  // namespace gpudoctor::testing
