// The fabric in the store: RDMA port readings (cells, chunks, windows,
// retention, thinning), the GPUs' NVLink fabric registration in the samples,
// the opening of stores written before either, and the history `report`
// draws from them (state changes marked down, drop or flap; error rates).
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "report/fabric_history.h"
#include "store/rdma_cells.h"
#include "store/store.h"
#include "store/store_sqlite.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor {
namespace store_fabric_test_ns {

using test::At;

RdmaPort IbPort(int state, std::uint64_t symbol_error, std::uint64_t rcv_bytes) {
  RdmaPort p;
  p.port = 1;
  p.state = IbPortState{state, state == 4 ? "ACTIVE" : "DOWN"};
  p.phys_state = IbPortState{state == 4 ? 5 : 2, state == 4 ? "LinkUp" : "Polling"};
  p.rate_gbps = 400;
  p.rate_text = "400 Gb/sec (4X NDR)";
  p.link_layer = "InfiniBand";
  p.active = state == 4;
  p.counters = {RdmaCounter{"link_downed", false, 255},
                RdmaCounter{"port_rcv_data", false, rcv_bytes},
                RdmaCounter{"symbol_error", false, symbol_error},
                RdmaCounter{"out_of_buffer", true, 0xffff'ffff'ffff'ffffULL}};
  return p;
}

RdmaFacts Reading(std::int64_t second, int state, std::uint64_t symbol_error) {
  RdmaFacts f;
  f.read_at = At(second);
  RdmaDevice d;
  d.name = "mlx5_0";
  d.fw_version = "28.39.1002";
  d.hca_type = "MT4129";
  d.pci_bus_id = "0000:1a:00.0";
  d.numa_node = 0;
  d.nearest_gpus = {"0000:18:00.0", "0000:19:00.0"};
  d.ports = {IbPort(state, symbol_error, 1000 + static_cast<std::uint64_t>(second) * 4096)};
  RdmaDevice roce;
  roce.name = "mlx5_bond_0";
  RdmaPort p;
  p.port = 1;
  p.state = IbPortState{4, "ACTIVE"};
  p.active = true;
  p.link_layer = "Ethernet";
  p.roce = true;
  p.counters = {RdmaCounter{"roce_slow_restart", true, 3}};
  roce.ports = {p};
  f.devices = {d, roce};
  return f;
}

void ExpectSamePorts(const RdmaFacts& got, const RdmaFacts& want) {
  ASSERT_EQ(got.devices.size(), want.devices.size());
  EXPECT_EQ(got.read_at, want.read_at);
  for (std::size_t i = 0; i < want.devices.size(); ++i) {
    const RdmaDevice& g = got.devices[i];
    const RdmaDevice& w = want.devices[i];
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(g.fw_version, w.fw_version);
    EXPECT_EQ(g.hca_type, w.hca_type);
    EXPECT_EQ(g.pci_bus_id, w.pci_bus_id);
    EXPECT_EQ(g.numa_node, w.numa_node);
    EXPECT_EQ(g.nearest_gpus, w.nearest_gpus);
    ASSERT_EQ(g.ports.size(), w.ports.size());
    for (std::size_t k = 0; k < w.ports.size(); ++k) {
      const RdmaPort& gp = g.ports[k];
      const RdmaPort& wp = w.ports[k];
      EXPECT_EQ(gp.port, wp.port);
      ASSERT_EQ(gp.state.has_value(), wp.state.has_value());
      if (wp.state) {
        EXPECT_EQ(gp.state->code, wp.state->code);
        EXPECT_EQ(gp.state->name, wp.state->name);
      }
      ASSERT_EQ(gp.phys_state.has_value(), wp.phys_state.has_value());
      if (wp.phys_state) {
        EXPECT_EQ(gp.phys_state->name, wp.phys_state->name);
      }
      EXPECT_EQ(gp.rate_gbps, wp.rate_gbps);
      EXPECT_EQ(gp.rate_text, wp.rate_text);
      EXPECT_EQ(gp.link_layer, wp.link_layer);
      EXPECT_EQ(gp.roce, wp.roce);
      EXPECT_EQ(gp.active, wp.active);
      ASSERT_EQ(gp.counters.size(), wp.counters.size());
      for (const RdmaCounter& c : wp.counters) {
        EXPECT_EQ(gp.Counter(c.name), c.value) << c.name;
      }
    }
  }
}

TEST(RdmaCells, ReadingsRoundTripThroughAChunk) {
  std::vector<RdmaFacts> want = {Reading(0, 4, 0), Reading(10, 1, 7), Reading(20, 4, 9)};
  want[2].devices[0].ports[0].counters.push_back(RdmaCounter{"link_error_recovery", false, 2});
  ColumnSetBuilder builder;
  for (const RdmaFacts& f : want) {
    std::vector<NamedCell> cells;
    RdmaToCells(f, cells);
    builder.AddRow(
        std::chrono::duration_cast<std::chrono::milliseconds>(f.read_at->time_since_epoch())
            .count(),
        cells);
  }
  auto blob = EncodeColumnSet(builder.Take());
  ASSERT_TRUE(blob.ok());
  auto set = DecodeColumnSet(*blob);
  ASSERT_TRUE(set.ok());
  auto got = DecodeRdmaReadings(*set);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) ExpectSamePorts(got[i], want[i]);
  // Counters by name, counters/ before hw_counters/.
  EXPECT_EQ(got[2].devices[0].ports[0].counters.back().name, "out_of_buffer");
  EXPECT_EQ(got[2].devices[0].ports[0].counters.front().name, "link_downed");
}

// A device whose ports/ could not be read is kept with its own facts and no
// port: its cells read back without one (a port was once taken for them).
TEST(RdmaCells, ADeviceWithoutPortsRoundTrips) {
  RdmaFacts f = Reading(0, 4, 0);
  f.devices[0].ports.clear();
  std::vector<NamedCell> cells;
  RdmaToCells(f, cells);
  ColumnSetBuilder builder;
  builder.AddRow(0, cells);
  auto got = DecodeRdmaReadings(builder.Take());
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].devices.size(), 2u);
  EXPECT_EQ(got[0].devices[0].name, "mlx5_0");
  EXPECT_EQ(got[0].devices[0].fw_version, "28.39.1002");
  EXPECT_EQ(got[0].devices[0].pci_bus_id, "0000:1a:00.0");
  EXPECT_TRUE(got[0].devices[0].ports.empty());
  ASSERT_EQ(got[0].devices[1].ports.size(), 1u);
  EXPECT_TRUE(got[0].devices[1].ports[0].active);
}

