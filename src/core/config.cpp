#include "core/config.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <map>

#include "core/duration.h"

namespace gpudoctor {
namespace {

// An accepted interval for a number; open ends exclude the bound.
struct Range {
  double lo;
  double hi;
  bool lo_open;
  bool hi_open;

  bool Contains(double v) const {
    if (!std::isfinite(v)) return false;
    if (lo_open ? v <= lo : v < lo) return false;
    if (hi_open ? v >= hi : v > hi) return false;
    return true;
  }
  std::string Text() const {
    if (std::isinf(hi)) return fmt::format("{} {}", lo_open ? "above" : "at least", lo);
    return fmt::format("in {}{}, {}{}", lo_open ? '(' : '[', lo, hi, hi_open ? ')' : ']');
  }
};

constexpr double kInf = HUGE_VAL;
constexpr Range kPercent{0, 100, false, false};
constexpr Range kFraction{0, 1, true, false};  // (0, 1]

struct ThresholdKey {
  const char* name;
  double Thresholds::*member;
  Range range;
};

constexpr ThresholdKey kThresholdKeys[] = {
    {"utilization_wasted_below_percent", &Thresholds::utilization_wasted_below_percent, kPercent},
    {"utilization_normal_min_percent", &Thresholds::utilization_normal_min_percent, kPercent},
    {"utilization_normal_max_percent", &Thresholds::utilization_normal_max_percent, kPercent},
    {"utilization_saturated_percent", &Thresholds::utilization_saturated_percent, kPercent},
    {"memory_high_percent", &Thresholds::memory_high_percent, kPercent},
    {"temperature_high_c", &Thresholds::temperature_high_c, {0, 150, true, false}},
    {"power_near_limit_ratio", &Thresholds::power_near_limit_ratio, kFraction},
    {"power_fluctuation_cv", &Thresholds::power_fluctuation_cv, {0, 10, true, false}},
};

const char* TypeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

// Errors are one line, even when they quote a key or a character of the
// text that is a line break.
std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

class Parser {
 public:
  explicit Parser(std::string_view source) : source_(source) {}

  std::optional<Error> Fail(const toml::source_region& where, std::string_view key,
                            std::string_view why) const {
    return Error{ErrorCode::kInvalid,
                 OneLine(fmt::format("{}:{}: {}: {}", source_, where.begin.line, key, why))};
  }

  // A key's own position when toml++ has one, else its value's.
  static const toml::source_region& Where(const toml::key& k, const toml::node& v) {
    return k.source().begin.line != 0 ? k.source() : v.source();
  }

  std::optional<Error> Number(const toml::node& v, const toml::source_region& where,
                              std::string_view key, const Range& range, double& out) const {
    double d = 0;
    if (const auto* i = v.as_integer()) {
      d = static_cast<double>(i->get());
    } else if (const auto* f = v.as_floating_point()) {
      d = f->get();
    } else {
      return Fail(where, key, fmt::format("expected a number, got {}", TypeName(v)));
    }
    if (!range.Contains(d)) return Fail(where, key, fmt::format("{} is not {}", d, range.Text()));
    out = d;
    return std::nullopt;
  }

  std::optional<Error> ThresholdsSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "thresholds." + std::string(k.str());
      const auto& where = Where(k, v);
      const ThresholdKey* found = nullptr;
      for (const auto& tk : kThresholdKeys)
        if (k.str() == tk.name) found = &tk;
      if (found == nullptr) return Fail(where, key, "unknown key");
      if (auto e = Number(v, where, key, found->range, cfg.thresholds.*(found->member))) return e;
      threshold_lines_[found->name] = where;
    }
    // The utilisation bands must be ordered: wasted <= normal min <= normal max <= saturated.
    const auto& th = cfg.thresholds;
    struct Pair {
      const char* low;
      double low_value;
      const char* high;
      double high_value;
    };
    const Pair pairs[] = {
        {"utilization_wasted_below_percent", th.utilization_wasted_below_percent,
         "utilization_normal_min_percent", th.utilization_normal_min_percent},
        {"utilization_normal_min_percent", th.utilization_normal_min_percent,
         "utilization_normal_max_percent", th.utilization_normal_max_percent},
        {"utilization_normal_max_percent", th.utilization_normal_max_percent,
         "utilization_saturated_percent", th.utilization_saturated_percent},
    };
    for (const auto& p : pairs) {
      if (p.low_value <= p.high_value) continue;
      // Name the key the file set; the low one when it set both.
      const bool low_set = threshold_lines_.count(p.low) != 0;
      const char* named = low_set ? p.low : p.high;
      const char* other = low_set ? p.high : p.low;
      const double named_value = low_set ? p.low_value : p.high_value;
      const double other_value = low_set ? p.high_value : p.low_value;
      return Fail(threshold_lines_.at(named), std::string("thresholds.") + named,
                  fmt::format("{} is {} {} ({})", named_value, low_set ? "above" : "below", other,
                              other_value));
    }
    return std::nullopt;
  }

