// analyze over real pastes from public tickets (tests/data/tickets, each
// cited in its SOURCES.md): the tool's output under a prompt, in a Markdown
// fence, after its command line, with elisions, prose and host prefixes;
// -q excerpts of one block; NCCL's network failures; the driver's GSP and
// reset messages that carry no Xid. Each expectation was checked against
// the paste by hand: what the output shows, and what a support engineer
// should be told. On the main branch before this reader, the first eight
// were refused and the others gave no finding or an info note.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "analyze/analyze_input.h"
#include "diagnosis/diagnose_window.h"

namespace gpudoctor {
namespace {
namespace analyze_tickets_local {

std::string Ticket(const std::string& name) {
  return std::string(TEST_DATA_DIR) + "/tickets/" + name;
}

struct Expected {
  std::string file;
  InputKind kind;
  std::vector<std::pair<std::string, Severity>> findings;  // id, severity; in the diagnosis' order
};

class TicketPaste : public ::testing::TestWithParam<Expected> {};

TEST_P(TicketPaste, IsReadAndGivesTheReviewedFindings) {
  const Expected& e = GetParam();
  AnalyzeResult r = AnalyzeFiles({Ticket(e.file)}, Config{});
  ASSERT_EQ(r.files.size(), 1u);
  ASSERT_TRUE(r.files[0].ok) << r.files[0].error;
  EXPECT_EQ(r.files[0].kind, e.kind) << InputKindName(r.files[0].kind);
  auto d = DiagnoseWindow(r.input, DiagnosisRequest{});
  ASSERT_TRUE(d.ok()) << d.error().message;
  std::vector<std::pair<std::string, Severity>> got;
  for (const Finding& f : d->findings) got.emplace_back(f.id, f.severity);
  EXPECT_EQ(got, e.findings);
}

using S = Severity;
INSTANTIATE_TEST_SUITE_P(
    Tickets, TicketPaste,
    ::testing::Values(
        // nvlink -s after its command line, a "...." elision, links 3 and 5 inactive.
        Expected{"azhpc-diagnostics-73-nvlink-s-elided.txt",
                 InputKind::kNvidiaSmiNvlink,
                 {{"nvlink.errors", S::kWarning}}},
        // nvlink --status under "bash-5.1# ": every link up.
        Expected{
            "bottlerocket-4418-nvlink-status-bash-prompt.txt", InputKind::kNvidiaSmiNvlink, {}},
        // A Fabric block alone, in a fence between sentences: Insufficient Resources.
        Expected{"azhpc-images-506-fabric-insufficient-resources.txt",
                 InputKind::kNvidiaSmiText,
                 {{"nvlink.fabric_registration", S::kCritical}}},
        // "# nvidia-smi -q | grep -C3": Fabric with Health > Summary : Unhealthy.
        Expected{"dra-driver-626-fabric-unhealthy-grep.txt",
                 InputKind::kNvidiaSmiText,
                 {{"nvlink.fabric_health", S::kCritical}}},
        // A Fabric block stuck In Progress, prose, then another node's --query output.
        Expected{"gpu-operator-2511-fabric-in-progress-then-query.txt",
                 InputKind::kNvidiaSmiText,
                 {{"nvlink.fabric_registration", S::kCritical}}},
        // "$ nvidia-smi -q | grep -A8 'Clocks Throttle'": only Idle active, nothing wrong.
        Expected{"kubeflow-68-throttle-reasons-grep.txt", InputKind::kNvidiaSmiText, {}},
        // NCCL before 2.4 printed no "NCCL" word: "WARN Connection closed by remote peer".
        Expected{"horovod-666-connection-closed-pre24.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        // NCCL's IB completion errors, every generation of the line.
        Expected{"nccl-1814-ib-completion-status12.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-1405-ib-completion-sentence-fence.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-tests-252-ib-completion-error4.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-tests-24-ib-completion-error12-oldest.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-2013-ibv-modify-qp-failed.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-914-net-connection-closed.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-tests-166-socketprogress-closed.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        Expected{"nccl-111-connect-failed-refused.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kCritical}}},
        // Still retrying: the job waits, it has not failed yet.
        Expected{"horovod-1408-connect-refused-retrying.txt",
                 InputKind::kKernelLog,
                 {{"nccl.network", S::kWarning}}},
        // A CUDA failure inside NCCL is not a network failure.
        Expected{"nccl-957-mpirun-tagged-nccl-warn.txt", InputKind::kKernelLog, {}},
        // GSP RPCs failing with the GPU lost (status 0xf), and NV_ERR_GPU_IS_LOST.
        Expected{"ogkm-688-rpcsendmessage-failed.txt",
                 InputKind::kKernelLog,
                 {{"xid.fallen_off_bus", S::kCritical}, {"xid.gsp", S::kCritical}}},
        Expected{"ninfer-12-gsp-rmfree-fullchip-reset.txt",
                 InputKind::kKernelLog,
                 {{"xid.gsp", S::kCritical}}},
        // "Reset required [NV_ERR_RESET_REQUIRED]" without an Xid 154.
        Expected{"ogkm-1045-reset-required-pager.txt",
                 InputKind::kKernelLog,
                 {{"xid.recovery_action", S::kCritical}}},
        // GSP firmware RM failed to start, then RmInitAdapter failed: one GPU, one finding.
        Expected{"nvtrust-77-rminitadapter-dmesg.txt",
                 InputKind::kKernelLog,
                 {{"driver.rm_init_failed", S::kCritical}}},
        Expected{"ogkm-1230-rminitadapter-gpun.txt",
                 InputKind::kKernelLog,
                 {{"driver.rm_init_failed", S::kCritical}}},
        // Already read before: prompts over a dmesg and a table stay read as they were.
        Expected{"akash-209-prompts-smi-dmesg-xid79.txt",
                 InputKind::kKernelLog,
                 {{"gpu.lost", S::kCritical}, {"xid.fallen_off_bus", S::kCritical}}},
        Expected{"cbio-38-table-under-prompt.txt",
                 InputKind::kNvidiaSmiTable,
                 {{"config.persistence_mode", S::kInfo}}}),
    [](const ::testing::TestParamInfo<Expected>& param_info) {
      std::string name = param_info.param.file.substr(0, param_info.param.file.find('.'));
      std::replace_if(
          name.begin(), name.end(),
          [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
      return name;
    });

TEST(TicketPaste, TheNoteSaysWhatWasReadAndWhatWasLeftOut) {
  AnalyzeResult r = AnalyzeFiles({Ticket("azhpc-diagnostics-73-nvlink-s-elided.txt")}, Config{});
  ASSERT_EQ(r.files.size(), 1u);
  ASSERT_EQ(r.files[0].notes.size(), 1u);
  const std::string& note = r.files[0].notes[0];
  EXPECT_NE(note.find("nvidia-smi-nvlink (lines 5-11, `nvidia-smi nvlink -s`)"), std::string::npos)
      << note;
  EXPECT_NE(note.find("2 Markdown fences"), std::string::npos) << note;
  EXPECT_NE(note.find("1 elision line"), std::string::npos) << note;
  EXPECT_NE(note.find("1 line of prose"), std::string::npos) << note;
}

}  // namespace analyze_tickets_local
}  // namespace
}  // namespace gpudoctor