TEST(RdmaCells, NamesThisVersionDoesNotKnowAreIgnored) {
  ColumnSetBuilder builder;
  builder.AddRow(1000, {{"mlx5_0/1.state", Cell(std::int64_t{4})},
                        {"mlx5_0/1.future_member", Cell(std::int64_t{1})},
                        {"mlx5_0:future", Cell(std::string("x"))},
                        {"no-separator", Cell(std::int64_t{1})},
                        {"/1.state", Cell(std::int64_t{4})},
                        {"mlx5_0/x.state", Cell(std::int64_t{4})}});
  auto got = DecodeRdmaReadings(builder.Take());
  ASSERT_EQ(got.size(), 1u);
  ASSERT_EQ(got[0].devices.size(), 1u);
  ASSERT_EQ(got[0].devices[0].ports.size(), 1u);
  EXPECT_TRUE(got[0].devices[0].ports[0].active);
}

TEST(RdmaCells, ThinningKeepsEveryStateChange) {
  std::vector<RdmaFacts> readings;
  for (int i = 0; i < 2000; ++i) readings.push_back(Reading(i, i == 1234 ? 1 : 4, 0));
  auto thin = ThinRdmaReadings(readings, 100);
  EXPECT_LE(thin.size(), 200u);
  EXPECT_GE(thin.size(), 100u);
  bool down = false;
  for (const RdmaFacts& f : thin) down = down || !f.devices[0].ports[0].active;
  EXPECT_TRUE(down);
  EXPECT_EQ(thin.front().read_at, At(0));
  EXPECT_EQ(thin.back().read_at, At(1999));
  EXPECT_EQ(
      ThinRdmaReadings(std::vector<RdmaFacts>(readings.begin(), readings.begin() + 50), 100).size(),
      50u);
}