  std::optional<Error> PowerSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "power." + std::string(k.str());
      const auto& where = Where(k, v);
      double d = 0;
      if (k.str() == "psu_capacity_w") {
        if (auto e = Number(v, where, key, {0, kInf, true, true}, d)) return e;
        cfg.psu_capacity_w = d;
      } else if (k.str() == "headroom_ratio") {
        if (auto e = Number(v, where, key, {0, 1, false, true}, d)) return e;
        cfg.psu_headroom_ratio = d;
      } else {
        return Fail(where, key, "unknown key");
      }
    }
    return std::nullopt;
  }

  std::optional<Error> GpusSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "gpus." + std::string(k.str());
      const auto& where = Where(k, v);
      if (k.str() != "expected_count") return Fail(where, key, "unknown key");
      const auto* i = v.as_integer();
      if (i == nullptr)
        return Fail(where, key, fmt::format("expected an integer, got {}", TypeName(v)));
      const std::int64_t n = i->get();
      if (n < 1 || n > 1024) return Fail(where, key, fmt::format("{} is not in [1, 1024]", n));
      cfg.expected_gpus = static_cast<unsigned>(n);
    }
    return std::nullopt;
  }

  std::optional<Error> WindowSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "window." + std::string(k.str());
      const auto& where = Where(k, v);
      if (k.str() != "sustained_fraction") return Fail(where, key, "unknown key");
      if (auto e = Number(v, where, key, kFraction, cfg.sustained_fraction)) return e;
    }
    return std::nullopt;
  }

  // One of the [network] ib_* keys; nullopt when it was read, else the error.
  std::optional<Error> IbKey(std::string_view name, const toml::node& v,
                             const toml::source_region& where, const std::string& key,
                             IbConfig& ib) {
    double d = 0;
    if (name == "ib_ports") {
      const auto* i = v.as_integer();
      if (i == nullptr)
        return Fail(where, key, fmt::format("expected an integer, got {}", TypeName(v)));
      if (i->get() < 0 || i->get() > 1024)
        return Fail(where, key, fmt::format("{} is not in [0, 1024]", i->get()));
      ib.ports = static_cast<unsigned>(i->get());
      return std::nullopt;
    }
    std::optional<Error> e;
    if (name == "ib_rate_gbps") {
      e = Number(v, where, key, {0, kInf, true, true}, d);
      if (!e) ib.rate_gbps = d;
    } else if (name == "ib_symbol_errors_per_hour") {
      e = Number(v, where, key, {0, kInf, true, true}, ib.symbol_errors_per_hour);
    } else if (name == "ib_error_count") {
      e = Number(v, where, key, {1, kInf, false, true}, ib.error_count);
    } else if (name == "ib_drop_minutes") {
      e = Number(v, where, key, {0, kInf, true, true}, ib.drop_minutes);
    } else {
      return Fail(where, key, "unknown key");
    }
    return e;
  }

  // An array of strings into `out` (replaced only when all are good); `why_not`
  // gives the reason an item is refused, empty when it is fine.
  template <typename WhyNot>
  std::optional<Error> StringArray(const toml::node& v, const toml::source_region& where,
                                   const std::string& key, std::vector<std::string>& out,
                                   WhyNot why_not) {
    const auto* arr = v.as_array();
    if (arr == nullptr)
      return Fail(where, key, fmt::format("expected an array of strings, got {}", TypeName(v)));
    std::vector<std::string> items;
    for (const auto& item : *arr) {
      const auto& at = item.source().begin.line != 0 ? item.source() : where;
      const auto* s = item.as_string();
      if (s == nullptr)
        return Fail(at, key, fmt::format("expected a string, got {}", TypeName(item)));
      const std::string& text = s->get();
      if (std::string why = why_not(text); !why.empty()) return Fail(at, key, why);
      items.push_back(text);
    }
    out = std::move(items);
    return std::nullopt;
  }

  std::optional<Error> NetworkSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "network." + std::string(k.str());
      const auto& where = Where(k, v);
      if (k.str() != "ping") {
        if (auto e = IbKey(k.str(), v, where, key, cfg.ib)) return e;
        continue;
      }
      auto e = StringArray(v, where, key, cfg.ping_targets, [](const std::string& text) {
        return text.empty() || text.find_first_of(" \t\r\n") != std::string::npos
                   ? fmt::format("'{}' is not a host or host:port", text)
                   : std::string();
      });
      if (e) return e;
    }
    return std::nullopt;
  }

  // NOLINTNEXTLINE(readability-make-member-function-const): one member-pointer type for all sections
  std::optional<Error> StorageSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "storage." + std::string(k.str());
      const auto& where = Where(k, v);
      if (k.str() != "dataset_mounts") return Fail(where, key, "unknown key");
      auto e = StringArray(v, where, key, cfg.dataset_mounts, [](const std::string& text) {
        return text.empty() || text.front() != '/' || text.find('\0') != std::string::npos
                   ? fmt::format("'{}' is not an absolute path", text)
                   : std::string();
      });
      if (e) return e;
    }
    return std::nullopt;
  }

  std::optional<Error> MetricsSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string key = "metrics." + std::string(k.str());
      const auto& where = Where(k, v);
      if (k.str() == "names") {
        const auto* s = v.as_string();
        if (s == nullptr)
          return Fail(where, key, fmt::format("expected a string, got {}", TypeName(v)));
        auto names = ParseMetricNames(s->get());
        if (!names)
          return Fail(where, key,
                      fmt::format("'{}' is not gpudoctor, dcgm or both", OneLine(s->get())));
        cfg.metric_names = *names;
      } else if (k.str() == "top_processes") {
        const auto* i = v.as_integer();
        if (i == nullptr)
          return Fail(where, key, fmt::format("expected an integer, got {}", TypeName(v)));
        const std::int64_t n = i->get();
        if (n < 0 || n > kMaxTopProcesses)
          return Fail(where, key, fmt::format("{} is not in [0, {}]", n, kMaxTopProcesses));
        cfg.metrics_top_processes = static_cast<unsigned>(n);
      } else {
        return Fail(where, key, "unknown key");
      }
    }
    return std::nullopt;
  }

  // One code's level: `family` "xid" or "sxid", `code_text` its number.
  std::optional<Error> SeverityOf(std::string_view family, std::string_view code_text,
                                  const toml::node& v, const toml::source_region& where,
                                  Config& cfg) const {
    const std::string key = fmt::format("severity.{}.{}", family, code_text);
    std::int64_t code = 0;
    bool digits = !code_text.empty() && code_text.size() <= 6;
    for (char c : code_text) digits = digits && c >= '0' && c <= '9';
    if (digits) code = std::stoll(std::string(code_text));
    if (!digits || code < 1)
      return Fail(where, key,
                  fmt::format("'{}' is not an {} code (a number from 1)", code_text,
                              family == "xid" ? "Xid" : "SXid"));
    const auto* s = v.as_string();
    if (s == nullptr)
      return Fail(where, key, fmt::format("expected a string, got {}", TypeName(v)));
    static const std::pair<std::string_view, Level> kLevels[] = {
        {"info", Level::kInfo}, {"warning", Level::kWarning}, {"critical", Level::kCritical}};
    for (const auto& [name, level] : kLevels) {
      if (s->get() == name) {
        (family == "xid" ? cfg.severity.xid : cfg.severity.sxid)[static_cast<int>(code)] = level;
        return std::nullopt;
      }
    }
    return Fail(where, key,
                fmt::format("'{}' is not info, warning or critical", OneLine(s->get())));
  }

  // `xid.94 = "warning"` is a dotted key (table xid, key 94); a quoted
  // `"xid.94"` is one key. Both mean the same.
  std::optional<Error> SeveritySection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string_view name = k.str();
      const auto& where = Where(k, v);
      if (auto dot = name.find('.'); dot != std::string_view::npos) {
        std::string_view family = name.substr(0, dot);
        if (family != "xid" && family != "sxid")
          return Fail(where, "severity." + std::string(name), "unknown key (xid.N or sxid.N)");
        if (auto e = SeverityOf(family, name.substr(dot + 1), v, where, cfg)) return e;
        continue;
      }
      if (name != "xid" && name != "sxid")
        return Fail(where, "severity." + std::string(name), "unknown key (xid.N or sxid.N)");
      const auto* codes = v.as_table();
      if (codes == nullptr)
        return Fail(where, "severity." + std::string(name),
                    fmt::format("expected {}.N = \"level\", got {}", name, TypeName(v)));
      for (auto&& [ck, cv] : *codes) {
        if (auto e = SeverityOf(name, ck.str(), cv, Where(ck, cv), cfg)) return e;
      }
    }
    return std::nullopt;
  }

  // A count of reboots (or of recoveries), 0 (never, or no limit) to 100.
  std::optional<Error> Reboots(const toml::node& v, const toml::source_region& where,
                               const std::string& key, int& out) const {
    const auto* i = v.as_integer();
    if (i == nullptr)
      return Fail(where, key, fmt::format("expected an integer, got {}", TypeName(v)));
    if (i->get() < 0 || i->get() > 100)
      return Fail(where, key, fmt::format("{} is not in [0, 100] (0: never)", i->get()));
    out = static_cast<int>(i->get());
    return std::nullopt;
  }

  std::optional<Error> EscalationXid(std::string_view code_text, const toml::node& v,
                                     const toml::source_region& where, Config& cfg) const {
    const std::string key = fmt::format("escalation.xid.{}", code_text);
    bool digits = !code_text.empty() && code_text.size() <= 6;
    for (char c : code_text) digits = digits && c >= '0' && c <= '9';
    const std::int64_t code = digits ? std::stoll(std::string(code_text)) : 0;
    if (code < 1)
      return Fail(where, key, fmt::format("'{}' is not an Xid code (a number from 1)", code_text));
    return Reboots(v, where, key, cfg.escalation.xid_after_reboots[static_cast<int>(code)]);
  }

  // after_reboots = N, window = "7d", dedup = "3m", xid.N = reboots (a
  // dotted key or an [escalation.xid] table).
  // NOLINTNEXTLINE(readability-make-member-function-const): the section table's one signature
  std::optional<Error> EscalationSection(const toml::table& t, Config& cfg) {
    for (auto&& [k, v] : t) {
      const std::string_view name = k.str();
      const std::string key = "escalation." + std::string(name);
      const auto& where = Where(k, v);
      if (name == "after_reboots") {
        if (auto e = Reboots(v, where, key, cfg.escalation.after_reboots)) return e;
      } else if (name == "max_recoveries") {
        if (auto e = Reboots(v, where, key, cfg.escalation.max_recoveries)) return e;
      } else if (name == "window" || name == "dedup" || name == "recovery_period") {
        const auto* text = v.as_string();
        if (text == nullptr)
          return Fail(where, key, fmt::format("expected a duration (\"7d\"), got {}", TypeName(v)));
        auto d = ParseDuration(text->get(), std::chrono::seconds(1));
        if (!d) return Fail(where, key, d.error().message);
        (name == "window"  ? cfg.escalation.window
         : name == "dedup" ? cfg.escalation.dedup
                           : cfg.escalation.recovery_period) = *d;
      } else if (name.rfind("xid.", 0) == 0) {
        if (auto e = EscalationXid(name.substr(4), v, where, cfg)) return e;
      } else if (name == "xid" && v.is_table()) {
        for (auto&& [ck, cv] : *v.as_table()) {
          if (auto e = EscalationXid(ck.str(), cv, Where(ck, cv), cfg)) return e;
        }
      } else {
        return Fail(
            where, key,
            "unknown key (after_reboots, window, dedup, xid.N, max_recoveries or recovery_period)");
      }
    }
    return std::nullopt;
  }

  std::optional<Error> Document(const toml::table& doc, Config& cfg) {
    using Section = std::optional<Error> (Parser::*)(const toml::table&, Config&);
    static const std::pair<std::string_view, Section> kSections[] = {
        {"thresholds", &Parser::ThresholdsSection},
        {"power", &Parser::PowerSection},
        {"gpus", &Parser::GpusSection},
        {"window", &Parser::WindowSection},
        {"network", &Parser::NetworkSection},
        {"metrics", &Parser::MetricsSection},
        {"storage", &Parser::StorageSection},
        {"severity", &Parser::SeveritySection},
        {"escalation", &Parser::EscalationSection},
    };
    for (auto&& [k, v] : doc) {
      const auto& where = Where(k, v);
      Section section = nullptr;
      for (const auto& [name, fn] : kSections)
        if (k.str() == name) section = fn;
      if (section == nullptr)
        return Fail(where, k.str(), v.is_table() ? "unknown section" : "unknown key");
      const auto* table = v.as_table();
      if (table == nullptr)
        return Fail(where, k.str(), fmt::format("expected a section, got {}", TypeName(v)));
      if (auto e = (this->*section)(*table, cfg)) return e;
    }
    return std::nullopt;
  }

 private:
  std::string_view source_;
  std::map<std::string, toml::source_region> threshold_lines_;
};

}  // namespace

