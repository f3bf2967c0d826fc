// One machine, one node: series tied by instance, host labels and GPU
// UUIDs (prom/node_identity.h), and an Xid tied to its GPU by bus id, else
// UUID, else index (prom/series_readings.h).
#include "prom/node_identity.h"

#include <gtest/gtest.h>

#include "prom/series_readings.h"

namespace gpudoctor {
namespace node_identity_test_ns {

using NodeLabels = PromLabels;

TEST(NodeIdentities, AnAgentServingBothNamingsIsOneNodeUnderItsInstance) {
  NodeIdentities ids;
  ids.Add(NodeLabels{{"instance", "127.0.0.1:9400"}, {"pci_bus_id", "0000:18:00.0"}}, true);
  ids.Add(NodeLabels{{"instance", "127.0.0.1:9400"}, {"Hostname", "gpu-node-a"}, {"UUID", "GPU-1"}},
          false);
  ids.Add(NodeLabels{{"instance", "127.0.0.1:9401"}, {"UUID", "GPU-1"}}, true);  // a second agent
  ids.Resolve();
  ASSERT_EQ(ids.Groups().size(), 2u);
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"Hostname", "gpu-node-a"}}), "127.0.0.1:9400");
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"instance", "127.0.0.1:9400"}}), "127.0.0.1:9400");
  // Agents are never tied by a UUID (fake or cloned GPUs).
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"instance", "127.0.0.1:9401"}}), "127.0.0.1:9401");
  EXPECT_EQ(ids.Matching("gpu-node-a").size(), 1u);
  EXPECT_EQ(ids.Matching("127.0.0.1").size(), 2u);
  EXPECT_EQ(ids.Matching("127.0.0.1:9401").size(), 1u);
  EXPECT_TRUE(ids.Matching("127.0.0.2").empty());
  // Never added: as the labels say.
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"Hostname", "elsewhere"}}), "elsewhere");
}

TEST(NodeIdentities, ARestartedExporterIsOneNodeUnderItsNewestName) {
  NodeIdentities ids;
  // The newer pod first: the name must not depend on the order.
  ids.Add(
      NodeLabels{{"instance", "10.1.0.9:9400"}, {"Hostname", "exporter-new"}, {"UUID", "GPU-a"}},
      false, 2000);
  ids.Add(
      NodeLabels{{"instance", "10.1.0.5:9400"}, {"Hostname", "exporter-old"}, {"UUID", "GPU-a"}},
      false, 1000);
  ids.Add(NodeLabels{{"instance", "10.1.0.6:9400"}, {"hostname", "other"}, {"UUID", "GPU-b"}},
          false, 2000);
  ids.Resolve();
  ASSERT_EQ(ids.Groups().size(), 2u);
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"Hostname", "exporter-old"}}), "exporter-new");
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"instance", "10.1.0.5:9400"}}), "exporter-new");
  const auto m = ids.Matching("exporter-old");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->Names(), (std::vector<std::string>{"exporter-new", "exporter-old",
                                                     "10.1.0.5:9400", "10.1.0.9:9400"}));
  EXPECT_EQ(m[0]->Matchers(),
            (std::vector<std::string>{"instance=\"10.1.0.5:9400\"", "instance=\"10.1.0.9:9400\"",
                                      "Hostname=\"exporter-new\"", "Hostname=\"exporter-old\""}));
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"hostname", "other"}}), "other");
}

// A label value may hold a newline: an instance "a\nh:b" alone must not
// keep {instance a, Hostname b} from being tied as one machine.
TEST(NodeIdentities, ANewlineInANameDoesNotKeepAnotherSetFromBeingTied) {
  NodeIdentities ids;
  ids.Add(NodeLabels{{"instance", "a\nh:b"}}, false, 1000);
  ids.Add(NodeLabels{{"instance", "a"}, {"Hostname", "b"}}, false, 1000);
  ids.Resolve();
  EXPECT_EQ(ids.Groups().size(), 2u);
  EXPECT_EQ(ids.NodeOf(NodeLabels{{"instance", "a"}}), ids.NodeOf(NodeLabels{{"Hostname", "b"}}));
}