StoreOptions FabricStoreOptions(const test::TempDir& dir, bool read_only = false) {
  StoreOptions o;
  o.data_dir = dir.path().string();
  o.read_only = read_only;
  return o;
}

TEST(StoreFabric, RdmaReadingsRoundTripPendingAndSealed) {
  test::TempDir dir;
  auto store = test::OpenOrDie(FabricStoreOptions(dir));
  // 0..590 s fill one chunk span; 600 s seals it; 610 s stays pending.
  std::vector<RdmaFacts> want;
  for (int s = 0; s <= 610; s += 10) want.push_back(Reading(s, s == 300 ? 1 : 4, s / 100));
  for (const RdmaFacts& f : want) ASSERT_TRUE(store->AppendRdma(*f.read_at, f).ok());
  ASSERT_TRUE(store->AppendRdma(At(620), RdmaFacts{}).ok());  // no devices: not recorded
  EXPECT_EQ(store->Stats().rdma_readings, static_cast<std::int64_t>(want.size()));
  auto w = store->ReadWindow(At(0), At(700), {});
  ASSERT_TRUE(w.ok()) << w.error().message;
  ASSERT_EQ(w->rdma.size(), want.size());
  EXPECT_FALSE(w->rdma_downsampled);
  for (std::size_t i = 0; i < want.size(); ++i) ExpectSamePorts(w->rdma[i], want[i]);
  auto part = store->ReadWindow(At(295), At(305), {});
  ASSERT_TRUE(part.ok());
  ASSERT_EQ(part->rdma.size(), 1u);
  EXPECT_FALSE(part->rdma[0].devices[0].ports[0].active);
  // Flush seals the pending readings; they read the same.
  ASSERT_TRUE(store->Flush().ok());
  auto sealed = store->ReadWindow(At(600), At(700), {});
  ASSERT_TRUE(sealed.ok());
  ASSERT_EQ(sealed->rdma.size(), 2u);
  ExpectSamePorts(sealed->rdma[1], want.back());
}

TEST(StoreFabric, RdmaReadingsFollowRawRetention) {
  test::TempDir dir;
  StoreOptions o = FabricStoreOptions(dir);
  o.raw_retention_days = 1;
  auto store = test::OpenOrDie(o);
  ASSERT_TRUE(store->AppendRdma(At(0), Reading(0, 4, 0)).ok());
  const std::int64_t later = 2 * 86400;
  ASSERT_TRUE(store->AppendRdma(At(later), Reading(later, 4, 0)).ok());  // seals the first
  ASSERT_TRUE(store->AppendSample(At(later + 1), test::MakeSystem(1, later + 1)).ok());
  auto old = store->ReadWindow(At(-10), At(10), {});
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->rdma.empty());
  auto recent = store->ReadWindow(At(later - 10), At(later + 10), {});
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->rdma.size(), 1u);
}

GpuFabric Fabric(FabricState state, bool degraded) {
  GpuFabric f;
  f.state = state;
  if (state == FabricState::kCompleted) {
    f.status_code = 0;
    f.status = "Success";
  }
  f.clique_id = 7;
  f.cluster_uuid = "9b1f5d4e-0000-4000-8000-00000000abcd";
  f.health_mask = degraded ? 1u : 0u;
  f.degraded_bandwidth = degraded;
  f.route_recovery = false;
  f.route_unhealthy = false;
  f.access_timeout_recovery = false;
  f.health_summary = degraded ? FabricHealthSummary::kLimitedCapacity : FabricHealthSummary::kHealthy;
  return f;
}