Result<Config> ParseConfig(std::string_view toml_text, std::string_view source_name) {
  toml::table doc;
#if TOML_EXCEPTIONS
  try {
    doc = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& err) {
    return Error{ErrorCode::kCorrupt,
                 fmt::format("{}:{}:{}: TOML syntax: {}", source_name, err.source().begin.line,
                             err.source().begin.column, OneLine(std::string(err.description())))};
  }
#else
  toml::parse_result parsed = toml::parse(toml_text, source_name);
  if (!parsed) {
    const auto& err = parsed.error();
    return Error{ErrorCode::kCorrupt,
                 fmt::format("{}:{}:{}: TOML syntax: {}", source_name, err.source().begin.line,
                             err.source().begin.column, OneLine(std::string(err.description())))};
  }
  doc = std::move(parsed).table();
#endif
  Config cfg;
  cfg.source = std::string(source_name);
  Parser parser(source_name);
  if (auto e = parser.Document(doc, cfg)) return *e;
  return cfg;
}

namespace {

// Reads a whole regular file; the error names the file.
Result<std::string> ReadConfigFile(const std::string& path) {
  const std::string context = "config file " + path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoError(errno, context);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return ErrnoError(err, context);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{ErrorCode::kInvalid,
                 context + (S_ISDIR(st.st_mode) ? ": is a directory, not a TOML file"
                                                : ": not a regular file")};
  }
  std::string text;
  char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      return ErrnoError(err, context);
    }
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > (1u << 20)) {
      ::close(fd);
      return Error{ErrorCode::kInvalid, context + ": larger than 1 MiB, not a config file"};
    }
  }
  ::close(fd);
  return text;
}

}  // namespace

Result<Config> LoadConfig(const std::optional<std::string>& explicit_path,
                          std::string_view default_path) {
  std::string path;
  if (explicit_path) {
    path = *explicit_path;
  } else {
    path = std::string(default_path);
    struct stat st {};
    // Only absence falls back to the defaults; anything else there is read and must be valid.
    if (::lstat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) return Config{};
  }
  auto text = ReadConfigFile(path);
  if (!text) return text.error();
  return ParseConfig(*text, path);
}

}  // namespace gpudoctor
