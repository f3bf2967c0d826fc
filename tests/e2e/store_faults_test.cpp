// Store faults end to end (issue 8): a store recorded by a real agent on the
// fake NVML is truncated, overwritten, put on a read-only mount, or filled to
// the last byte of a small tmpfs. `gpudoctor report` reads what it can or
// answers with one line naming the file (exit 3); `gpudoctor agent` moves a
// damaged store aside whole and records into a fresh one (issue 28). Neither
// crashes or hangs, and nothing recorded is wiped. Mounts need root (the test is skipped
// otherwise, saying why) and are undone even when an assertion fails.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "support/background_process.h"
#include "core/time_format.h"
#include "support/run_process.h"
#include "support/store_damage.h"
#include "support/temp_files.h"
#include "unit/store_samples.h"

namespace gpudoctor::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::int64_t kPage = 4096;

std::string Scenario() { return std::string(TEST_DATA_DIR) + "/scenarios/healthy_busy.json"; }

std::vector<std::string> AgentArgs(const fs::path& data, const std::string& run_for) {
  std::vector<std::string> a = {
      "agent",      "--data-dir", data.string(),   "--no-listen", "--no-kernel-log",
      "--interval", "100ms",      "--facts-every", "1h",          "--max-store-mb",
      "16"};
  if (!run_for.empty()) a.insert(a.end(), {"--run-for", run_for});
  return a;
}

std::string ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Deterministic garbage over [offset, offset + n).
void Scribble(const fs::path& path, std::int64_t offset, std::int64_t n) {
  std::string bytes = ReadBytes(path);
  std::uint32_t x = static_cast<std::uint32_t>(offset) * 2654435761u + 1;
  for (std::int64_t i = offset; i < offset + n && i < static_cast<std::int64_t>(bytes.size());
       ++i) {
    x = x * 1103515245u + 12345u;
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(x >> 16);
  }
  WriteBytes(path, bytes);
}

struct ReportOutcome {
  ProcessResult run;
  std::size_t readings = 0;  // summed over GPUs, when it succeeded
  json summaries;
  std::vector<std::string> left_out;  // the errors of the inputs that were not read
};

ReportOutcome Report(const fs::path& data) {
  ReportOutcome o;
  o.run = RunGpudoctor(
      {"report", "--data-dir", data.string(), "--since", "1h", "--format", "json", "--lang", "en"},
      "");  // the default time limit (60 s) bounds it
  if (o.run.exit_code != 0) return o;
  json doc = json::parse(o.run.out, nullptr, false);
  if (doc.is_discarded()) return o;
  for (const auto& g : doc["gpus"]) o.readings += g["readings"].get<std::size_t>();
  o.summaries = doc.value("summaries", json());
  for (const auto& in : doc.value("inputs", json::array())) {
    if (!in.value("ok", true)) o.left_out.push_back(in.value("error", ""));
  }
  return o;
}

// Exit 3 with exactly one line on stderr that names `path` and says `what`.
void ExpectOneLineError(const ProcessResult& r, const std::string& path, const std::string& what) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, 0) << "crashed: " << r.err;
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

ProcessResult RunAgentFor(const fs::path& data, const std::string& run_for) {
  return RunGpudoctor(AgentArgs(data, run_for), Scenario());
}

// The agent found the store damaged, kept it aside whole (gpudoctor.db.corrupt-<time>,
// holding `bytes`) and recorded into a fresh one: the node stays monitored.
void ExpectMovedAside(const ProcessResult& r, const fs::path& data, const std::string& bytes,
                      const std::string& what) {
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.signal, 0) << "crashed: " << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("moved aside to " + (data / "gpudoctor.db.corrupt-").string()),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
  std::size_t kept = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gpudoctor.db.corrupt-", 0) != 0 || name.ends_with("-wal") ||
        name.ends_with("-shm")) {
      continue;
    }
    ++kept;
    EXPECT_EQ(ReadBytes(e.path()), bytes) << name << ": kept as it was";
  }
  EXPECT_EQ(kept, 1u);
}