TEST(NodeIdentities, MatchersEscapeQuotesAndBackslashesInNames) {
  // A name with a quote or a backslash must stay one PromQL string literal.
  NodeIdentities ids;
  ids.Add(NodeLabels{{"instance", "10.1.0.7:9400"}, {"Hostname", "rack\\7 \"b\""}, {"UUID", "GPU-q"}},
          false, 1000);
  ids.Resolve();
  const auto m = ids.Matching("rack\\7 \"b\"");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0]->Matchers(), (std::vector<std::string>{"instance=\"10.1.0.7:9400\"",
                                                        "Hostname=\"rack\\\\7 \\\"b\\\"\""}));
}

PromSeries Labelled(NodeLabels labels, std::vector<std::pair<double, double>> points) {
  PromSeries s;
  s.labels = std::move(labels);
  for (auto [t, v] : points) s.points.push_back(PromPoint{t, v});
  return s;
}

std::vector<std::string> XidGpus(const SeriesReadings& r) {
  std::vector<std::string> out;
  DiagnosisInput in = r.InputFor("n", Config{}, WallTime{}, WallTime{});
  for (const auto& e : in.kernel->events) out.push_back(e.pci_bus_id);
  return out;
}

TEST(SeriesReadings, AnXidWithoutBusIdIsTiedByUuidThenIndex) {
  // dcgm-exporter 2.x-3.3.5: gpu, UUID and device, no pci_bus_id.
  SeriesReadings old_exporter;
  const NodeLabels gpu1 = {
      {"Hostname", "n"}, {"gpu", "1"}, {"UUID", "GPU-1"}, {"device", "nvidia1"}};
  old_exporter.AddFieldSeries(Labelled(gpu1, {{100, 60}}), "DCGM_FI_DEV_GPU_TEMP");
  old_exporter.AddDcgmXidSeries(Labelled(gpu1, {{100, 48}}), 60, 0);
  EXPECT_EQ(XidGpus(old_exporter), (std::vector<std::string>{"index:1"}));
  DiagnosisInput in = old_exporter.InputFor("n", Config{}, WallTime{}, WallTime{});
  ASSERT_EQ(in.gpus.size(), 1u);
  EXPECT_EQ(in.gpus[0].key, "index:1");  // as the agent names a GPU without a bus id

  // The GPU's readings name its bus; an Xid series with its UUID alone, or
  // its device alone, is still that GPU's.
  SeriesReadings mixed;
  mixed.AddFieldSeries(
      Labelled(
          {{"Hostname", "n"}, {"gpu", "0"}, {"UUID", "GPU-0"}, {"pci_bus_id", "00000000:3B:00.0"}},
          {{100, 60}}),
      "DCGM_FI_DEV_GPU_TEMP");
  mixed.AddDcgmXidSeries(Labelled({{"Hostname", "n"}, {"UUID", "GPU-0"}}, {{100, 79}}), 60, 0);
  mixed.AddDcgmXidCountSeries(Labelled({{"Hostname", "n"}, {"UUID", "GPU-0"}, {"xid", "43"}},
                                       {{100, 1}, {160, 1}, {220, 3}}),
                              60, 0);
  EXPECT_EQ(XidGpus(mixed),
            (std::vector<std::string>{"0000:3b:00.0", "0000:3b:00.0", "0000:3b:00.0"}));
  DiagnosisInput m = mixed.InputFor("n", Config{}, WallTime{}, WallTime{});
  std::size_t xid43 = 0;
  for (const auto& e : m.kernel->events) xid43 += e.code == 43 ? e.count : 0;
  EXPECT_EQ(xid43, 3u);  // 1, then a rise of 2
  EXPECT_EQ(GpuOfLabels({{"device", "nvidia3"}}).gpu, "3");
  EXPECT_EQ(GpuOfLabels({{"device", "nvidia-uvm"}}).gpu, "");
}

}  // namespace
}  // namespace gpudoctor
