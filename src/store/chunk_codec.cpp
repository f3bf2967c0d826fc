#include "store/chunk_codec.h"

#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <span>

#include "store/byte_stream.h"

namespace gpudoctor {

namespace {

constexpr std::uint8_t kFormatVersion = 1;
constexpr std::uint8_t kFlagZlib = 1;
constexpr std::uint8_t kFlagZlibDictV1 = 2;

// zlib's preset dictionary for kFlagZlibDictV1: the column names of the day
// it was made, so a one-sample blob does not pay for its names. Never edit
// it (stored blobs depend on it); a new dictionary takes a new flag.
constexpr std::string_view kDictionaryV1 =
    "indexstatestate_detailnameuuidpci_bus_idpstateclock_event_reasons_maskprocessesfield_err"
    "orsfan.0fan.1nvlink.0.active.crc_flit_errors.crc_data_errors.replay_errors.recovery_erro"
    "rs|n|min|max|sum|samples|first_ms|last_ms|sampled_sthrottle|serialboard_part_numbervbios"
    "_versioninforom_image_versiongsp_firmware_enabledgsp_firmware_versionutilization_gpu_per"
    "centutilization_memory_percentmemory_total_bytesmemory_used_bytesmemory_free_bytesmemory"
    "_reserved_bytestemperature_cmemory_temperature_ctemperature_slowdown_ctemperature_shutdo"
    "wn_ctemperature_max_operating_ctemperature_memory_max_cfan_speed_percentpower_draw_wpowe"
    "r_limit_wpower_default_limit_wpower_min_limit_wpower_max_limit_wpower_enforced_limit_wen"
    "ergy_total_jclocks_graphics_mhzclocks_sm_mhzclocks_memory_mhzclocks_max_graphics_mhzcloc"
    "ks_max_sm_mhzclocks_max_memory_mhzclocks_applications_graphics_mhzclocks_applications_me"
    "mory_mhzviolation_power_nsviolation_thermal_nspersistence_modecompute_modemig_mode_enabl"
    "edmig_mode_pendingecc_mode_enabledecc_mode_pendingecc_volatile_correctedecc_volatile_unc"
    "orrectedecc_aggregate_correctedecc_aggregate_uncorrectedretired_pages_sberetired_pages_d"
    "beretired_pages_pendingremapped_rows_correctedremapped_rows_uncorrectedremapped_rows_pen"
    "dingremapped_rows_failurepcie_link_gen_currentpcie_link_gen_maxpcie_link_width_currentpc"
    "ie_link_width_maxpcie_tx_bytes_per_spcie_rx_bytes_per_spcie_replay_count";
constexpr std::uint8_t kRealXor = 0xff;
constexpr int kMaxRealScale = 6;
constexpr std::uint64_t kMaxRawBytes = 256ULL << 20;
constexpr std::uint64_t kMaxRows = 1ULL << 24;

Error Corrupt(const std::string& what) {
  return Error{ErrorCode::kCorrupt, "corrupt chunk: " + what};
}

// Ints as a stream of items: (zigzag(delta) << 1) for a changed value,
// (run << 1 | 1) for `run` > 0 repeats of the previous value, or 1 followed
// by zigzag(delta) for a delta too wide to shift.
void WriteIntChange(ByteWriter& w, std::int64_t value, std::int64_t prev) {
  std::uint64_t zz = ZigZag(static_cast<std::int64_t>(static_cast<std::uint64_t>(value) -
                                                      static_cast<std::uint64_t>(prev)));
  if (zz >> 63) {
    w.Varint(1);  // "a run of 0": the escape for a delta that needs all 64 bits
    w.Varint(zz);
  } else {
    w.Varint(zz << 1);
  }
}

void WriteInts(ByteWriter& w, const std::vector<std::int64_t>& values) {
  std::int64_t prev = 0;
  std::size_t i = 0;
  while (i < values.size()) {
    if (i > 0 && values[i] == prev) {
      std::uint64_t run = 0;
      while (i < values.size() && values[i] == prev) ++run, ++i;
      w.Varint(run << 1 | 1);
      continue;
    }
    WriteIntChange(w, values[i], prev);
    prev = values[i++];
  }
}

// WriteInts of a single value.
void WriteOneInt(ByteWriter& w, std::int64_t value) { WriteIntChange(w, value, 0); }

bool ReadInts(ByteReader& r, std::size_t count, std::vector<std::int64_t>& out) {
  out.clear();
  out.reserve(count);
  std::int64_t prev = 0;
  while (out.size() < count) {
    std::uint64_t item = 0;
    if (!r.Varint(item)) return false;
    std::uint64_t zz = item >> 1;
    if (item == 1 && !r.Varint(zz)) return false;
    if ((item & 1) && item != 1) {
      std::uint64_t run = item >> 1;
      if (out.empty() || run > count - out.size()) return false;
      out.insert(out.end(), run, prev);
    } else {
      prev = static_cast<std::int64_t>(static_cast<std::uint64_t>(prev) +
                                       static_cast<std::uint64_t>(UnZigZag(zz)));
      out.push_back(prev);
    }
  }
  return true;
}

// The smallest k such that every value is exactly an integer / 10^k.
std::optional<int> DecimalScale(std::span<const double> values) {
  for (int k = 0; k <= kMaxRealScale; ++k) {
    double scale = std::pow(10.0, k);
    bool all = true;
    for (double v : values) {
      double s = v * scale;
      double back = std::isfinite(s) ? static_cast<double>(std::llround(s)) / scale : 0;
      if (!std::isfinite(s) || std::fabs(s) >= 9.0e15 || back != v ||
          std::signbit(back) != std::signbit(v)) {
        all = false;
        break;
      }
    }
    if (all) return k;
  }
  return std::nullopt;
}

void WriteReals(ByteWriter& w, const std::vector<double>& values) {
  if (auto k = DecimalScale(values)) {
    double scale = std::pow(10.0, *k);
    std::vector<std::int64_t> ints;
    ints.reserve(values.size());
    for (double v : values) ints.push_back(std::llround(v * scale));
    w.Byte(static_cast<std::uint8_t>(*k));
    WriteInts(w, ints);
    return;
  }
  w.Byte(kRealXor);
  std::uint64_t prev = 0;
  for (double v : values) {
    auto bits = std::bit_cast<std::uint64_t>(v);
    w.Fixed64(bits ^ prev);
    prev = bits;
  }
}

// WriteReals of a single value.
void WriteOneReal(ByteWriter& w, double value) {
  if (auto k = DecimalScale(std::span<const double>(&value, 1))) {
    w.Byte(static_cast<std::uint8_t>(*k));
    WriteOneInt(w, std::llround(value * std::pow(10.0, *k)));
    return;
  }
  w.Byte(kRealXor);
  w.Fixed64(std::bit_cast<std::uint64_t>(value));
}

bool ReadReals(ByteReader& r, std::size_t count, std::vector<double>& out) {
  std::uint8_t k = 0;
  if (!r.Byte(k)) return false;
  out.clear();
  out.reserve(count);
  if (k == kRealXor) {
    std::uint64_t prev = 0;
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t x = 0;
      if (!r.Fixed64(x)) return false;
      prev ^= x;
      out.push_back(std::bit_cast<double>(prev));
    }
    return true;
  }
  if (k > kMaxRealScale) return false;
  std::vector<std::int64_t> ints;
  if (!ReadInts(r, count, ints)) return false;
  double scale = std::pow(10.0, k);
  for (std::int64_t v : ints) out.push_back(static_cast<double>(v) / scale);
  return true;
}

// Texts as items: (len << 1) then the bytes for a new string, or
// (run << 1 | 1) for repeats of the previous one.
void WriteNewText(ByteWriter& w, const std::string& text) {
  w.Varint(static_cast<std::uint64_t>(text.size()) << 1);
  w.str().append(text);
}

void WriteTexts(ByteWriter& w, const std::vector<std::string>& values) {
  std::size_t i = 0;
  while (i < values.size()) {
    if (i > 0 && values[i] == values[i - 1]) {
      std::uint64_t run = 0;
      const std::string& prev = values[i - 1];
      while (i < values.size() && values[i] == prev) ++run, ++i;
      w.Varint(run << 1 | 1);
      continue;
    }
    WriteNewText(w, values[i]);
    ++i;
  }
}

bool ReadTexts(ByteReader& r, std::size_t count, std::vector<std::string>& out) {
  out.clear();
  out.reserve(count);
  while (out.size() < count) {
    std::uint64_t item = 0;
    if (!r.Varint(item)) return false;
    if (item & 1) {
      std::uint64_t run = item >> 1;
      if (out.empty() || run == 0 || run > count - out.size()) return false;
      std::string prev = out.back();
      out.insert(out.end(), run, prev);
    } else {
      std::string s;
      if (!r.Raw(item >> 1, s)) return false;
      out.push_back(std::move(s));
    }
  }
  return true;
}

// Presence as alternating run lengths, starting with an absent run.
void WritePresence(ByteWriter& w, const std::vector<bool>& present) {
  std::vector<std::uint64_t> runs;
  bool state = false;
  std::uint64_t run = 0;
  for (bool p : present) {
    if (p != state) {
      runs.push_back(run);
      state = p;
      run = 0;
    }
    ++run;
  }
  runs.push_back(run);
  w.Varint(runs.size());
  for (auto r : runs) w.Varint(r);
}

bool ReadPresence(ByteReader& r, std::size_t rows, std::vector<bool>& present, std::size_t& count) {
  std::uint64_t nruns = 0;
  if (!r.Varint(nruns) || nruns > rows + 1) return false;
  present.clear();

  count = 0;
  bool state = false;
  for (std::uint64_t i = 0; i < nruns; ++i, state = !state) {
    std::uint64_t run = 0;
    if (!r.Varint(run) || run > rows - present.size()) return false;
    present.insert(present.end(), run, state);
    if (state) count += run;
  }
  return present.size() == rows;
}

// zlib's state for one-sample blobs, kept per thread and reset between
// uses: the agent compresses a few of them every second, and setting up a
// stream each time cost about as much as compressing.
class SmallDeflater {
 public:
  ~SmallDeflater() {
    if (level_ != 0) deflateEnd(&z_);
  }
  z_stream* Ready(int level) {
    if (level_ == level) return deflateReset(&z_) == Z_OK ? &z_ : nullptr;
    if (level_ != 0) deflateEnd(&z_);
    z_ = z_stream{};
    // A one-sample blob needs neither a 32 KiB window nor a big hash table.
    level_ = deflateInit2(&z_, level, Z_DEFLATED, 12, 2, Z_DEFAULT_STRATEGY) == Z_OK ? level : 0;
    return level_ != 0 ? &z_ : nullptr;
  }

