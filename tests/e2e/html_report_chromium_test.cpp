// End-to-end: HTML reports from the real binary (diagnose on the fake NVML,
// analyze on real captures, report on a store with RDMA port readings), loaded in headless Chromium: the page parses
// into the expected charts, raises no script, resource or CSP error, and
// renders a screenshot that is not blank and shows the chart lines. Skips
// when `chromium` is not installed (scripts/bootstrap.sh installs it).
#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "store/store.h"
#include "support/background_process.h"
#include "support/fixtures.h"
#include "support/run_process.h"
#include "support/temp_files.h"
#include "support/text_count.h"
#include "support/wait_until.h"

namespace gpudoctor::test {
namespace html_report_chromium_e2e_local {

namespace fs = std::filesystem;

constexpr std::chrono::seconds kChromiumTimeout{60};

std::string ChromiumPath() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path candidate = fs::path(dir) / "chromium";
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Pids of processes whose command line mentions `marker` (our unique
// --user-data-dir), to prove that none is left behind.
std::vector<pid_t> ProcessesMentioning(const std::string& marker) {
  std::vector<pid_t> pids;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadFile(entry.path() / "cmdline");
    if (cmdline.find(marker) != std::string::npos) pids.push_back(std::stoi(name));
  }
  return pids;
}

// One headless Chromium run on `page` with `extra` arguments, bounded by a
// hard timeout (RunProcess kills the whole process group then, and after a
// normal exit too). Fails the test when it timed out or left a process.
ProcessResult RunChromium(const std::string& chromium, const TempDir& dir, const fs::path& page,
                          const std::vector<std::string>& extra) {
  static int run = 0;
  fs::path profile = dir.path() / ("profile-" + std::to_string(++run));
  std::vector<std::string> argv = {chromium,
                                   "--headless=new",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-dev-shm-usage",
                                   "--no-first-run",
                                   "--user-data-dir=" + profile.string(),
                                   "--enable-logging=stderr",
                                   "--v=0"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("file://" + page.string());
  ProcessOptions options;
  options.timeout = kChromiumTimeout;
  options.env["HOME"] = dir.path().string();
  ProcessResult r = RunProcess(argv, options);
  EXPECT_FALSE(r.timed_out) << "chromium did not finish within " << kChromiumTimeout.count()
                            << " s and was killed; stderr:\n"
                            << r.err;
  std::vector<pid_t> left = ProcessesMentioning(profile.string());
  for (int i = 0; i < 20 && !left.empty(); ++i) {  // exiting children may need a moment
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    left = ProcessesMentioning(profile.string());
  }
  for (pid_t pid : left) kill(pid, SIGKILL);
  EXPECT_TRUE(left.empty()) << left.size() << " chromium processes were left running (killed now)";
  return r;
}

// Lines of Chromium's log that report a page's console error, an uncaught
// exception or a blocked load. Its other noise (dbus, gcm, ...) is ignored.
std::vector<std::string> ConsoleErrors(const std::string& log) {
  std::vector<std::string> out;
  std::stringstream lines(log);
  std::string line;
  while (std::getline(lines, line)) {
    for (const char* pattern : {"CONSOLE", "Uncaught", "Refused to", "net::ERR_"}) {
      if (line.find(pattern) != std::string::npos) {
        out.push_back(line);
        break;
      }
    }
  }
  return out;
}

// Records script errors, failed resource loads and CSP violations into the
// <html> element's data-errors attribute, where --dump-dom shows them. It
// goes before the page's Content-Security-Policy <meta>, which therefore
// does not apply to it.
constexpr const char* kRecorder = R"(<script>
(function () {
  var root = document.documentElement;
  root.setAttribute('data-errors', '');
  function record(what) { root.setAttribute('data-errors', root.getAttribute('data-errors') + what + ';'); }
  window.addEventListener('error', function (e) {
    if (e.target && e.target !== window) record('resource:' + e.target.tagName);
    else record('script:' + e.message);
  }, true);
  document.addEventListener('securitypolicyviolation', function (e) {
    record('csp:' + e.violatedDirective);
  }, true);
  window.addEventListener('load', function () { root.setAttribute('data-loaded', 'yes'); });
})();
</script>)";

fs::path WithRecorder(const TempDir& dir, const std::string& html, const std::string& name,
                      const std::string& body_extra = "") {
  std::string copy = html;
  auto head = copy.find("<head>");
  EXPECT_NE(head, std::string::npos);
  if (head == std::string::npos) return {};
  copy.insert(head + 6, kRecorder);
  if (!body_extra.empty()) copy.insert(copy.find("<body>") + 6, body_extra);
  return dir.Write(name, copy);
}

std::string Attribute(const std::string& dom, const std::string& name) {
  auto pos = dom.find(" " + name + "=\"");
  if (pos == std::string::npos) return "<absent>";
  pos += name.size() + 3;
  return dom.substr(pos, dom.find('"', pos) - pos);
}

// Per GPU section (by its data-gpu), the number of chart <svg>s and of
// "no data" figures.
struct GpuCharts {
  std::string bus_id;
  std::size_t svgs = 0;
  std::size_t no_data = 0;
  std::size_t markers = 0;
};
std::vector<GpuCharts> ChartsPerGpu(const std::string& dom) {
  std::vector<GpuCharts> out;
  const std::string open = R"(<section class="gpu" id="gpu-)";
  for (auto start = dom.find(open); start != std::string::npos; start = dom.find(open, start + 1)) {
    std::string section = dom.substr(start, dom.find("</section>", start) - start);
    GpuCharts g;
    auto bus = section.find("data-gpu=\"") + 10;
    g.bus_id = section.substr(bus, section.find('"', bus) - bus);
    g.svgs = CountOf(section, R"(<svg class="chart")");
    g.no_data = CountOf(section, R"(<figure class="chart-box no-data")");
    g.markers = CountOf(section, R"(<g class="marker event")");
    out.push_back(g);
  }
  return out;
}

// A decoded 8-bit RGB or RGBA PNG.
struct Image {
  std::uint32_t width = 0, height = 0;
  unsigned channels = 0;
  std::vector<std::uint8_t> pixels;  // rows, channels per pixel
};

std::uint32_t BigEndian32(const std::string& s, std::size_t at) {
  std::uint32_t v;
  std::memcpy(&v, s.data() + at, 4);
  return ntohl(v);
}

int Paeth(int a, int b, int c) {
  int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

// Signature, IHDR, the IDAT stream inflated with zlib and unfiltered.
// Failures are test failures; the image is then empty.
Image DecodePng(const std::string& png) {
  Image img;
  EXPECT_GE(png.size(), 33u);
  if (png.size() < 33 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    ADD_FAILURE() << "no PNG signature";
    return img;
  }
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  img.width = BigEndian32(png, 16);
  img.height = BigEndian32(png, 20);
  int depth = static_cast<unsigned char>(png[24]), color = static_cast<unsigned char>(png[25]);
  if (depth != 8 || (color != 2 && color != 6) || png[28] != 0) {
    ADD_FAILURE() << "unexpected PNG format: depth " << depth << ", color type " << color;
    return img;
  }
  img.channels = color == 6 ? 4 : 3;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    std::uint32_t length = BigEndian32(png, at);
    std::string type = png.substr(at + 4, 4);
    if (type == "IDAT") idat += png.substr(at + 8, length);
    at += 12 + length;
  }
  std::size_t stride = img.width * img.channels;
  std::vector<std::uint8_t> raw(img.height * (stride + 1));
  uLongf raw_size = raw.size();
  int z =
      uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size());
  if (z != Z_OK || raw_size != raw.size()) {
    ADD_FAILURE() << "IDAT does not inflate to " << raw.size() << " bytes (zlib " << z << ")";
    return img;
  }
  img.pixels.resize(img.height * stride);
  for (std::size_t y = 0; y < img.height; ++y) {
    int filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    std::uint8_t* out = &img.pixels[y * stride];
    const std::uint8_t* up = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      int a = x >= img.channels ? out[x - img.channels] : 0, b = up ? up[x] : 0;
      int c = up && x >= img.channels ? up[x - img.channels] : 0;
      int predictor = filter == 1   ? a
                      : filter == 2 ? b
                      : filter == 3 ? (a + b) / 2
                      : filter == 4 ? Paeth(a, b, c)
                                    : 0;
      out[x] = static_cast<std::uint8_t>(in[x] + predictor);
    }
  }
  return img;
}