// A store recorded by an agent that stopped cleanly (no WAL left).
std::size_t RecordCleanly(const fs::path& data) {
  auto agent = RunAgentFor(data, "2s");
  EXPECT_EQ(agent.exit_code, 0) << agent.err;
  auto report = Report(data);
  EXPECT_EQ(report.run.exit_code, 0) << report.run.err;
  return report.readings;
}

// Polls `done` every 200 ms up to `limit`.
template <typename F>
bool WaitFor(milliseconds limit, F done) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(200));
  }
  return done();
}

// A store written by an agent killed with SIGKILL: its recent samples are in
// gpudoctor.db-wal (with the -shm index beside it).
std::size_t RecordAndKill(const fs::path& data, const std::string& log) {
  BackgroundProcess agent(GpudoctorArgv(AgentArgs(data, "")), FakeNvmlEnv(Scenario()), log);
  EXPECT_TRUE(agent.started());
  EXPECT_TRUE(WaitFor(seconds(20), [&] { return Report(data).readings >= 10; })) << ReadBytes(log);
  agent.Signal(SIGKILL);
  agent.Wait(seconds(10));
  return Report(data).readings;
}

// A tmpfs mounted over `dir` for the life of the object; `umount -l` when it
// goes away, whatever the test did.
class TmpfsMount {
 public:
  TmpfsMount(const fs::path& dir, const std::string& size) : dir_(dir) {
    fs::create_directories(dir);
    auto r =
        RunProcess({"/usr/bin/mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.string()});
    mounted_ = r.exit_code == 0;
    error_ = r.err.substr(0, r.err.find('\n'));
  }
  ~TmpfsMount() {
    if (mounted_) RunProcess({"/usr/bin/umount", "-l", dir_.string()});
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }
  bool MakeReadOnly() const {
    return RunProcess({"/usr/bin/mount", "-o", "remount,ro", dir_.string()}).exit_code == 0;
  }

 private:
  fs::path dir_;
  bool mounted_ = false;
  std::string error_;
};

std::string NeedsRoot(const TmpfsMount& m) {
  return "needs root to mount a tmpfs (mount said: " + m.error() +
         "); run the test suite as root to cover this case";
}

void CopyFiles(const fs::path& from, const fs::path& to, const std::vector<std::string>& names) {
  for (const auto& name : names)
    fs::copy_file(from / name, to / name, fs::copy_options::overwrite_existing);
}

TEST(StoreFaultsE2E, TruncatedStoreIsOneLineAndLeftAsItIs) {
  TempDir good;
  const std::size_t recorded = RecordCleanly(good.path());
  ASSERT_GT(recorded, 10u);
  const std::string original = ReadBytes(good.path() / "gpudoctor.db");
  const fs::path wal = good.path() / "gpudoctor.db-wal";
  ASSERT_TRUE(!fs::exists(wal) || fs::file_size(wal) == 0) << "a clean stop checkpoints the WAL";
  const auto size = static_cast<std::int64_t>(original.size());
  ASSERT_GE(size, 4 * kPage);
  for (std::int64_t cut :
       {std::int64_t{100}, kPage, size / 2 / kPage * kPage + 1000, size - kPage}) {
    SCOPED_TRACE("truncated to " + std::to_string(cut) + " of " + std::to_string(size) + " bytes");
    TempDir data;
    const fs::path db = data.path() / "gpudoctor.db";
    WriteBytes(db, original.substr(0, static_cast<std::size_t>(cut)));
    ExpectOneLineError(Report(data.path()).run, db.string(), "damaged");
    EXPECT_EQ(ReadBytes(db), original.substr(0, static_cast<std::size_t>(cut))) << "left as it was";
    // The agent keeps the node monitored: the damaged file aside, a new store.
    ExpectMovedAside(RunAgentFor(data.path(), "1s"), data.path(),
                     original.substr(0, static_cast<std::size_t>(cut)), db.string());
    EXPECT_GT(Report(data.path()).readings, 0u);
  }
  // Truncated to nothing, no sample is left to lose: report says the store
  // is empty, and the agent starts a new one in the same file.
  TempDir empty;
  WriteBytes(empty.path() / "gpudoctor.db", "");
  ExpectOneLineError(Report(empty.path()).run, (empty.path() / "gpudoctor.db").string(), "empty");
  EXPECT_EQ(RunAgentFor(empty.path(), "1s").exit_code, 0);
  EXPECT_GT(Report(empty.path()).readings, 0u);
}

TEST(StoreFaultsE2E, EmptyDatabaseBesideItsWalIsRefusedNotWiped) {
  TempDir data, logs;
  const std::size_t recorded = RecordAndKill(data.path(), (logs.path() / "agent.log").string());
  ASSERT_GE(recorded, 10u);
  const fs::path db = data.path() / "gpudoctor.db";
  const fs::path wal = data.path() / "gpudoctor.db-wal";
  ASSERT_GT(fs::file_size(wal), 0u) << "SIGKILL leaves the recent samples in the WAL";
  const std::string db_bytes = ReadBytes(db);
  const std::string wal_bytes = ReadBytes(wal);
  // Opening an empty database makes SQLite delete its WAL: every sample
  // since the last checkpoint. Both commands must refuse instead.
  WriteBytes(db, "");
  ExpectOneLineError(Report(data.path()).run, db.string(), "-wal holds");
  EXPECT_EQ(ReadBytes(wal), wal_bytes) << "the WAL was left as it was";
  // The agent moves the pair aside whole (the WAL with its samples kept
  // beside the empty file) and records into a fresh store.
  ExpectMovedAside(RunAgentFor(data.path(), "1s"), data.path(), "", db.string());
  bool wal_kept = false;
  for (const auto& e : fs::directory_iterator(data.path())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("gpudoctor.db.corrupt-", 0) == 0 && name.ends_with("-wal")) {
      wal_kept = ReadBytes(e.path()) == wal_bytes;
    }
  }
  EXPECT_TRUE(wal_kept) << "the samples in the WAL are kept aside";
  // Put back (the kept pair, its -shm, and the database's bytes), the store
  // reads whole: nothing was lost.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    fs::remove(data.path() / ("gpudoctor.db" + std::string(suffix)));
  }
  std::vector<fs::path> kept;
  for (const auto& e : fs::directory_iterator(data.path())) {
    if (e.path().filename().string().rfind("gpudoctor.db.corrupt-", 0) == 0) kept.push_back(e.path());
  }
  for (const auto& path : kept) {
    const std::string name = path.filename().string();
    const std::string suffix = name.ends_with("-wal") ? "-wal" : name.ends_with("-shm") ? "-shm" : "";
    fs::rename(path, data.path() / ("gpudoctor.db" + suffix));
  }
  WriteBytes(db, db_bytes);
  EXPECT_EQ(Report(data.path()).readings, recorded);
  // A WAL cut in half loses what was after the cut (SQLite stops at the
  // last whole commit), but is no crash, and the agent carries on.
  WriteBytes(wal, wal_bytes.substr(0, wal_bytes.size() / 2));
  auto cut = Report(data.path());
  EXPECT_EQ(cut.run.signal, 0) << cut.run.err;
  EXPECT_LE(cut.readings, recorded);
  EXPECT_EQ(RunAgentFor(data.path(), "1s").exit_code, 0);
  EXPECT_GT(Report(data.path()).readings, cut.readings);
}