 private:
  z_stream z_{};
  int level_ = 0;
};

bool Deflate(std::string_view raw, int level, std::string& out) {
  const bool small = raw.size() < 4096;
  z_stream big{};
  z_stream* z = &big;
  if (small) {
    thread_local SmallDeflater small_deflater;
    z = small_deflater.Ready(level);
    if (z == nullptr) return false;
  } else if (deflateInit2(&big, level, Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return false;
  }
  bool ok = deflateSetDictionary(z, reinterpret_cast<const Bytef*>(kDictionaryV1.data()),
                                 static_cast<uInt>(kDictionaryV1.size())) == Z_OK;
  out.resize(deflateBound(z, static_cast<uLong>(raw.size())));
  z->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z->avail_in = static_cast<uInt>(raw.size());
  z->next_out = reinterpret_cast<Bytef*>(out.data());
  z->avail_out = static_cast<uInt>(out.size());
  ok = ok && deflate(z, Z_FINISH) == Z_STREAM_END;
  out.resize(z->total_out);
  if (!small) deflateEnd(&big);
  return ok;
}

// zlib's inflate state, kept per thread and reset between uses: sealing a
// chunk inflates every one-sample blob of it, and setting up a stream (and
// its window) each time cost more than inflating.
class Inflater {
 public:
  ~Inflater() {
    if (ready_) inflateEnd(&z_);
  }
  z_stream* Ready() {
    if (ready_) return inflateReset(&z_) == Z_OK ? &z_ : nullptr;
    z_ = z_stream{};
    ready_ = inflateInit(&z_) == Z_OK;
    return ready_ ? &z_ : nullptr;
  }

 private:
  z_stream z_{};
  bool ready_ = false;
};

bool Inflate(std::string_view packed, std::uint64_t raw_size, bool dictionary, std::string& out) {
  out.assign(raw_size, '\0');
  thread_local Inflater inflater;
  z_stream* zp = inflater.Ready();
  if (zp == nullptr) return false;
  z_stream& z = *zp;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);
  if (rc == Z_NEED_DICT && dictionary &&
      inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(kDictionaryV1.data()),
                           static_cast<uInt>(kDictionaryV1.size())) == Z_OK) {
    rc = inflate(&z, Z_FINISH);
  }
  return rc == Z_STREAM_END && z.total_out == raw_size && z.avail_in == 0;
}