// Pixels within `tolerance` of an RGB colour.
std::size_t PixelsNear(const Image& img, std::array<int, 3> rgb, int tolerance) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + img.channels <= img.pixels.size(); i += img.channels) {
    bool near = true;
    for (int c = 0; c < 3; ++c) near = near && std::abs(img.pixels[i + c] - rgb[c]) <= tolerance;
    n += near;
  }
  return n;
}

// A fake root with a kernel log holding an Xid 79 on GPU 2 at `at` (syslog
// time stamps are local).
std::string KernelLogAt(std::chrono::system_clock::time_point at) {
  std::time_t t = std::chrono::system_clock::to_time_t(at);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%b %e %H:%M:%S", &tm);
  return std::string(stamp) +
         " gpu-node-7 kernel: [ 100.000001] NVRM: Xid (PCI:0000:1a:00): 79, pid='<unknown>', "
         "name=<unknown>, GPU has fallen off the bus.\n";
}

class HtmlChromium : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = ChromiumPath();
    if (chromium_.empty())
      GTEST_SKIP() << "chromium is not installed (apt-get install chromium; scripts/bootstrap.sh)";
  }

  // `diagnose --format html` over 6 s of the fake NVML's trouble scenario
  // (GPU 0 thermal slowdown, GPU 1 power brake, GPU 2 falls off the bus 1 s
  // after the driver loads), with an Xid 79 of GPU 2 logged while it
  // samples: the kernel log is written 3 s after the program loaded the
  // driver (the fake marks that moment) and is read at the end of the
  // sampling, so the Xid falls between the first and the last reading
  // however slowly the program started.
  fs::path DiagnoseReport(const TempDir& dir) {
    dir.Write("root/proc/sys/kernel/hostname", "gpu-node-7\n");
    const std::string log = dir.Write("kern.log", "");
    const fs::path out = dir.path() / "report.html";
    const fs::path mark = dir.path() / "nvml-initialised";
    std::filesystem::remove(mark);
    std::filesystem::remove(out);
    auto env = FakeNvmlEnv(std::string(TEST_DATA_DIR) + "/scenarios/trouble.json");
    env["FAKE_NVML_INIT_MARK"] = mark.string();
    for (const char* locale : {"LC_ALL", "LC_MESSAGES", "LANG"}) env[locale] = "C.UTF-8";
    const fs::path output = dir.path() / "diagnose.out";
    BackgroundProcess diagnose(
        GpudoctorArgv({"diagnose", "--root", (dir.path() / "root").string(), "--duration", "6s",
                       "--interval", "200ms", "--kernel-log", log, "--since", "1h", "--lang", "en",
                       "--format", "html", "--output", out.string()}),
        env, output.string());
    EXPECT_TRUE(WaitUntil([&] { return fs::exists(mark); }, std::chrono::seconds(120)))
        << ReadFile(output);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    dir.Write("kern.log", KernelLogAt(std::chrono::system_clock::now()));
    const int status = diagnose.Wait(std::chrono::seconds(180));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status << ReadFile(output);
    // The page goes to the file, nothing to the terminal.
    EXPECT_EQ(ReadFile(output).find("<html"), std::string::npos);
    return out;
  }

  // Runs gpudoctor with `args`, which write `page`, then loads the page in
  // Chromium (--dump-dom) and returns that run: gpudoctor exits 0..2,
  // Chromium 0, with no console error. `html` gets the page as written.
  ProcessResult WriteAndLoad(const TempDir& dir, const std::vector<std::string>& args,
                             const fs::path& page, std::string& html) {
    ProcessOptions o;
    o.unset_env = {"LC_ALL", "LC_MESSAGES", "LANG"};
    std::vector<std::string> argv = {GPUDOCTOR_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    auto a = RunProcess(argv, o);
    EXPECT_TRUE(a.exit_code >= 0 && a.exit_code <= 2) << a.exit_code << a.err;
    html = ReadFile(page);
    ProcessResult r = RunChromium(chromium_, dir, page, {"--dump-dom"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(ConsoleErrors(r.err).empty()) << ::testing::PrintToString(ConsoleErrors(r.err));
    return r;
  }

  std::string chromium_;
};

TEST_F(HtmlChromium, DiagnoseReportRendersChartsPerGpuWithoutErrors) {
  TempDir dir;
  fs::path report = DiagnoseReport(dir);
  std::string html = ReadFile(report);
  ASSERT_NE(html.find("<svg class=\"chart\""), std::string::npos) << html.substr(0, 2000);

  ProcessResult r = RunChromium(chromium_, dir, report, {"--dump-dom"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(ConsoleErrors(r.err).empty()) << ::testing::PrintToString(ConsoleErrors(r.err));
  std::vector<GpuCharts> gpus = ChartsPerGpu(r.out);
  ASSERT_EQ(gpus.size(), 3u) << r.out.substr(0, 3000);
  EXPECT_EQ(gpus[0].bus_id, "0000:18:00.0");
  EXPECT_EQ(gpus[0].svgs, 5u);  // utilisation, memory, temperature, power, clocks
  EXPECT_EQ(gpus[1].svgs, 5u);
  for (const auto& g : gpus) EXPECT_EQ(g.svgs + g.no_data, 5u) << g.bus_id;
  // The Xid 79 line (an xid and a fallen-off-the-bus event) is marked on
  // every chart of GPU 2, and on no other GPU's.
  EXPECT_EQ(gpus[0].markers, 0u);
  EXPECT_EQ(gpus[1].markers, 0u);
  ASSERT_GE(gpus[2].svgs, 1u);
  EXPECT_GE(gpus[2].markers, gpus[2].svgs);
  EXPECT_EQ(gpus[2].markers % gpus[2].svgs, 0u);
  // The browser parsed every chart the file holds, and the findings.
  EXPECT_EQ(CountOf(r.out, "<svg class=\"chart\""), CountOf(html, "<svg class=\"chart\""));
  EXPECT_NE(r.out.find("data-finding=\"thermal.slowdown\""), std::string::npos);
  EXPECT_NE(r.out.find("data-finding=\"xid.fallen_off_bus\""), std::string::npos);

  // Nothing fails at run time: no script error, no blocked or failed load.
  fs::path recorded = WithRecorder(dir, html, "recorded.html");
  r = RunChromium(chromium_, dir, recorded, {"--dump-dom"});
  EXPECT_EQ(Attribute(r.out, "data-loaded"), "yes") << r.out.substr(0, 500);
  EXPECT_EQ(Attribute(r.out, "data-errors"), "");
  EXPECT_TRUE(ConsoleErrors(r.err).empty()) << ::testing::PrintToString(ConsoleErrors(r.err));

  // The recorder does see a fetch the page's policy blocks.
  fs::path fetching =
      WithRecorder(dir, html, "fetching.html", R"(<img src="elsewhere.png" alt="">)");
  r = RunChromium(chromium_, dir, fetching, {"--dump-dom"});
  EXPECT_NE(Attribute(r.out, "data-errors").find("csp:img-src"), std::string::npos)
      << Attribute(r.out, "data-errors");
}

TEST_F(HtmlChromium, ScreenshotShowsTheCharts) {
  TempDir dir;
  fs::path report = DiagnoseReport(dir);
  fs::path shot = dir.path() / "shot.png";
  ProcessResult r = RunChromium(chromium_, dir, report,
                                {"--screenshot=" + shot.string(), "--window-size=1280,2400"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string png = ReadFile(shot);
  ASSERT_FALSE(png.empty()) << "no screenshot written; stderr:\n" << r.err;
  Image img = DecodePng(png);
  EXPECT_EQ(img.width, 1280u);
  EXPECT_EQ(img.height, 2400u);
  ASSERT_FALSE(img.pixels.empty());
  std::size_t pixels = img.pixels.size() / img.channels;
  std::size_t white = PixelsNear(img, {255, 255, 255}, 8);
  EXPECT_LT(white, pixels * 98 / 100) << "the page is (almost) blank";
  EXPECT_GT(white, pixels / 2) << "the page background should be white";
  // The first series of every chart is drawn in #1f77b4, the second in
  // #ff7f0e; the critical verdict badge in #b3261e.
  EXPECT_GT(PixelsNear(img, {0x1f, 0x77, 0xb4}, 24), 500u);
  EXPECT_GT(PixelsNear(img, {0xff, 0x7f, 0x0e}, 24), 200u);
  EXPECT_GT(PixelsNear(img, {0xb3, 0x26, 0x1e}, 24), 20u);
}

TEST_F(HtmlChromium, AnalyzeReportOnRealCaptures) {
  fs::path xml = FixtureDir("xml") / "telegraf-dual-rtx2070-590.44.01-v13.xml";
  fs::path log = FixtureDir("kernel") / "ecc-howto-doc-xid48-63-94-a100-550.90.07.log";
  if (!fs::exists(xml) || !fs::exists(log))
    GTEST_SKIP() << "../shared/fixtures is not on this machine";
  TempDir dir;
  fs::path report = dir.path() / "analyze.html";
  std::string html;
  ProcessResult r = WriteAndLoad(dir,
                                 {"analyze", "--format", "html", "--lang", "zh", "--output",
                                  report.string(), xml.string(), log.string()},
                                 report, html);
  std::vector<GpuCharts> gpus = ChartsPerGpu(r.out);
  ASSERT_EQ(gpus.size(), 2u) << r.out.substr(0, 3000);
  for (const auto& g : gpus) {
    EXPECT_EQ(g.svgs + g.no_data, 5u) << g.bus_id;
    EXPECT_GE(g.svgs, 3u) << g.bus_id;  // one dump: single points, but drawn
  }
  EXPECT_NE(r.out.find("<html lang=\"zh-CN\""), std::string::npos);
  EXPECT_NE(r.out.find("内核事件"), std::string::npos);
  EXPECT_EQ(CountOf(r.out, "<svg class=\"chart\""), CountOf(html, "<svg class=\"chart\""));
}

// Readings of one NDR port every 10 s over the last 5 min: down for two
// readings (a flap), then symbol errors rising by 100 a reading.
void RecordFlappingPort(const fs::path& data_dir) {
  StoreOptions o;
  o.data_dir = data_dir.string();
  auto store = Store::Open(o);
  ASSERT_TRUE(store.ok()) << store.error().message;
  const auto now = std::chrono::system_clock::now();
  for (int i = 0; i < 30; ++i) {
    const auto at = now - std::chrono::seconds(300 - i * 10);
    const bool down = i == 10 || i == 11;
    RdmaPort p;
    p.port = 1;
    p.state = IbPortState{down ? 1 : 4, down ? "DOWN" : "ACTIVE"};
    p.active = !down;
    p.link_layer = "InfiniBand";
    p.rate_gbps = 400;
    p.rate_text = "400 Gb/sec (4X NDR)";
    p.counters = {RdmaCounter{"symbol_error", false,
                              static_cast<std::uint64_t>(i >= 20 ? (i - 19) * 100 : 0)}};
    RdmaDevice d;
    d.name = "mlx5_0";
    d.ports = {p};
    RdmaFacts f;
    f.read_at = at;
    f.devices = {d};
    ASSERT_TRUE((*store)->AppendRdma(at, f).ok());
  }
}

TEST_F(HtmlChromium, RecordedFabricChartParsesWithTheFlapMarked) {
  TempDir dir;
  RecordFlappingPort(dir.path() / "data");
  fs::path report = dir.path() / "fabric.html";
  std::string html;
  ProcessResult r = WriteAndLoad(dir,
                                 {"report", "--data-dir", (dir.path() / "data").string(),
                                  "--since", "10m", "--format", "html", "--lang", "en",
                                  "--output", report.string()},
                                 report, html);
  EXPECT_EQ(CountOf(r.out, "<svg class=\"chart\" data-metric=\"rdma_error_rate\""), 1u)
      << r.out.substr(0, 3000);
  EXPECT_EQ(CountOf(r.out, "class=\"marker port-down\""), 1u);
  EXPECT_EQ(CountOf(r.out, "class=\"marker port-flap\""), 1u);
  EXPECT_NE(r.out.find("<polyline class=\"line s0\""), std::string::npos);
  EXPECT_NE(r.out.find("data-finding=\"network.rdma_flap\""), std::string::npos);
  EXPECT_EQ(CountOf(r.out, "<svg class=\"chart\""), CountOf(html, "<svg class=\"chart\""));
}

}  // namespace html_report_chromium_e2e_local
}  // namespace gpudoctor::test
