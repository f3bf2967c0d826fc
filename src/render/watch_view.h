// What `gpudoctor watch` shows, as pure functions of a sample and its recent
// history: the full-screen frame for a terminal and the one-line-per-GPU form
// for pipes and files. No terminal I/O here; the caller positions the cursor.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/gpu_status.h"
#include "core/history.h"
#include "core/thresholds.h"

namespace gpudoctor {

// The per-GPU part of the screen: six lines per GPU, or one row per GPU.
enum class WatchLayout {
  kAuto,     // full when it fits options.height rows, else compact
  kFull,     // a block of lines per GPU
  kCompact,  // one row per GPU: every value with its sparkline
};

struct WatchViewOptions {
  std::size_t width = 80;  // terminal columns; no line is wider
  std::size_t height = 0;  // terminal rows; 0: unlimited (the full layout)
  WatchLayout layout = WatchLayout::kAuto;
  bool color = false;      // ANSI colours for graded values and states
  std::chrono::system_clock::time_point now{};  // shown in the header
  std::chrono::milliseconds interval{1000};     // shown in the header
  Thresholds thresholds{};
  std::string fabric_line;  // render/fabric_line.h; shown under the header when not empty
};

// One refresh of the screen. The full layout, when it fits options.height
// (or is asked for): a header line (time, driver and CUDA versions),
// then per GPU a title line (index, name, state), one line each for
// utilisation, SM activity (GPUs with GPM), memory, temperature and power with a sparkline of their
// history, and a line with clock, P-state and active slowdown reasons. Lines
// are joined by '\n' (no trailing newline); each fits in options.width
// visible columns. Sparklines are history.capacity() cells wide, or as many
// as fit. The compact layout, when the full one does not fit: the header, a
// line naming the GPU models, a column header, then one row per GPU with
// utilisation, SM activity (GPM), memory, temperature, power and SM clock,
// each value with a sparkline as wide as the width allows, and the active
// slowdown reasons. Below either, as many rows as are left list the compute
// processes (GPU, pid, owner, SM and memory share, GPU memory, name), most
// SM time first within each GPU, and say how many did not fit. No more than
// options.height lines when it is set.
std::string RenderWatchFrame(const SystemStatus& status, const History& history,
                             const WatchViewOptions& options);

// One line (no newline) for a GPU when output is not a terminal, e.g.
// "2026-11-29T18:02:03 gpu=0 state=ok util=45% mem=10240/81559MiB(12.6%)
// temp=56C power=312.4/700.0W sm=1980MHz pstate=P0 reasons=sw_power_cap",
// then " sm_active=12%" on a GPU with GPM; absent values read "n/a". Local
// time.
std::string RenderWatchLine(const GpuStatus& gpu,
                            std::chrono::system_clock::time_point now);

// Local time as "2026-11-29T18:02:03" (separator 'T') or with a space.
std::string FormatLocalTime(std::chrono::system_clock::time_point time,
                            char separator);

// The first `width` visible columns of line; escape sequences are kept, and
// a colour cut short is reset.
std::string ClipToWidth(std::string_view line, std::size_t width);

}  // namespace gpudoctor