// The blob: version, flags, and the raw encoding, deflated when that is
// smaller.
std::string Pack(const std::string& raw, int zlib_level) {
  ByteWriter out;
  out.Byte(kFormatVersion);
  std::string packed;
  if (zlib_level > 0 && Deflate(raw, zlib_level, packed) && packed.size() + 4 < raw.size()) {
    out.Byte(kFlagZlibDictV1);
    out.Varint(raw.size());
    out.str().append(packed);
  } else {
    out.Byte(0);
    out.str().append(raw);
  }
  return std::move(out.str());
}

std::string EncodeRaw(const ColumnSet& set) {
  ByteWriter w;
  w.Varint(set.times_ms.size());
  std::int64_t prev = 0;
  std::int64_t prev_delta = 0;
  for (std::size_t i = 0; i < set.times_ms.size(); ++i) {
    std::int64_t delta = set.times_ms[i] - prev;
    w.Signed(i == 0 ? set.times_ms[i] : delta - prev_delta);
    prev_delta = i == 0 ? 0 : delta;
    prev = set.times_ms[i];
  }
  w.Varint(set.columns.size());
  for (const Column& c : set.columns) {
    w.Bytes(c.name);
    w.Byte(static_cast<std::uint8_t>(c.type));
    WritePresence(w, c.present);
    switch (c.type) {
      case ColumnType::kInt:
        WriteInts(w, c.ints);
        break;
      case ColumnType::kReal:
        WriteReals(w, c.reals);
        break;
      case ColumnType::kText:
        WriteTexts(w, c.texts);
        break;
    }
  }
  return std::move(w.str());
}