TEST(StoreFaultsE2E, OverwrittenPagesAreMovedAsideByTheAgentAndNeverGarbageInReports) {
  TempDir good;
  const std::size_t recorded = RecordCleanly(good.path());
  ASSERT_GT(recorded, 10u);
  const auto good_report = Report(good.path());
  const std::string original = ReadBytes(good.path() / "gpudoctor.db");
  const auto size = static_cast<std::int64_t>(original.size());
  struct Damage {
    const char* what;
    std::int64_t offset, length;
    const char* says;  // what the one-line error must contain
  };
  const Damage damages[] = {
      {"wrong header magic", 0, 16, "damaged"},
      {"page 2", kPage, kPage, "damaged"},
      {"pages 3-6", 2 * kPage, 4 * kPage, "damaged"},
      {"four pages in the middle", size / 2 / kPage * kPage, 4 * kPage, "damaged"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.what);
    TempDir data;
    const fs::path db = data.path() / "gpudoctor.db";
    WriteBytes(db, original);
    Scribble(db, d.offset, d.length);
    const std::string damaged = ReadBytes(db);
    auto report = Report(data.path());
    EXPECT_EQ(report.run.signal, 0) << report.run.err;
    if (report.run.exit_code == 0 && report.left_out.empty()) {
      // What it reports must be what was recorded, not garbage.
      EXPECT_EQ(report.readings, recorded);
      EXPECT_EQ(report.summaries, good_report.summaries);
    } else if (report.run.exit_code == 0) {
      // Or what could be read, with the parts left out named.
      EXPECT_LE(report.readings, recorded);
      for (const auto& why : report.left_out) EXPECT_NE(why.find("damaged"), std::string::npos);
    } else {
      ExpectOneLineError(report.run, db.string(), d.says);
    }
    // The agent never appends to a damaged store: it keeps it aside as it
    // was and records into a fresh one.
    ExpectMovedAside(RunAgentFor(data.path(), "1s"), data.path(), damaged, d.says);
  }
}

