// gpudoctor watch: a live view of every GPU, refreshed every -n seconds, like
// `watch -n 1 nvidia-smi` with thresholds coloured and a minute of history.
// On a terminal it redraws in place on the alternate screen; otherwise it
// prints one line per GPU per refresh.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include "collect/gpu_bus_ids.h"
#include "cli/commands.h"
#include "cli/nvml_options.h"
#include "collect/process_owners.h"
#include "collect/rdma.h"
#include "core/duration.h"
#include "core/history.h"
#include "core/terminal.h"
#include "render/ansi.h"
#include "render/fabric_line.h"
#include "render/watch_view.h"
#include "status/gpu_selector.h"

namespace gpudoctor {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr milliseconds kMinInterval{100};
constexpr milliseconds kHistoryWindow{60000};
constexpr milliseconds kRdmaEvery{5000};

struct WatchArgs {
  std::string interval = "1";
  std::vector<std::string> gpus;
  std::size_t count = 0;  // refreshes before stopping; 0: until stopped
};

Result<milliseconds> ParseInterval(const std::string& text) {
  // "-n 0" and "-n 50ms" both name the real minimum.
  auto interval = ParseDuration(text, kMinInterval);
  if (!interval) return Error{ErrorCode::kInvalid, "-n: " + interval.error().message};
  return *interval;
}

// One watch run: samples, keeps history, and shows each refresh.
class Watcher {
 public:
  Watcher(NvmlSession& session, const WatchArgs& args, milliseconds interval,
          bool color)
      : session_(session),
        args_(args),
        interval_(interval),
        color_(color),
        history_(History::CapacityFor(interval, kHistoryWindow)) {}

  // Runs until the count is reached, a stop signal, or `q`. Returns the exit
  // code; the first sample must have NVML loaded. Restores the terminal
  // before it returns.
  int Run(SystemStatus first, const std::vector<std::size_t>& positions);

 private:
  void Record(SystemStatus status);
  void Show();
  void DrawScreen();
  void PrintLines();
  // Waits for the next refresh; false when the user asked to stop.
  bool WaitUntil(Clock::time_point next, const StopSignals& signals);

