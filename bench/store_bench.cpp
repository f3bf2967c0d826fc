// Store micro-benchmarks: the agent's per-second AppendSample of 8 GPUs,
// and ReadWindow of 1 h raw and 6 h per-minute over 8 simulated GPUs.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "bench/store_sim.h"
#include "store/store.h"

namespace gpudoctor::bench {
namespace {

constexpr std::int64_t kStartS = 1'704'067'200;

std::string FreshDir(const char* name) {
  auto dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::unique_ptr<Store> OpenAt(const std::string& dir) {
  StoreOptions o;
  o.data_dir = dir;
  auto s = Store::Open(o);
  if (!s.ok()) std::abort();
  return std::move(*s);
}

void BM_AppendSample8Gpus(benchmark::State& state) {
  auto store = OpenAt(FreshDir("gpudoctor-store-bench-append"));
  SimNode node(8);
  std::int64_t s = 0;
  for (auto _ : state) {
    SystemStatus status = node.Next();
    auto r = store->AppendSample(WallTime(std::chrono::seconds(kStartS + s++)), status);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_AppendSample8Gpus)->Unit(benchmark::kMicrosecond);

// Six hours of 8 GPUs, written once for the read benchmarks.
Store& SixHourStore() {
  static std::unique_ptr<Store> store = [] {
    auto s = OpenAt(FreshDir("gpudoctor-store-bench-read"));
    SimNode node(8);
    for (std::int64_t t = 0; t < 6 * 3600; ++t) {
      (void)s->AppendSample(WallTime(std::chrono::seconds(kStartS + t)), node.Next());
    }
    return s;
  }();
  return *store;
}

void ReadWindowBench(benchmark::State& state, std::int64_t seconds) {
  Store& store = SixHourStore();
  WallTime to(std::chrono::seconds(kStartS + 6 * 3600 - 1));
  for (auto _ : state) {
    auto w = store.ReadWindow(to - std::chrono::seconds(seconds), to, {});
    benchmark::DoNotOptimize(w);
  }
}

void BM_ReadWindow1hRaw8Gpus(benchmark::State& state) { ReadWindowBench(state, 3600); }
BENCHMARK(BM_ReadWindow1hRaw8Gpus)->Unit(benchmark::kMillisecond);

void BM_ReadWindow6hPerMinute8Gpus(benchmark::State& state) {
  ReadWindowBench(state, 6 * 3600 - 1);
}
BENCHMARK(BM_ReadWindow6hPerMinute8Gpus)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gpudoctor::bench