// A chunk whose bytes no longer decode (disk or filesystem damage SQLite
// cannot see) costs the report that chunk only: the rest of the window is
// reported, and the part left out is named in every format.
TEST(StoreFaultsE2E, DamagedChunkIsLeftOutAndNamedTheRestIsReported) {
  TempDir data;
  StoreOptions options;
  options.data_dir = data.path().string();
  {
    auto store = test::OpenOrDie(options);
    for (std::int64_t s = 0; s < 1200; ++s)
      ASSERT_TRUE(store->AppendSample(test::At(s), test::MakeSystem(2, s)).ok());
    ASSERT_TRUE(store->Flush().ok());
  }
  const std::string db = (data.path() / "gpudoctor.db").string();
  test::DamageFirstBlob(db, test::BusId(0));
  auto report = [&](const std::string& format, std::int64_t to_s) {
    return RunGpudoctor({"report", "--data-dir", data.path().string(), "--from",
                         FormatRfc3339(test::At(0)), "--to", FormatRfc3339(test::At(to_s)),
                         "--format", format, "--lang", "en"},
                        "");
  };
  auto json_run = report("json", 1199);
  ASSERT_LT(json_run.exit_code, 3) << json_run.err;  // 0-2: the verdict, not an error
  EXPECT_EQ(json_run.err, "");
  json doc = json::parse(json_run.out);
  ASSERT_EQ(doc["inputs"].size(), 1u);
  EXPECT_EQ(doc["inputs"][0]["path"], db);
  EXPECT_EQ(doc["inputs"][0]["kind"], "agent-store");
  EXPECT_EQ(doc["inputs"][0]["ok"], false);
  const std::string why = doc["inputs"][0]["error"];
  EXPECT_NE(why.find("GPU " + test::BusId(0)), std::string::npos) << why;
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;
  ASSERT_EQ(doc["gpus"].size(), 2u);
  EXPECT_EQ(doc["gpus"][0]["readings"], 600);  // the second chunk
  // The window is (from, to]: the sample taken at --from is the window
  // before's.
  EXPECT_EQ(doc["gpus"][1]["readings"], 1199);
  for (const char* format : {"text", "markdown", "html"}) {
    auto run = report(format, 1199);
    EXPECT_LT(run.exit_code, 3) << format << ": " << run.err;
    EXPECT_NE(run.out.find("GPU " + test::BusId(0) + " from"), std::string::npos) << format;
  }
  auto window = [&](std::int64_t to_s, std::vector<std::string> more) {
    std::vector<std::string> args = {"report",   "--data-dir", data.path().string(),
                                     "--from",   FormatRfc3339(test::At(0)),
                                     "--to",     FormatRfc3339(test::At(to_s)),
                                     "--format", "json"};
    args.insert(args.end(), more.begin(), more.end());
    return RunGpudoctor(args, "");
  };
  // Another GPU's report does not list GPU 0's damage.
  auto other = window(1199, {"--gpu", "1"});
  ASSERT_LT(other.exit_code, 3) << other.err;
  EXPECT_FALSE(json::parse(other.out).contains("inputs")) << other.out;
  // A GPU named by index, bus id or UUID whose only samples are damaged: that
  // error, not "no such GPU".
  for (const std::string& name : {std::string("0"), test::BusId(0)}) {
    auto only = window(599, {"--gpu", name});
    EXPECT_EQ(only.exit_code, 3) << only.err;
    EXPECT_EQ(std::count(only.err.begin(), only.err.end(), '\n'), 1) << only.err;
    EXPECT_NE(only.err.find(db + ": the samples of GPU " + test::BusId(0)), std::string::npos)
        << only.err;
    EXPECT_NE(only.err.find("no samples of it could be read"), std::string::npos) << only.err;
  }
  // Every GPU's samples in the window damaged: one line saying so.
  test::DamageFirstBlob(db, test::BusId(1));
  auto all = window(599, {});
  EXPECT_EQ(all.exit_code, 3) << all.err;
  EXPECT_EQ(std::count(all.err.begin(), all.err.end(), '\n'), 1) << all.err;
  EXPECT_NE(all.err.find("(and 1 more); nothing else was recorded between"), std::string::npos)
      << all.err;
}