TEST(StoreFabric, GpuFabricStateRoundTripsRawAndPerMinute) {
  test::TempDir dir;
  auto store = test::OpenOrDie(FabricStoreOptions(dir));
  for (int s = 0; s < 4 * 3600; s += 30) {
    SystemStatus sys = test::MakeSystem(1, s);
    sys.gpus[0].fabric = s < 1200 ? Fabric(FabricState::kInProgress, false)
                                  : Fabric(FabricState::kCompleted, s >= 2400);
    ASSERT_TRUE(store->AppendSample(At(s), sys).ok());
  }
  ASSERT_TRUE(store->Flush().ok());
  auto raw = store->ReadWindow(At(1150), At(1250), {});
  ASSERT_TRUE(raw.ok());
  ASSERT_FALSE(raw->downsampled);
  ASSERT_EQ(raw->gpus.size(), 1u);
  const auto& first = raw->gpus[0].readings.front().fabric;
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->state, FabricState::kInProgress);
  EXPECT_FALSE(first->status_code.has_value());
  const auto& last = raw->gpus[0].latest().fabric;
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->state, FabricState::kCompleted);
  EXPECT_EQ(last->status, "Success");
  EXPECT_EQ(last->status_code, 0);
  EXPECT_EQ(last->clique_id, 7u);
  EXPECT_EQ(last->cluster_uuid, "9b1f5d4e-0000-4000-8000-00000000abcd");
  EXPECT_EQ(last->health_mask, 0u);
  EXPECT_EQ(last->degraded_bandwidth, false);
  EXPECT_EQ(last->health_summary, FabricHealthSummary::kHealthy);
  // A long window reads per-minute readings: each keeps the minute's last state.
  auto day = store->ReadWindow(At(0), At(4 * 3600), {});
  ASSERT_TRUE(day.ok());
  ASSERT_TRUE(day->downsampled);
  ASSERT_FALSE(day->gpus.empty());
  const auto& end = day->gpus[0].latest().fabric;
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->state, FabricState::kCompleted);
  EXPECT_EQ(end->degraded_bandwidth, true);
  EXPECT_EQ(end->health_summary, FabricHealthSummary::kLimitedCapacity);
  EXPECT_EQ(day->gpus[0].readings.front().fabric->state, FabricState::kInProgress);
}

