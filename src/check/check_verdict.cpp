#include "check/check_verdict.h"

#include <algorithm>
#include <array>
#include <utility>

#include "core/gpu_key.h"
#include "knowledge/recovery_policy.h"

namespace gpudoctor {
namespace {

struct ConditionSpec {
  CheckCondition condition;
  const char* name;
  std::vector<std::string_view> ids;  // empty: every finding
  bool any_warning;                   // counts from warning whatever the threshold
  const char* ok_text;                // after "<n> GPU(s): "
};

const std::vector<ConditionSpec>& Specs() {
  static const std::vector<ConditionSpec> specs = {
      {CheckCondition::kGpuHealthy, "GPUHealthy", {}, false, "healthy"},
      {CheckCondition::kGpuDropped,
       "GPUDropped",
       {"gpu.dropped", "gpu.lost", "xid.fallen_off_bus"},
       true,
       "all present"},
      {CheckCondition::kGpuThrottled,
       "GPUThrottled",
       {"thermal.slowdown", "thermal.high_temperature", "power.brake", "power.cap",
        "clocks.hw_slowdown"},
       false,
       "no clock slowdown"},
      {CheckCondition::kXidErrors,
       "XidErrors",
       {"xid.fallen_off_bus", "xid.recovery_action", "xid.gsp", "xid.memory", "xid.nvlink",
        "xid.other", "nvswitch.sxid"},
       false,
       "no Xid errors"},
  };
  return specs;
}

const ConditionSpec& SpecOf(CheckCondition condition) {
  for (const auto& spec : Specs()) {
    if (spec.condition == condition) return spec;
  }
  return Specs().front();
}

bool Matches(const ConditionSpec& spec, const CheckFinding& f, Severity threshold) {
  const Severity floor = spec.any_warning ? std::min(threshold, Severity::kWarning) : threshold;
  if (f.severity < floor) return false;
  return spec.ids.empty() || std::find(spec.ids.begin(), spec.ids.end(), f.id) != spec.ids.end();
}

// " on <bus id> +N", unless the title already names the GPU.
std::string Where(const std::vector<std::string>& gpus, const std::string& title) {
  // A GPU known only by its index: the title names it ("GPU 1 is lost").
  if (gpus.empty() || IsIndexKey(gpus.front()) || title.find(gpus.front()) != std::string::npos) {
    return "";
  }
  std::string where = " on " + gpus.front();
  if (gpus.size() > 1) where += " +" + std::to_string(gpus.size() - 1);
  return where;
}

bool IsGpuGone(const CheckFinding& f) {
  return f.id == "gpu.lost" || f.id == "gpu.dropped" || f.id == "xid.fallen_off_bus";
}

// What a finding id means in a few words, for Slurm's narrow reason column.
// A GPU that fell off the bus is first an Xid 79, then lost to NVML: both say
// "lost", so the reason does not change between them.
std::string ShortLabel(const std::string& id) {
  static const std::array<std::pair<std::string_view, std::string_view>, 6> table = {{
      {"gpu.lost", "lost"},
      // The driver's request and its Xid 154 are one cause: one reason.
      {"gpu.recovery_action", "needs recovery"},
      {"xid.recovery_action", "needs recovery"},
      {"gpu.dropped", "dropped"},
      {"xid.fallen_off_bus", "lost"},  // the same cause as gpu.lost: one reason
      {"thermal.slowdown", "thermal slowdown"},
  }};
  for (const auto& [from, to] : table) {
    if (from == id) return std::string(to);
  }
  return id;
}

// "GPU 1 lost 0000:19:00.0": what matters first, built from the finding's id
// and GPUs only, never from its title, so one cause keeps one reason (Slurm
// resets the reason's time when the text changes). A finding about no GPU in
// particular has only its title to say what it is.
std::string StableReason(const CheckFinding& f, const std::vector<CheckGpu>& gpus) {
  const std::string label = ShortLabel(f.id);
  if (f.gpus.empty()) return label + ": " + f.title;  // host-wide: "dropped: 7 of 8 expected ..."
  // A GPU hung or lost before it told its bus id ("index:N") is named by
  // its index only.
  const auto by_index = IndexOfKey(f.gpus.front());
  std::string out = "GPU";
  if (by_index) out += " " + std::to_string(*by_index);
  for (const auto& g : gpus) {
    if (!by_index && g.pci_bus_id == f.gpus.front()) out += " " + std::to_string(g.index);
  }
  out += " " + label;
  if (!by_index) out += " " + f.gpus.front();
  if (f.gpus.size() > 1) out += " +" + std::to_string(f.gpus.size() - 1) + " GPUs";
  return out;
}

std::string GpuCount(std::size_t n) { return std::to_string(n) + (n == 1 ? " GPU" : " GPUs"); }

ConditionResult Judge(const ConditionSpec& spec, const CheckSource& source, Severity threshold) {
  ConditionResult r;
  r.condition = spec.condition;
  std::vector<const CheckFinding*> hits;
  for (const auto& f : source.findings) {
    if (Matches(spec, f, threshold)) hits.push_back(&f);
  }
  // A lost or dropped GPU first, whatever sorts before it by severity: it
  // must not hide behind a slowdown on another GPU.
  std::stable_sort(hits.begin(), hits.end(), [](const CheckFinding* a, const CheckFinding* b) {
    if (IsGpuGone(*a) != IsGpuGone(*b)) return IsGpuGone(*a);
    return a->severity > b->severity;
  });
  if (!hits.empty()) {
    const CheckFinding& first = *hits.front();
    r.status = CheckStatus::kProblem;
    for (const CheckFinding* f : hits) {
      r.worst = std::max(r.worst, f->severity);
      r.recommended = Stricter(r.recommended, f->recommended);
    }
    r.reason = first.id + Where(first.gpus, first.title) + ": " + first.title;
    if (hits.size() > 1) r.reason += " (+" + std::to_string(hits.size() - 1) + " more)";
    // Slurm resets a reason's time when its text changes: its count is of
    // the other GPUs with the same cause (more GPUs lost), not of every
    // finding, so a slowdown that comes and goes, or the Xid 79 of the same
    // lost GPU, leaves it as it is.
    r.slurm_reason = StableReason(first, source.gpus);
    const auto same_cause = std::count_if(hits.begin() + 1, hits.end(), [&](const CheckFinding* f) {
      if (ShortLabel(f->id) != ShortLabel(first.id)) return false;
      return std::none_of(f->gpus.begin(), f->gpus.end(), [&](const std::string& bus) {
        return std::find(first.gpus.begin(), first.gpus.end(), bus) != first.gpus.end();
      });
    });
    if (same_cause > 0) r.slurm_reason += " +" + std::to_string(same_cause) + " more";
    // The named cause's own recovery action, not the strictest of all, so
    // that the reason stays one text while that cause lasts.
    if (first.recommended != RecoveryAction::kNone) {
      while (!r.slurm_reason.empty() && r.slurm_reason.back() == ' ') r.slurm_reason.pop_back();
      r.slurm_reason += ", " + std::string(RecoveryActionName(first.recommended));
    }
  } else if (!source.gpus_visible) {
    r.status = CheckStatus::kUnknown;
    r.reason = "unknown: " + source.unknown_reason;
    r.slurm_reason = "GPUs not visible, no NVML";
  } else {
    r.reason = GpuCount(source.gpus.size()) + ": " + spec.ok_text + " (" + source.origin + ")";
  }
  return r;
}

int Rank(CheckStatus s) {
  return s == CheckStatus::kProblem ? 2 : s == CheckStatus::kUnknown ? 1 : 0;
}

// Spellings of the non-ASCII characters our titles use.
std::string_view AsciiFor(char32_t c) {
  static const std::array<std::pair<char32_t, std::string_view>, 9> table = {{
      {U'°', ""},
      {U'—', "-"},
      {U'–', "-"},
      {U'≥', ">="},
      {U'≤', "<="},
      {U'→', "->"},
      {U'×', "x"},
      {U'…', "..."},
      {U'µ', "u"},
  }};
  for (const auto& [from, to] : table) {
    if (from == c) return to;
  }
  return "?";
}

// Decodes one UTF-8 sequence at text[i]; advances i. Malformed bytes decode
// to U+FFFD one at a time.
char32_t NextCodePoint(std::string_view text, std::size_t& i) {
  const auto b = static_cast<unsigned char>(text[i]);
  const std::size_t len = b < 0x80         ? 1
                          : (b >> 5) == 6  ? 2
                          : (b >> 4) == 14 ? 3
                          : (b >> 3) == 30 ? 4
                                           : 0;
  if (len == 0 || i + len > text.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t c = len == 1 ? b : b & (0x7F >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto cont = static_cast<unsigned char>(text[i + k]);
    if ((cont >> 6) != 2) {
      ++i;
      return 0xFFFD;
    }
    c = (c << 6) | (cont & 0x3F);
  }
  i += len;
  return c;
}

std::string Truncate(std::string text, std::size_t max_chars) {
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() <= max_chars) return text;
  text.resize(max_chars >= 3 ? max_chars - 3 : 0);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text + "...";
}

bool SlurmSafe(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view(" .,:_/+=@%-").find(c) != std::string_view::npos;
}

}  // namespace

const char* CheckConditionName(CheckCondition condition) { return SpecOf(condition).name; }

std::optional<CheckCondition> ParseCheckCondition(std::string_view name) {
  for (const auto& spec : Specs()) {
    if (name == spec.name) return spec.condition;
  }
  return std::nullopt;
}

const std::vector<CheckCondition>& AllCheckConditions() {
  static const std::vector<CheckCondition> all = [] {
    std::vector<CheckCondition> v;
    for (const auto& spec : Specs()) v.push_back(spec.condition);
    return v;
  }();
  return all;
}

void AddGpuStateFindings(CheckSource& source) {
  for (const auto& gpu : source.gpus) {
    if (gpu.state == "ok") continue;
    // Findings name a GPU by its key: the bus id, or "index:N" for a GPU
    // hung or lost before it told its bus id.
    const std::string key = GpuKeyOf(gpu.pci_bus_id, gpu.index);
    const bool named =
        std::any_of(source.findings.begin(), source.findings.end(), [&](const auto& f) {
          return f.id == "gpu.lost" && std::find(f.gpus.begin(), f.gpus.end(), key) != f.gpus.end();
        });
    if (named) continue;
    CheckFinding f;
    f.id = "gpu.lost";
    f.severity = Severity::kCritical;
    f.gpus = {key};
    f.title = "GPU " + std::to_string(gpu.index) + " is " + gpu.state +
              (gpu.state_detail.empty() ? "" : " (" + gpu.state_detail + ")");
    f.recommended = RuleRecovery("gpu.lost", Severity::kCritical);
    source.findings.insert(source.findings.begin(), std::move(f));
  }
}

CheckResult EvaluateCheck(const CheckSource& source, const std::vector<CheckCondition>& conditions,
                          Severity threshold) {
  CheckResult result;
  for (CheckCondition c : conditions) {
    result.conditions.push_back(Judge(SpecOf(c), source, threshold));
  }
  const ConditionResult* decisive = nullptr;
  for (const auto& c : result.conditions) {
    if (!decisive || Rank(c.status) > Rank(decisive->status)) decisive = &c;
    result.worst = std::max(result.worst, c.worst);
  }
  if (!decisive) return result;
  for (const auto& c : result.conditions) {
    if (c.status == CheckStatus::kProblem)
      result.recommended = Stricter(result.recommended, c.recommended);
  }
  result.status = decisive->status;
  result.reason = decisive->reason;
  result.slurm_reason = decisive->slurm_reason;
  if (result.status == CheckStatus::kOk && result.conditions.size() > 1) {
    result.reason = GpuCount(source.gpus.size()) + ": all checks passed (" + source.origin + ")";
  }
  return result;
}

std::string AsciiLine(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = NextCodePoint(text, i);
    std::string_view piece;
    char one = 0;
    if (c == '\t' || c == '\n' || c == '\r' || c == ' ') {
      one = ' ';
    } else if (c < 0x20 || c == 0x7F) {
      one = '?';
    } else if (c < 0x80) {
      one = static_cast<char>(c);
    } else {
      piece = AsciiFor(c);
    }
    if (one) piece = std::string_view(&one, 1);
    for (char ch : piece) {
      if (ch == ' ' && (out.empty() || out.back() == ' ')) continue;
      out += ch;
    }
  }
  return Truncate(std::move(out), max_chars);
}

std::string NpdLine(const CheckResult& result) {
  if (result.recommended == RecoveryAction::kNone) return AsciiLine(result.reason, 80);
  // The action last, and never cut: what the remediation needs to read.
  const std::string action =
      " [action: " + std::string(RecoveryActionName(result.recommended)) + "]";
  return AsciiLine(result.reason, 80 - action.size()) + action;
}

std::string SlurmReason(const CheckResult& result) {
  std::string safe;
  const std::string& text = result.slurm_reason.empty() ? result.reason : result.slurm_reason;
  for (char c : AsciiLine(text, 1000)) {
    const char ch = SlurmSafe(c) ? c : ' ';
    if (ch == ' ' && (safe.empty() || safe.back() == ' ')) continue;
    safe += ch;
  }
  const std::string tag = " " + std::string(kSlurmReasonTag);
  return Truncate(safe, 100 - tag.size()) + tag;
}

}  // namespace gpudoctor