Result<ColumnSet> DecodeRaw(std::string_view raw) {
  ByteReader r(raw);
  ColumnSet set;
  std::uint64_t rows = 0;
  if (!r.Varint(rows) || rows > kMaxRows) return Corrupt("bad row count");
  set.times_ms.reserve(std::min<std::uint64_t>(rows, raw.size()));
  std::int64_t prev = 0;
  std::int64_t prev_delta = 0;
  for (std::uint64_t i = 0; i < rows; ++i) {
    std::int64_t v = 0;
    if (!r.Signed(v)) return Corrupt("truncated timestamps");
    if (i == 0) {
      prev = v;
    } else {
      prev_delta += v;
      prev += prev_delta;
    }
    set.times_ms.push_back(prev);
  }
  std::uint64_t ncols = 0;
  if (!r.Varint(ncols) || ncols > raw.size()) return Corrupt("bad column count");
  for (std::uint64_t i = 0; i < ncols; ++i) {
    Column c;
    std::uint8_t type = 0;
    std::size_t count = 0;
    if (!r.Bytes(c.name) || !r.Byte(type) || type > 2) return Corrupt("bad column header");
    c.type = static_cast<ColumnType>(type);
    if (!ReadPresence(r, rows, c.present, count)) return Corrupt("bad nulls of " + c.name);
    bool ok = false;
    switch (c.type) {
      case ColumnType::kInt:
        ok = ReadInts(r, count, c.ints);
        break;
      case ColumnType::kReal:
        ok = ReadReals(r, count, c.reals);
        break;
      case ColumnType::kText:
        ok = ReadTexts(r, count, c.texts);
        break;
    }
    if (!ok) return Corrupt("bad values of " + c.name);
    set.columns.push_back(std::move(c));
  }
  if (!r.at_end()) return Corrupt("trailing bytes");
  return set;
}

}  // namespace

