// Fills a gpudoctor store with simulated history (store_sim.h) and, when
// asked, OpenMetrics files of the very same samples for
// `promtool tsdb create-blocks-from openmetrics`; or times ReadWindow over
// the last 24 h of such a store. Used by store_vs_tsdb.sh.
//
//   store_week write DIR HOURS GPUS [OPENMETRICS_DIR]
//   store_week read DIR [REPETITIONS]
//
// The OpenMetrics samples go to one file per two hours of simulated time
// (OPENMETRICS_DIR/NNNN.om, aligned to Prometheus's 2 h blocks), each
// renamed from NNNN.om.part once complete. promtool reads its whole input
// once per 2 h block it writes, so one file per block keeps a week's
// conversion linear, and the files can be converted and deleted while the
// rest is still being written.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/store_sim.h"
#include "core/gpu_fields.h"
#include "store/store.h"

namespace gpudoctor::bench {
namespace {

using Clock = std::chrono::steady_clock;
// 2024-01-01 00:00:00 UTC
constexpr std::int64_t kStartMs = 1'704'067'200'000;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// One OpenMetrics family per numeric field, each written to its own file in
// time order and joined at the end (OpenMetrics wants a family's samples
// together).
class OpenMetricsWriter {
 public:
  explicit OpenMetricsWriter(std::string path) : path_(std::move(path)) {
    part_path_ = path_ + ".part";
    for (const GpuField& f : ScalarGpuFields()) {
      if (std::holds_alternative<TextMember>(f.member)) continue;
      Open(std::string(f.name), &f);
    }
    Open("pstate", nullptr);
    Open("clock_event_reasons_mask", nullptr);
  }

  void Add(std::int64_t t_ms, const GpuStatus& g) {
    std::string labels = fmt::format("{{gpu=\"{}\",pci_bus_id=\"{}\"}}", g.index, g.pci_bus_id);
    std::string ts = fmt::format("{}.{:03}", t_ms / 1000, t_ms % 1000);
    for (Family& fam : families_) {
      std::optional<double> v;
      if (fam.field != nullptr) {
        v = GetNumber(g, *fam.field);
      } else if (fam.name == "pstate" && g.pstate) {
        v = static_cast<double>(*g.pstate);
      } else if (fam.name == "clock_event_reasons_mask" && g.clock_event_reasons_mask) {
        v = static_cast<double>(*g.clock_event_reasons_mask);
      }
      if (!v) continue;
      fmt::print(fam.file, "gpudoctor_{}{} {} {}\n", fam.name, labels, *v, ts);
    }
  }

  void Finish() {
    FILE* out = std::fopen(part_path_.c_str(), "w");
    if (out == nullptr) {
      std::perror(part_path_.c_str());
      std::exit(1);
    }
    std::vector<char> buf(1 << 20);
    for (Family& fam : families_) {
      std::fprintf(out, "# TYPE gpudoctor_%s gauge\n", fam.name.c_str());
      std::rewind(fam.file);
      std::size_t n;
      while ((n = std::fread(buf.data(), 1, buf.size(), fam.file)) > 0) {
        std::fwrite(buf.data(), 1, n, out);
      }
      std::fclose(fam.file);
    }
    std::fputs("# EOF\n", out);
    if (std::fclose(out) != 0) {
      std::perror(part_path_.c_str());
      std::exit(1);
    }
    std::filesystem::rename(part_path_, path_);
  }

