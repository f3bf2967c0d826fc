#include "cli/zh_messages.h"

#include <regex>
#include <vector>

namespace gpudoctor {
namespace {
namespace zh_messages {

struct Template {
  // "{}" marks a placeholder that holds no ": " (a path, a value, one clause:
  // what follows a ": " is another clause, translated on its own); "{*}" one
  // that may hold anything (a nested message in parentheses or after a fixed
  // lead-in).
  const char* en;
  const char* zh;  // as many "{}" as the English has placeholders, in the same order
};

// Most specific first: the first template that matches the whole text wins.
constexpr Template kTemplates[] = {
    // Usage and options (CLI11's words and ours).
    {"{*} (see gpudoctor --help)", "{}（见 gpudoctor --help）"},
    {"The following argument was not expected: {}", "不认识的参数：{}"},
    {"The following arguments were not expected: {}", "不认识的参数：{}"},
    {"A subcommand is required", "需要一个子命令"},
    {"{}: 1 required {} missing", "{}：缺少一个 {} 值"},
    {"{}: {} required {} missing", "{}：缺少 {} 个 {} 值"},
    {"{} is required", "缺少必填项 {}"},
    {"{} requires {}", "{} 需要与 {} 一起使用"},
    {"{} excludes {}", "{} 不能与 {} 一起使用"},
    {"Could not convert: {}", "无法转换：{}"},
    {"{*} (use e.g. 500ms, 10s, 5m, 2h, 7d)", "{}（例如 500ms、10s、5m、2h、7d）"},
    {"invalid duration '{}'", "无效的时长“{}”"},
    {"must be at least {}", "至少为 {}"},
    {"must be above 0", "必须大于 0"},
    {"no number", "没有数字"},
    {"expected HOST:PORT or :PORT", "应为 HOST:PORT 或 :PORT"},
    {"expected a duration such as 30s", "应为时长，例如 30s"},
    {"expected en or zh", "应为 en 或 zh"},
    {"expected debug, info, warning or error", "应为 debug、info、warning 或 error"},
    {"the port is not a number 0-65535", "端口不是 0 到 65535 之间的数字"},
    {"not gpudoctor, dcgm or both", "应为 gpudoctor、dcgm 或 both"},
    {"use warning or critical", "应为 warning 或 critical"},
    {"not a number of watts above 0", "不是大于 0 的瓦数"},
    {"not a hex number", "不是十六进制数"},
    {"--npd and --slurm exclude each other", "--npd 和 --slurm 不能同时使用"},
    {"{} is not between 1s and 24h", "{} 不在 1s 到 24h 之间"},
    {"{} is longer than --duration {}", "{} 比 --duration {} 还长"},
    {"only one reading would be taken (shorten --interval or lengthen --duration)",
     "只会取一次读数（缩短 --interval 或加长 --duration）"},
    {"--prometheus needs --node (the instance or host label)",
     "--prometheus 需要 --node（instance 或主机名标签）"},
    {"--prometheus and --data-dir: give one or the other", "--prometheus 和 --data-dir 只能给一个"},

    // The driver and the GPUs.
    {"no NVIDIA GPU or driver found on this machine ({*}); nothing to diagnose. To read files from "
     "another machine: gpudoctor analyze FILE...",
     "本机没有找到 NVIDIA GPU 或驱动（{}），无可诊断。要分析另一台机器的文件：gpudoctor analyze 文件..."},
    {"no NVIDIA GPU or driver found on this machine ({*}); nothing to fix",
     "本机没有找到 NVIDIA GPU 或驱动（{}），无可修复"},
    {"no NVIDIA GPU or driver found on this machine ({*})", "本机没有找到 NVIDIA GPU 或驱动（{}）"},
    {"no NVIDIA GPU or driver found on this machine", "本机没有找到 NVIDIA GPU 或驱动"},
    {"no NVIDIA driver found ({*}); install the NVIDIA driver (Debian: 'apt install nvidia-driver', or "
     "your cloud's GPU driver package), or point GPUDOCTOR_NVML_LIBRARY at libnvidia-ml.so.1",
     "没有找到 NVIDIA 驱动（{}）；请安装 NVIDIA 驱动（Debian：'apt install nvidia-driver'，或云厂商的 "
     "GPU 驱动包），或将 GPUDOCTOR_NVML_LIBRARY 指向 libnvidia-ml.so.1"},
    {"no NVIDIA driver found ({*})", "没有找到 NVIDIA 驱动（{}）"},
    {"no NVIDIA driver found", "没有找到 NVIDIA 驱动"},
    {"no usable NVIDIA driver: {*}", "没有可用的 NVIDIA 驱动：{}"},
    {"cannot load the NVIDIA management library {}", "无法加载 NVIDIA 管理库 {}"},
    {"cannot load the CUDA driver library {}", "无法加载 CUDA 驱动库 {}"},
    {"{} is not a usable NVML library: symbol {} is missing", "{} 不是可用的 NVML 库：缺少符号 {}"},
    {"{} is not a usable CUDA driver library: symbol {} is missing",
     "{} 不是可用的 CUDA 驱动库：缺少符号 {}"},
    {"the NVIDIA driver did not answer nvmlInit_v2 within {}",
     "NVIDIA 驱动在 {} 内没有响应 nvmlInit_v2"},
    {"{} ms (the driver is hung)", "{} 毫秒（驱动已挂起）"},
    {"missing (nvidia kernel module not loaded)", "不存在（nvidia 内核模块未加载）"},
    {"cannot open shared object file", "无法打开共享库文件"},
    {"no GPU with bus id {}", "没有总线地址为 {} 的 GPU"},
    {"no such GPU (give an index, a UUID or a PCI bus id; {} GPU(s) present)",
     "没有这块 GPU（请给出序号、UUID 或 PCI 总线地址；本机有 {} 块 GPU）"},
    {"no GPU to test", "没有可测试的 GPU"},
    {"unknown test '{}' (hbm, memory, pcie, p2p, power)",
     "未知的测试“{}”（hbm、memory、pcie、p2p、power）"},
    {"NVML initialisation failed: {*}", "NVML 初始化失败：{}"},
    {"the NVIDIA kernel driver is not loaded ({}); load it with 'sudo modprobe nvidia' or install the NVIDIA "
     "driver (Debian: 'apt install nvidia-driver'); check 'dmesg | grep -i nvrm'",
     "NVIDIA 内核驱动未加载（{}）；用 'sudo modprobe nvidia' 加载，或安装 NVIDIA 驱动（Debian：'apt install "
     "nvidia-driver'）；检查 'dmesg | grep -i nvrm'"},
    {"{} ({}); the driver was upgraded without reloading the kernel module: reboot, or unload and reload the "
     "nvidia modules",
     "{}（{}）；驱动升级后没有重新加载内核模块：请重启，或卸载后重新加载 nvidia 模块"},
    {"{} ({}); run as a user allowed to open /dev/nvidia*, or as root",
     "{}（{}）；请以可以打开 /dev/nvidia* 的用户或 root 运行"},
    {"{} ({}); check 'dmesg | grep -i nvrm' and that 'nvidia-smi' works",
     "{}（{}）；检查 'dmesg | grep -i nvrm' 以及 'nvidia-smi' 是否正常"},
    {"cannot run stress: no CUDA driver: {*}", "无法运行 stress：没有 CUDA 驱动：{}"},
    {"cannot run stress: CUDA does not start: {*}", "无法运行 stress：CUDA 无法启动：{}"},
    {"cannot run stress: {*}", "无法运行 stress：{}"},
    {"another gpudoctor stress is running ({}); one stress run at a time per machine",
     "另一个 gpudoctor stress 正在运行（{}）；每台机器同一时间只能运行一个"},
    {"stopped after {} s; kernels stopped, device memory freed",
     "{} 秒后已停止；内核已停止，显存已释放"},
    {"{} on {} GPU(s), up to {} s", "{}，{} 块 GPU，最长 {} 秒"},
    {"will run {} on {} GPU(s) [{}], each test for at most {} s ({} s in all), {}. No GPU setting is "
     "changed. Ctrl-C stops it.",
     "将运行 {}，{} 块 GPU（{}），每项测试最长 {} 秒（共 {} 秒），{}。不会更改任何 GPU 设置。按 Ctrl-C 停止。"},
    {"GPUs started one after another", "GPU 依次启动"},
    {"all GPUs started together", "所有 GPU 同时启动"},
    {"GPUs started one after another{}", "GPU 依次启动{}"},
    {"all GPUs started together{}", "所有 GPU 同时启动{}"},
    {"; memory test over {} % of free memory", "；内存测试覆盖 {} % 的空闲显存"},

    // Files and folders.
    {"none of the given files could be analysed", "给出的文件都无法分析"},
    {"not an nvidia-smi, bug report or kernel log file",
     "不是 nvidia-smi 输出、bug report 或内核日志文件"},
    {"not a file (a directory)", "不是文件（是目录）"},
    {"not a regular file", "不是普通文件"},
    {"not a file", "不是文件"},
    {"not a directory", "不是目录"},
    {"no such file", "文件不存在"},
    {"no path", "没有给出路径"},
    {"exists and is not a directory", "已存在且不是目录"},
    {"cannot be read", "无法读取"},
    {"cannot write", "无法写入"},
    {"directory {} does not exist", "目录 {} 不存在"},
    {"is a directory, not a TOML file", "是目录，不是 TOML 文件"},
    {"larger than 1 MiB, not a config file", "大于 1 MiB，不是配置文件"},
    {"larger than 1 MiB", "大于 1 MiB"},
    {"gzip data truncated at byte {} (the input ends there)",
     "gzip 数据在第 {} 字节处截断（输入到此结束）"},
    {"gzip data truncated at byte {}", "gzip 数据在第 {} 字节处截断"},
    {"analysed as far as it decompresses", "已分析到能解压的部分为止"},
    {"gzip data truncated (unexpected end of file)", "gzip 数据被截断（文件意外结束）"},
    {"gzip data corrupt at byte {}", "gzip 数据在第 {} 字节处损坏"},
    {"out of memory decompressing", "解压时内存不足"},
    {"refused unread: {*}", "未读取即拒绝：{}"},
    {"read as a pasted text: {*}", "按粘贴的文本读取：{}"},

    // The store and the report.
    {"no gpudoctor store here (has `gpudoctor agent` run with this data directory?)",
     "这里没有 gpudoctor 数据库（`gpudoctor agent` 是否用这个数据目录运行过？）"},
    {"{*} (nothing recorded: is `gpudoctor agent` running? For a check now: gpudoctor diagnose)",
     "{}（没有记录：`gpudoctor agent` 在运行吗？要立即检查：gpudoctor diagnose）"},
    {"not a gpudoctor store (it holds other tables)", "不是 gpudoctor 数据库（其中是别的表）"},
    {"the store is empty", "数据库是空的"},
    {"the store is open read-only", "数据库以只读方式打开"},
    {"written by a newer gpudoctor (store schema {})",
     "由更新版本的 gpudoctor 写入（数据库版本 {}）"},
    {"the window is empty: --from is not before --to", "时间窗为空：--from 不早于 --to"},
    {"window ends before it starts", "时间窗的结束早于开始"},
    {"another gpudoctor agent (pid {}) is writing to this store",
     "另一个 gpudoctor agent（pid {}）正在写入这个数据库"},
    {"no answer within {}", "{} 内没有响应"},
    {"query '{*}'", "查询“{}”"},
    {"cannot connect (is it running, and is the URL right?)", "无法连接（它在运行吗？URL 对吗？）"},
    {"no connection within {} ms", "{} 毫秒内没有连上"},
    {"no complete answer within {} ms (--prometheus-timeout), or the connection closed",
     "{} 毫秒内没有完整的响应（--prometheus-timeout），或连接已关闭"},
    {"cannot resolve '{}'", "无法解析“{}”"},
    {"the answer is not the query API's JSON: {*}", "响应不是查询 API 的 JSON：{}"},
    {"ignoring the agent state {*}; running a {}", "忽略 agent 状态 {}；改为运行{}"},

    // The C library's words for the usual errno values.
    {"No such file or directory", "没有那个文件或目录"},
    {"Permission denied", "权限不够"},
    {"Is a directory", "是一个目录"},
    {"Not a directory", "不是目录"},
    {"No space left on device", "设备上没有空间"},
    {"Read-only file system", "只读文件系统"},
    {"File exists", "文件已存在"},
    {"Connection refused", "连接被拒绝"},
    {"Address already in use", "地址已在使用"},
    {"Cannot assign requested address", "无法指定被请求的地址"},
    {"Operation not permitted", "不允许的操作"},
    {"Invalid argument", "无效的参数"},
    {"Too many open files", "打开的文件过多"},
    {"Input/output error", "输入/输出错误"},
    {"Connection timed out", "连接超时"},
    {"Network is unreachable", "网络不可达"},
};

struct Compiled {
  std::regex pattern;
  std::vector<std::string> literals;  // the English between the placeholders
  std::string zh;
};

// Lines longer than this pass untranslated: a message that quotes a long
// outside text is not worth the regular expressions' time (or their stack).
constexpr std::size_t kMaxTranslatedBytes = 1024;

std::vector<std::string> LiteralsOf(std::string_view en) {
  std::vector<std::string> out;
  std::size_t start = 0;
  std::size_t pos = 0;
  while ((pos = en.find('{', pos)) != std::string_view::npos) {
    const std::size_t width = en.compare(pos, 3, "{*}") == 0 ? 3 : en.compare(pos, 2, "{}") == 0 ? 2 : 0;
    if (width == 0) {
      ++pos;
      continue;
    }
    if (pos > start) out.emplace_back(en.substr(start, pos - start));
    start = pos = pos + width;
  }
  if (start < en.size()) out.emplace_back(en.substr(start));
  return out;
}

// Whether the literals occur in order: a cheap test before the regex.
bool MayMatch(std::string_view text, const std::vector<std::string>& literals) {
  std::size_t at = 0;
  for (const std::string& l : literals) {
    at = text.find(l, at);
    if (at == std::string_view::npos) return false;
    at += l.size();
  }
  return true;
}

// "{}" becomes a lazy group; the rest is matched literally.
std::regex PatternOf(std::string_view en) {
  std::string re;
  for (std::size_t i = 0; i < en.size(); ++i) {
    if (en.compare(i, 2, "{}") == 0) {
      re += "((?:(?!: ).)+?)";
      ++i;
      continue;
    }
    if (en.compare(i, 3, "{*}") == 0) {
      re += "(.+?)";
      i += 2;
      continue;
    }
    const char c = en[i];
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) re += '\\';
    re += c;
  }
  return std::regex(re, std::regex::ECMAScript);
}

const std::vector<Compiled>& Catalog() {
  static const std::vector<Compiled> catalog = [] {
    std::vector<Compiled> out;
    for (const Template& t : kTemplates) out.push_back({PatternOf(t.en), LiteralsOf(t.en), t.zh});
    return out;
  }();
  return catalog;
}

constexpr int kMaxDepth = 8;

std::string Translate(std::string_view text, int depth);

// The whole text by one template, its placeholders translated in turn.
bool ByTemplate(std::string_view text, int depth, std::string& out) {
  const std::string s(text);
  for (const Compiled& c : Catalog()) {
    if (!MayMatch(text, c.literals)) continue;
    std::smatch m;
    if (!std::regex_match(s, m, c.pattern)) continue;
    out.clear();
    std::size_t group = 1;
    for (std::size_t i = 0; i < c.zh.size(); ++i) {
      if (c.zh.compare(i, 2, "{}") == 0 && group < m.size()) {
        out += Translate(m[static_cast<int>(group++)].str(), depth + 1);
        ++i;
      } else {
        out += c.zh[i];
      }
    }
    return true;
  }
  return false;
}

std::string Translate(std::string_view text, int depth) {
  if (depth > kMaxDepth || text.empty()) return std::string(text);
  std::string out;
  if (ByTemplate(text, depth, out)) return out;
  // "CONTEXT: REASON": each side on its own (a path or option stays as it is).
  const std::size_t colon = text.find(": ");
  if (colon != std::string_view::npos) {
    return Translate(text.substr(0, colon), depth + 1) + ": " +
           Translate(text.substr(colon + 2), depth + 1);
  }
  return std::string(text);
}

}  // namespace zh_messages
}  // namespace

std::string TranslateMessageZh(std::string_view message) {
  if (message.size() > zh_messages::kMaxTranslatedBytes) return std::string(message);
  return zh_messages::Translate(message, 0);
}

std::string TranslateStderrLineZh(std::string_view line) {
  static const std::regex prefix("^gpudoctor( [a-z]+)?: ");
  const std::string s(line);
  std::smatch m;
  if (!std::regex_search(s, m, prefix)) return s;
  const std::size_t n = static_cast<std::size_t>(m.length(0));
  return s.substr(0, n) + TranslateMessageZh(line.substr(n));
}

bool HasCjk(std::string_view text) {
  // U+4E00..U+9FFF and the full-width punctuation U+3000..U+303F, U+FF00..U+FFEF
  // start with the bytes E4-E9, E3 80-BF, EF BC-BF in UTF-8.
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    const auto b1 = static_cast<unsigned char>(text[i + 1]);
    if (b0 >= 0xE4 && b0 <= 0xE9) return true;
    if (b0 == 0xE3 && b1 >= 0x80 && b1 <= 0xBF) return true;
    if (b0 == 0xEF && b1 >= 0xBC && b1 <= 0xBF) return true;
  }
  return false;
}

}  // namespace gpudoctor