void ColumnSetBuilder::AddRow(std::int64_t time_ms, const std::vector<NamedCell>& cells) {
  std::size_t row = set_.times_ms.size();
  set_.times_ms.push_back(time_ms);
  hint_ = 0;
  for (const NamedCell& cell : cells) {
    auto type = static_cast<ColumnType>(cell.value.index());
    Column& c = ColumnFor(cell.name, type);
    if (c.present.size() > row) continue;  // a repeated name: first wins
    if (c.type == ColumnType::kText) {
      if (type != ColumnType::kText) continue;
      c.texts.push_back(std::get<std::string>(cell.value));
    } else if (type == ColumnType::kText) {
      continue;
    } else if (c.type == ColumnType::kInt) {
      c.ints.push_back(type == ColumnType::kInt ? std::get<std::int64_t>(cell.value)
                                                : std::llround(std::get<double>(cell.value)));
    } else {
      c.reals.push_back(type == ColumnType::kReal
                            ? std::get<double>(cell.value)
                            : static_cast<double>(std::get<std::int64_t>(cell.value)));
    }
    c.present.push_back(true);
  }
  for (Column& c : set_.columns) {
    if (c.present.size() <= row) c.present.push_back(false);
  }
}

Column& ColumnSetBuilder::ColumnFor(std::string_view name, ColumnType type) {
  if (hint_ < set_.columns.size() && set_.columns[hint_].name == name) {
    return set_.columns[hint_++];
  }
  if (auto it = index_.find(name); it != index_.end()) {
    hint_ = it->second + 1;
    return set_.columns[it->second];
  }
  Column c;
  c.name = std::string(name);
  c.type = type;
  c.present.assign(set_.times_ms.size() - 1, false);
  index_.emplace(c.name, set_.columns.size());
  hint_ = set_.columns.size() + 1;
  set_.columns.push_back(std::move(c));
  return set_.columns.back();
}

ColumnSet ColumnSetBuilder::Take() {
  index_.clear();
  hint_ = 0;
  return std::exchange(set_, ColumnSet{});
}

ColumnSetReader::ColumnSetReader(const ColumnSet& set)
    : set_(set), cursor_(set.columns.size(), 0) {}

Result<std::string> EncodeColumnSet(const ColumnSet& set, int zlib_level) {
  for (const Column& c : set.columns) {
    std::size_t count = 0;
    for (bool p : c.present) count += p ? 1 : 0;
    std::size_t values = c.type == ColumnType::kInt    ? c.ints.size()
                         : c.type == ColumnType::kReal ? c.reals.size()
                                                       : c.texts.size();
    if (c.present.size() != set.times_ms.size() || values != count) {
      return Error{ErrorCode::kInvalid, "column " + c.name + " does not match the row count"};
    }
  }
  return Pack(EncodeRaw(set), zlib_level);
}

std::string EncodeRow(std::int64_t time_ms, const std::vector<NamedCell>& cells,
                      int zlib_level) {
  ByteWriter w;
  w.str().reserve(64 + 32 * cells.size());
  w.Varint(1);  // rows
  w.Signed(time_ms);
  w.Varint(cells.size());
  for (const NamedCell& cell : cells) {
    w.Bytes(cell.name);
    w.Byte(static_cast<std::uint8_t>(cell.value.index()));
    w.Varint(2);  // presence: no absent row, then one present row
    w.Varint(0);
    w.Varint(1);
    if (const auto* i = std::get_if<std::int64_t>(&cell.value)) {
      WriteOneInt(w, *i);
    } else if (const auto* d = std::get_if<double>(&cell.value)) {
      WriteOneReal(w, *d);
    } else {
      WriteNewText(w, std::get<std::string>(cell.value));
    }
  }
  return Pack(std::move(w.str()), zlib_level);
}

Result<ColumnSet> DecodeColumnSet(std::string_view blob) {
  ByteReader r(blob);
  std::uint8_t version = 0;
  std::uint8_t flags = 0;
  if (!r.Byte(version) || !r.Byte(flags)) return Corrupt("too short");
  if (version != kFormatVersion) {
    return Corrupt("unknown format version " + std::to_string(version));
  }
  if (flags == 0) return DecodeRaw(blob.substr(2));
  if (flags != kFlagZlib && flags != kFlagZlibDictV1) return Corrupt("unknown flags");
  std::uint64_t raw_size = 0;
  if (!r.Varint(raw_size) || raw_size > kMaxRawBytes) return Corrupt("bad size");
  std::string raw;
  if (!Inflate(blob.substr(r.position()), raw_size, flags == kFlagZlibDictV1, raw)) {
    return Corrupt("zlib data damaged");
  }
  return DecodeRaw(raw);
}

}  // namespace gpudoctor