int UserVersion(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_stmt* stmt = nullptr;
  int version = -1;
  if (sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
      sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    version = sqlite3_column_int(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return version;
}

// A store written before the RDMA tables (schema 2, and schema 1) reads
// as it is, without port readings, and the next writer upgrades it.
TEST(StoreFabric, StoresFromBeforeTheRdmaTablesOpenAndUpgrade) {
  for (const char* downgrade :
       {"DROP TABLE rdma_pending; DROP TABLE rdma_chunks; PRAGMA user_version=2",
        "DROP TABLE rdma_pending; DROP TABLE rdma_chunks; ALTER TABLE events DROP COLUMN "
        "gpu_number; PRAGMA user_version=1"}) {
    SCOPED_TRACE(downgrade);
    test::TempDir dir;
    const std::string path = (dir.path() / kStoreFile).string();
    {
      auto store = test::OpenOrDie(FabricStoreOptions(dir));
      ASSERT_TRUE(store->AppendSample(At(1), test::MakeSystem(2, 1)).ok());
      ASSERT_TRUE(store->AppendRdma(At(1), Reading(1, 4, 0)).ok());
      ASSERT_TRUE(store->Flush().ok());
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, downgrade, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
    {
      auto reader = Store::Open(FabricStoreOptions(dir, true));
      ASSERT_TRUE(reader.ok()) << reader.error().message;
      auto w = (*reader)->ReadWindow(At(0), At(10), {});
      ASSERT_TRUE(w.ok()) << w.error().message;
      EXPECT_EQ(w->gpus.size(), 2u);
      EXPECT_TRUE(w->rdma.empty());
      EXPECT_EQ((*reader)->Stats().rdma_readings, 0);
    }
    EXPECT_LT(UserVersion(path), 3);
    {
      auto store = test::OpenOrDie(FabricStoreOptions(dir));
      ASSERT_TRUE(store->AppendRdma(At(2), Reading(2, 1, 0)).ok());
      auto w = store->ReadWindow(At(0), At(10), {});
      ASSERT_TRUE(w.ok()) << w.error().message;
      ASSERT_EQ(w->rdma.size(), 1u);
      EXPECT_FALSE(w->rdma[0].devices[0].ports[0].active);
      EXPECT_EQ(w->gpus.size(), 2u);
    }
    EXPECT_EQ(UserVersion(path), kStoreSchemaVersion);
  }
}

// The history `report` draws: a port down for 20 s and back is a flap, one
// down for 5 min and back a drop then a flap; symbol errors give a rate.
TEST(FabricHistory, PortChangesAreMarkedAndErrorRatesComputed) {
  DiagnosisInput input;
  input.network = NetFacts{};
  std::vector<RdmaFacts> readings;
  std::uint64_t symbols = 0;
  for (int s = 0; s <= 900; s += 10) {
    const bool down = (s >= 100 && s < 120) || (s >= 300 && s < 600);
    if (s >= 700 && s < 800) symbols += 50;  // 5 per second for 100 s
    readings.push_back(Reading(s, down ? 1 : 4, symbols));
  }
  input.network->rdma = readings.back();
  readings.pop_back();
  input.rdma_history = readings;
  SystemStatus sys = test::MakeSystem(1, 0);
  GpuSeries g;
  g.key = sys.gpus[0].pci_bus_id;
  for (int s : {0, 10, 20}) {
    GpuStatus r = sys.gpus[0];
    r.fabric = Fabric(s == 0 ? FabricState::kInProgress : FabricState::kCompleted, s == 20);
    g.readings.push_back(r);
    g.times.push_back(At(s));
  }
  input.gpus = {g};
  Timeline t;
  AddFabricHistory(input, t);
  std::vector<std::string> marks;
  for (const StateChange& c : t.changes) {
    if (c.kind == "rdma_port") marks.push_back(c.mark);
  }
  EXPECT_EQ(marks, (std::vector<std::string>{"down", "flap", "drop", "flap"}));
  ASSERT_EQ(t.rdma_ports.size(), 2u);
  const RdmaPortSeries& p = t.rdma_ports[0];
  EXPECT_EQ(p.port, "mlx5_0 port 1");
  EXPECT_EQ(p.flaps, 2u);
  EXPECT_EQ(p.drops, 1u);
  EXPECT_DOUBLE_EQ(p.max_errors_per_s, 5.0);
  EXPECT_EQ(p.increases.at("symbol_error"), 500u);
  EXPECT_EQ(p.increases.count("port_rcv_data"), 0u);  // traffic, not errors
  EXPECT_EQ(p.increases.count("link_downed"), 0u);    // saturated: no rise
  EXPECT_EQ(p.error_rates.size(), 90u);
  EXPECT_EQ(t.rdma_ports[1].flaps, 0u);
  // The drop's down change carries how long it lasted.
  const StateChange* drop = nullptr;
  for (const StateChange& c : t.changes) {
    if (c.mark == "drop") drop = &c;
  }
  ASSERT_NE(drop, nullptr);
  EXPECT_EQ(drop->at, At(300));
  EXPECT_DOUBLE_EQ(drop->down_s.value_or(0), 300);
  EXPECT_EQ(drop->from, "4: ACTIVE");
  EXPECT_EQ(drop->to, "1: DOWN");
  // The GPU's fabric: registered, then degraded.
  std::vector<std::string> fabric;
  for (const StateChange& c : t.changes) {
    if (c.kind == "nvlink_fabric") fabric.push_back(c.to);
  }
  EXPECT_EQ(fabric, (std::vector<std::string>{"completed, Success",
                                              "completed, Success; degraded bandwidth"}));
}

}  // namespace store_fabric_test_ns
}  // namespace gpudoctor