 private:
  struct Family {
    std::string name;
    const GpuField* field;
    FILE* file;
  };
  void Open(std::string name, const GpuField* field) {
    FILE* f = std::tmpfile();
    std::setvbuf(f, nullptr, _IOFBF, 1 << 16);
    families_.push_back({std::move(name), field, f});
  }
  std::string path_;
  std::string part_path_;
  std::vector<Family> families_;
};

int Write(const std::string& dir, double hours, unsigned gpus, const char* openmetrics) {
  std::filesystem::remove_all(dir);
  StoreOptions options;
  options.data_dir = dir;
  options.max_store_bytes = 64LL << 30;
  auto store = Store::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  // One OpenMetrics file per Prometheus 2 h block.
  constexpr std::int64_t kBlockMs = 2 * 3600 * 1000;
  std::optional<OpenMetricsWriter> om;
  std::int64_t om_block = -1;
  if (openmetrics != nullptr) std::filesystem::create_directories(openmetrics);
  SimNode node(gpus);
  std::mt19937 jitter(7);
  auto start = Clock::now();
  std::int64_t seconds = static_cast<std::int64_t>(hours * 3600);
  for (std::int64_t s = 0; s < seconds; ++s) {
    // A sampling loop wakes a few milliseconds late.
    std::int64_t t_ms = kStartMs + s * 1000 + static_cast<std::int64_t>(jitter() % 20);
    SystemStatus status = node.Next();
    auto r = (*store)->AppendSample(WallTime(std::chrono::milliseconds(t_ms)), status);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.error().message.c_str());
      return 1;
    }
    if (openmetrics != nullptr) {
      if (t_ms / kBlockMs != om_block) {
        if (om) om->Finish();
        om_block = t_ms / kBlockMs;
        om.emplace(fmt::format("{}/{:04}.om", openmetrics, om_block - kStartMs / kBlockMs));
      }
      for (const GpuStatus& g : status.gpus) om->Add(t_ms, g);
    }
    if (s % 36000 == 0 && s > 0) {
      std::fprintf(stderr, "%lld h simulated in %.0f s\n", static_cast<long long>(s / 3600),
                   Seconds(start));
    }
  }
  if (auto f = (*store)->Flush(); !f.ok()) {
    std::fprintf(stderr, "%s\n", f.error().message.c_str());
    return 1;
  }
  double took = Seconds(start);
  StoreStats stats = (*store)->Stats();
  store->reset();
  if (om) om->Finish();
  std::int64_t gpu_samples = seconds * gpus;
  std::printf("gpu_samples %lld\nwrite_seconds %.1f\nappend_us_per_gpu_sample %.1f\n",
              static_cast<long long>(gpu_samples), took,
              took * 1e6 / static_cast<double>(gpu_samples));
  std::printf("raw_samples %lld\nrollup_minutes %lld\n", static_cast<long long>(stats.raw_samples),
              static_cast<long long>(stats.rollup_minutes));
  return 0;
}

int Read(const std::string& dir, int reps) {
  StoreOptions options;
  options.data_dir = dir;
  options.read_only = true;
  auto store = Store::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.error().message.c_str());
    return 1;
  }
  StoreStats stats = (*store)->Stats();
  if (!stats.newest) return 1;
  WallTime to = *stats.newest;
  WallTime from = to - std::chrono::hours(24);
  std::vector<double> times;
  std::size_t readings = 0;
  for (int i = 0; i < reps; ++i) {
    auto start = Clock::now();
    auto w = (*store)->ReadWindow(from, to, {});
    times.push_back(Seconds(start));
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.error().message.c_str());
      return 1;
    }
    readings = 0;
    for (const auto& g : w->gpus) readings += g.readings.size();
  }
  std::sort(times.begin(), times.end());
  std::printf(
      "read_24h_gpus_readings %zu\nread_24h_seconds_median %.3f\nread_24h_seconds_min %.3f\n",
      readings, times[times.size() / 2], times.front());
  return 0;
}

}  // namespace
}  // namespace gpudoctor::bench

int main(int argc, char** argv) {
  using namespace gpudoctor::bench;
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc >= 5) {
    return Write(argv[2], std::stod(argv[3]), static_cast<unsigned>(std::stoi(argv[4])),
                 argc > 5 ? argv[5] : nullptr);
  }
  if (mode == "read" && argc >= 3) return Read(argv[2], argc > 3 ? std::stoi(argv[3]) : 5);
  std::fprintf(stderr,
               "usage: store_week write DIR HOURS GPUS [OPENMETRICS_DIR]\n"
               "       store_week read DIR [REPETITIONS]\n");
  return 2;
}