TEST(StoreFaultsE2E, ReadOnlyDirectoryReportReadsAgentRefusesInOneLine) {
  TempDir good, logs, crashed, mnt;
  const std::size_t recorded = RecordCleanly(good.path());
  ASSERT_GT(recorded, 10u);
  const std::size_t in_wal = RecordAndKill(crashed.path(), (logs.path() / "agent.log").string());
  ASSERT_GE(in_wal, 10u);
  // As root, chmod does not stop writes: a tmpfs remounted read-only does.
  // Otherwise the directories are made 0555 (and writable again at the end,
  // so that they can be removed).
  const bool root = geteuid() == 0;
  const fs::path dir = mnt.path() / "ro";
  std::optional<TmpfsMount> ro;
  if (root) {
    ro.emplace(dir, "8m");
    if (!ro->mounted()) GTEST_SKIP() << NeedsRoot(*ro);
  }
  const std::vector<std::string> subs = {"clean", "wal", "wal-no-shm", ""};
  struct Writable {
    std::vector<fs::path> dirs;
    ~Writable() {
      for (const auto& d : dirs) fs::permissions(d, fs::perms::owner_all, fs::perm_options::add);
    }
  } restore;
  for (const auto& sub : subs) fs::create_directories(dir / sub);
  CopyFiles(good.path(), dir / "clean", {"gpudoctor.db"});
  CopyFiles(crashed.path(), dir / "wal", {"gpudoctor.db", "gpudoctor.db-wal", "gpudoctor.db-shm"});
  CopyFiles(crashed.path(), dir / "wal-no-shm", {"gpudoctor.db", "gpudoctor.db-wal"});
  if (root) {
    ASSERT_TRUE(ro->MakeReadOnly());
  } else {
    for (const auto& sub : subs) {
      restore.dirs.push_back(dir / sub);
      fs::permissions(dir / sub, fs::perms(0555));
    }
  }
  ASSERT_NE(access((dir / "clean").c_str(), W_OK), 0) << "the directory is really read-only";
  const std::string refused = root ? "Read-only file system" : "Permission denied";

  // The reader needs no write access: a clean store, and one with its WAL
  // and -shm index, read whole.
  EXPECT_EQ(Report(dir / "clean").readings, recorded);
  EXPECT_EQ(Report(dir / "wal").readings, in_wal);
  // Without -shm SQLite cannot read the WAL from a read-only directory: one
  // line saying so and what to do, not "nothing recorded".
  auto no_shm = Report(dir / "wal-no-shm");
  ExpectOneLineError(no_shm.run, (dir / "wal-no-shm" / "gpudoctor.db").string(), "read-only");
  EXPECT_EQ(no_shm.run.err.find("nothing recorded"), std::string::npos) << no_shm.run.err;
  // The agent cannot record there: one line naming the lock file, exit 3.
  ExpectOneLineError(RunAgentFor(dir / "clean", "1s"), (dir / "clean" / "agent.lock").string(),
                     refused);
  ExpectOneLineError(RunAgentFor(dir / "new", "1s"), (dir / "new").string(), refused);
}

