// The catalog rows for NCCL's network failures, the GSP calls that failed
// and the driver's reset and lost-GPU status codes, on lines from public
// tickets (tests/data/tickets/SOURCES.md names each), and the GPU named by a
// bus id printed without its PCI domain.
#include <gtest/gtest.h>

#include <string>

#include "parse/kernel_catalog.h"

namespace gpudoctor {
namespace {
namespace kernel_catalog_nccl_gsp_local {

using kevents::MatchNvrm;
using kevents::MatchOther;

std::string NcclDetail(std::string_view line) {
  auto m = MatchOther(line, {});
  if (!m) return "<none>";
  EXPECT_EQ(m->kind, KernelEventKind::kNcclNetwork) << line;
  return m->detail;
}

TEST(NcclNetworkLines, CompletionErrorsNameStatusMeaningVendorErrorPeerAndGids) {
  // nccl#1814 (2025), the IB plugin's format.
  EXPECT_EQ(NcclDetail("hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got "
                       "completion from peer 172.36.143.59<44206> with status=12 opcode=129 "
                       "len=65536 vendor err 129 (Recv) localGid ::ffff:29.87.88.182 "
                       "remoteGids::ffff:29.87.4.221"),
            "completion error 12 (transport retry counter exceeded), vendor err 129, peer "
            "172.36.143.59<44206>, local GID ::ffff:29.87.88.182, remote GID "
            "::ffff:29.87.4.221");
  // nccl-tests#252: "with error 4, opcode ..." (NCCL 2.1x).
  EXPECT_EQ(NcclDetail("kolyoz2:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got "
                       "completion from peer 10.0.35.1<49189> with error 4, opcode 5327, len "
                       "5327, vendor err 81 (Send)"),
            "completion error 4 (local protection error), vendor err 81, peer 10.0.35.1<49189>");
  // nccl-tests#24 (2019): no peer yet.
  EXPECT_EQ(NcclDetail("gpu5:35917:35994 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got "
                       "completion with error 12, opcode 1, len 0, vendor err 129"),
            "completion error 12 (transport retry counter exceeded), vendor err 129");
}

TEST(NcclNetworkLines, QueuePairSocketAndConnectFailures) {
  // nccl#2013 (2026).
  EXPECT_EQ(NcclDetail("[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL "
                       "WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev "
                       "mlx_x:1, curr state INIT, next state RTR, local GID index 3"),
            "ibv_modify_qp failed, 110 Connection timed out, device mlx_x:1");
  // nccl#914, nccl-tests#166, horovod#666 (pre-2.4, no "NCCL" word).
  EXPECT_EQ(NcclDetail("host:22337:22400 [6] misc/socket.cc:521 NCCL WARN Net : Connection closed "
                       "by remote peer 10.104.148.191<37877>"),
            "connection closed by remote peer, peer 10.104.148.191<37877>");
  EXPECT_EQ(NcclDetail("gpu004:2200689:2200706 [3] misc/socket.cc:49 NCCL WARN socketProgress: "
                       "Connection closed by remote peer gpu004.ds-a4-r02.abc.com<55693>"),
            "connection closed by remote peer, peer gpu004.ds-a4-r02.abc.com<55693>");
  EXPECT_EQ(NcclDetail("seyun:17283:17549 [3] include/socket.h:371 WARN Connection closed by "
                       "remote peer"),
            "connection closed by remote peer");
  // horovod#1408, nccl#111.
  EXPECT_EQ(NcclDetail("hostname:26407:26474 NCCL INFO Call to connect returned Connection "
                       "refused, retrying..."),
            "connection refused, retrying");
  EXPECT_EQ(NcclDetail("*server name* [0] include/socket.h:185 WARN Call to connect failed : "
                       "Connection refused"),
            "connection refused");
}

TEST(NcclNetworkLines, OtherTextWithTheWordsIsNoEvent) {
  // Not NCCL's: a shell's own message, a web server's.
  EXPECT_FALSE(MatchOther("ssh: connect to host 10.0.0.1 port 22: Connection refused", {}));
  EXPECT_FALSE(
      MatchOther("curl: (7) Failed to connect to localhost port 80: Connection refused", {}));
  // NCCL's lines that say nothing failed.
  EXPECT_FALSE(
      MatchOther("node2:22555:22555 [0] NCCL INFO Channel 00/0 : 2[1] -> 1[0] [receive] "
                 "via NET/Socket/0",
                 {}));
}

TEST(NvrmWithoutXid, GspCallsThatFailedNameTheCallFunctionAndStatus) {
  // open-gpu-kernel-modules#688, ninfer#12, open-gpu-kernel-modules#446.
  auto send = MatchNvrm(
      " _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn "
      "76!");
  ASSERT_TRUE(send);
  EXPECT_EQ(send->kind, KernelEventKind::kGspTimeout);
  EXPECT_EQ(send->detail, "RPC failed: rpcSendMessage, fn 76, status 0x0000000f");
  auto free = MatchNvrm(
      " GPU0 rpcRmApiFree_GSP: GspRmFree failed: hClient=0xc1d00018; "
      "hObject=0x5c00002f; paramsStatus=0x00000000; status=0x0000000f");
  ASSERT_TRUE(free);
  EXPECT_EQ(free->detail, "RPC failed: GspRmFree, status 0x0000000f");
  EXPECT_EQ(free->gpu_number, 0);
  auto poll = MatchNvrm(" _issueRpcAndWait: rpcRecvPoll timedout for fn 76 sequence 4129!");
  ASSERT_TRUE(poll);
  EXPECT_EQ(poll->detail, "RPC failed: rpcRecvPoll, fn 76");
}

TEST(NvrmWithoutXid, ResetRequiredAndGpuLostStatusCodes) {
  // open-gpu-kernel-modules#1045 (the pager cut the line: as pasted).
  auto reset = MatchNvrm(
      " GPU0 nvCheckOkFailedNoLog: Check failed: Reset required "
      "[NV_ERR_RESET_REQUIRED] (0x00000062) returned from "
      "_gpushareddataSendDataPollRpc(pGpu, polle>");
  ASSERT_TRUE(reset);
  EXPECT_EQ(reset->kind, KernelEventKind::kRecoveryAction);
  EXPECT_EQ(reset->detail, "GPU Reset Required");
  // A check that merely names the code is not the code returned.
  auto check = MatchNvrm(
      " GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || "
      "(status == NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844");
  EXPECT_TRUE(!check || check->kind != KernelEventKind::kRecoveryAction);
  auto lost = MatchNvrm(
      " nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus "
      "[NV_ERR_GPU_IS_LOST] (0x0000000F) returned from rmStatus @ "
      "kernel_ce_gv100.c:106");
  ASSERT_TRUE(lost);
  EXPECT_EQ(lost->kind, KernelEventKind::kFallenOffBus);
}

TEST(NvrmWithoutXid, ABusIdPrintedWithoutItsDomainNamesTheGpu) {
  // The form the issue quotes; no public paste of it was found.
  auto m = MatchNvrm(" GPU 18:00.0: GPU has fallen off the bus.");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->kind, KernelEventKind::kFallenOffBus);
  EXPECT_EQ(m->pci, "0000:18:00.0");
  // With the domain it is read as before; a GPU number is not a bus id.
  auto full = MatchNvrm(" GPU 0000:a1:00.0: GPU has fallen off the bus.");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->pci, "0000:a1:00.0");
  auto number = MatchNvrm(" GPU6 RmInitAdapter: Cannot initialize GSP firmware RM");
  ASSERT_TRUE(number);
  EXPECT_EQ(number->pci, "");
}

}  // namespace kernel_catalog_nccl_gsp_local
}  // namespace
}  // namespace gpudoctor