  NvmlSession& session_;
  const WatchArgs& args_;
  milliseconds interval_;
  bool color_;
  bool screen_ = false;  // drawing on a terminal
  int input_fd_ = -1;    // where keys come from, -1 when none
  std::set<unsigned> selected_;
  SystemStatus last_;
  History history_;
  ProcessOwnerCache owners_;
  bool saw_lost_ = false;
  MissingBusIds bus_ids_;  // for GPUs NVML counts but cannot open
  std::optional<RdmaFacts> rdma_first_;  // the fabric line's rises are since this reading
  std::string fabric_line_;
  Clock::time_point rdma_due_{};
};

void Watcher::Record(SystemStatus status) {
  bus_ids_.Fill(CollectContext{}, status);
  if (!args_.gpus.empty()) {
    std::erase_if(status.gpus, [&](const GpuStatus& gpu) {
      return selected_.count(gpu.index) == 0;
    });
  }
  for (const auto& gpu : status.gpus) {
    if (gpu.state == GpuState::kLost || gpu.state == GpuState::kHung) {
      saw_lost_ = true;
    }
  }
  // Who runs each process (user, container, pod), looked up once per pid.
  owners_.Annotate(CollectContext{}, status);
  // The RDMA ports, at most every kRdmaEvery (a few hundred small sysfs files).
  if (Clock::now() >= rdma_due_) {
    rdma_due_ = Clock::now() + kRdmaEvery;
    CollectContext ctx;
    RdmaFacts rdma = ReadRdma(ctx);
    if (!rdma_first_) rdma_first_ = rdma;
    FabricSummary fabric = SummarizeFabric(rdma, &*rdma_first_, PlatformIbPorts(status));
    AddNvlinkFabric(status, fabric);
    fabric_line_ = FabricLine(fabric);
  }
  history_.Record(status);
  last_ = std::move(status);
}

void Watcher::Show() {
  if (screen_) {
    DrawScreen();
  } else {
    PrintLines();
  }
}

void Watcher::DrawScreen() {
  auto size = GetTerminalSize(STDOUT_FILENO);
  WatchViewOptions view;
  view.width = size ? size->columns : 80;
  view.height = size ? size->rows : 0;
  view.color = color_;
  view.now = std::chrono::system_clock::now();
  view.interval = interval_;
  view.fabric_line = fabric_line_;
  // Names from outside reach the screen only through ForTerminal.
  std::string frame = ForTerminal(RenderWatchFrame(last_, history_, view));
  // Erase each line before drawing it, and stop at the last row so the
  // screen never scrolls under the next home-cursor.
  std::string out(kCursorHome);
  std::size_t rows = size && size->rows > 0 ? size->rows : SIZE_MAX;
  std::size_t row = 0, start = 0;
  while (start <= frame.size() && row < rows) {
    std::size_t end = std::min(frame.find('\n', start), frame.size());
    if (row > 0) out += "\r\n";
    out += "\x1b[2K";
    out.append(frame, start, end - start);
    start = end + 1;
    ++row;
  }
  out += kClearToScreenEnd;
  WriteAll(STDOUT_FILENO, out);
}

void Watcher::PrintLines() {
  auto now = std::chrono::system_clock::now();
  std::string out;
  for (const auto& gpu : last_.gpus) out += RenderWatchLine(gpu, now) + "\n";
  if (last_.gpus.empty())
    out = FormatLocalTime(now, 'T') + " no NVIDIA GPU found\n";
  if (!fabric_line_.empty()) out += FormatLocalTime(now, 'T') + " " + fabric_line_ + "\n";
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

bool Watcher::WaitUntil(Clock::time_point next, const StopSignals& signals) {
  for (;;) {
    auto left = std::chrono::ceil<milliseconds>(next - Clock::now());
    if (left.count() <= 0) return !signals.stop_requested();
    WaitEvent event = WaitForEvent(signals, input_fd_, left);
    switch (event.kind) {
      case WaitEventKind::kTimeout:
        break;
      case WaitEventKind::kStop:
        return false;
      case WaitEventKind::kKey:
        if (event.key == 'q' || event.key == 'Q' || event.key == '\x03')
          return false;
        break;
      case WaitEventKind::kInputClosed:
        input_fd_ = -1;
        break;
      case WaitEventKind::kResize:
        if (screen_) DrawScreen();
        break;
    }
  }
}

int Watcher::Run(SystemStatus first,
                 const std::vector<std::size_t>& positions) {
  for (std::size_t p : positions) selected_.insert(first.gpus[p].index);
  StopSignals signals;
  screen_ = IsTerminal(STDOUT_FILENO);
  std::optional<AlternateScreen> alternate;
  std::optional<RawInput> raw;
  if (screen_) {
    // Never stopped by the terminal: a watch in a background group of it
    // (`timeout 5 gpudoctor watch`, `ssh -t`, a CI job's pty) would be
    // stopped by SIGTTOU at its first change of the terminal's modes, and
    // again when it restored them after SIGTERM. It draws, and reads keys
    // only when it is the terminal's foreground.
    std::signal(SIGTTOU, SIG_IGN);
    std::signal(SIGTTIN, SIG_IGN);
    alternate.emplace(STDOUT_FILENO);
    if (IsTerminal(STDIN_FILENO) && IsForegroundOf(STDIN_FILENO)) {
      raw.emplace(STDIN_FILENO);
      input_fd_ = STDIN_FILENO;
    }
  }
  Record(std::move(first));
  std::size_t refreshes = 0;
  auto next = Clock::now();
  for (;;) {
    Show();
    if (++refreshes == args_.count) break;
    next += interval_;
    // After a slow sample, start counting again from now rather than
    // sampling back to back to catch up.
    if (next < Clock::now()) next = Clock::now() + interval_;
    if (!WaitUntil(next, signals)) break;
    Record(session_.Sample());
  }
  return saw_lost_ ? kExitWarning : kExitOk;
}

int RunWatch(const WatchArgs& args, const GlobalOptions& global) {
  auto interval = ParseInterval(args.interval);
  auto nvml = MakeNvmlOptions(global);
  if (!interval || !nvml) {
    std::cerr << "gpudoctor: "
              << (!interval ? interval.error().message : nvml.error().message)
              << "\n";
    return kExitCannotRun;
  }
  auto session = NvmlSession::Open(*nvml);
  SystemStatus status = session->Sample();
  if (!status.nvml_loaded) {
    std::cerr << "gpudoctor: no usable NVIDIA driver: " << status.nvml_error
              << "\n";
    ExitAfterSession(*session, kExitCannotRun);
  }
  auto positions = SelectGpus(status, args.gpus);
  if (!positions) {
    std::cerr << "gpudoctor: " << positions.error().message << "\n";
    ExitAfterSession(*session, kExitCannotRun);
  }
  bool color = !global.no_color && ShouldUseColor(STDOUT_FILENO);
  int code = Watcher(*session, args, *interval, color)
                 .Run(std::move(status), *positions);
  ExitAfterSession(*session, code);
}

}  // namespace

void RegisterWatch(CLI::App& app, const GlobalOptions& global, int* exit_code) {
  auto args = std::make_shared<WatchArgs>();
  CLI::App* cmd = app.add_subcommand(
      "watch",
      "Live view of every GPU, redrawn every -n seconds, with thresholds "
      "coloured and a minute of history (q or Ctrl-C quits)");
  cmd->add_option(
         "-n,--interval", args->interval,
         "Seconds between refreshes: 1, 0.5, 500ms, 2s (minimum 100ms)")
      ->default_str("1");
  cmd->add_option("--gpu", args->gpus,
                  "Only these GPUs (index, UUID or PCI bus id)")
      ->take_all();
  cmd->add_option("--count", args->count,
                  "Stop after N refreshes (default: run until stopped)")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            // CLI11's PositiveNumber would answer "not in range 0 to 1.79e308".
            const bool digits = !text.empty() && text.size() <= 9 &&
                                text.find_first_not_of("0123456789") == std::string::npos;
            if (digits && std::stoul(text) > 0) return "";
            return "'" + text + "': use a whole number from 1 to 999999999";
          },
          "N"));
  cmd->callback(
      [args, &global, exit_code] { *exit_code = RunWatch(*args, global); });
}

}  // namespace gpudoctor