// agent_test.cpp checks the refusal; this checks that it costs the first
// agent nothing: its lock stands and it keeps recording.
TEST(StoreFaultsE2E, SecondAgentIsRefusedAndTheFirstKeepsRecording) {
  TempDir data, logs;
  const std::string log = (logs.path() / "agent.log").string();
  BackgroundProcess first(GpudoctorArgv(AgentArgs(data.path(), "")), FakeNvmlEnv(Scenario()), log);
  ASSERT_TRUE(first.started());
  ASSERT_TRUE(WaitFor(seconds(20), [&] { return Report(data.path()).readings >= 5; }))
      << ReadBytes(log);
  const fs::path lock = data.path() / "agent.lock";
  ExpectOneLineError(RunAgentFor(data.path(), "1s"), lock.string(),
                     "(pid " + std::to_string(first.pid()) + ")");
  EXPECT_EQ(ReadBytes(lock), std::to_string(first.pid()) + "\n");
  const std::size_t after = Report(data.path()).readings;
  EXPECT_TRUE(WaitFor(seconds(10), [&] { return Report(data.path()).readings > after; }))
      << ReadBytes(log);
  first.Signal(SIGTERM);
  const int status = first.Wait(seconds(15));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

std::string StateOf(const fs::path& data) { return ReadBytes(data / "agent-state.json"); }

TEST(StoreFaultsE2E, FullDiskStopsWritesKeepsTheAgentAndWhatWasRecordedThenResumes) {
  TempDir mnt, logs;
  TmpfsMount disk(mnt.path() / "disk", "8m");
  if (!disk.mounted()) GTEST_SKIP() << NeedsRoot(disk);
  const fs::path data = mnt.path() / "disk" / "gd";
  const std::string log = (logs.path() / "agent.log").string();
  BackgroundProcess agent(GpudoctorArgv(AgentArgs(data, "")), FakeNvmlEnv(Scenario()), log);
  ASSERT_TRUE(agent.started());
  ASSERT_TRUE(WaitFor(seconds(20), [&] { return Report(data).readings >= 20; })) << ReadBytes(log);

  // Fill the disk to the last byte.
  const fs::path filler = mnt.path() / "disk" / "filler";
  {
    std::ofstream out(filler, std::ios::binary);
    const std::string block(64 * 1024, 'x');
    for (int i = 0; i < 1024 && out.write(block.data(), block.size()); ++i) out.flush();
  }
  ASSERT_TRUE(WaitFor(seconds(30), [&] {
    return ReadBytes(log).find("disk is full (writes stopped") != std::string::npos;
  })) << ReadBytes(log);
  EXPECT_EQ(agent.Wait(milliseconds(0)), -1) << "the agent keeps running";
  // What was recorded before the disk filled reads back.
  const std::size_t stopped = Report(data).readings;
  EXPECT_GE(stopped, 20u);
  std::this_thread::sleep_for(seconds(2));
  EXPECT_EQ(Report(data).readings, stopped) << "no writes while the disk is full";
  EXPECT_EQ(agent.Wait(milliseconds(0)), -1);

  // With room again, writing resumes at the next retry (every minute).
  fs::remove(filler);
  EXPECT_TRUE(WaitFor(seconds(80), [&] { return Report(data).readings > stopped; }))
      << ReadBytes(log);
  // The log says so once, as it said when they stopped.
  EXPECT_TRUE(WaitFor(seconds(10), [&] {
    return ReadBytes(log).find("store: writes resumed; recording again") != std::string::npos;
  })) << ReadBytes(log);
  EXPECT_TRUE(WaitFor(seconds(10), [&] {
    return StateOf(data).find("\"writes_stopped\": false") != std::string::npos;
  })) << StateOf(data);
  agent.Signal(SIGTERM);
  int status = agent.Wait(seconds(15));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_GT(Report(data).readings, stopped) << "nothing recorded was lost";
}

}  // namespace
}  // namespace gpudoctor::test
