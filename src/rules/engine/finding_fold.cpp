#include "rules/engine/finding_fold.h"

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {
namespace {

// Stands for "this GPU" in a text with the GPU's own name taken out.
constexpr char kGpuMark = '\x1f';
constexpr char kKeySeparator = '\x1e';

// The names a rule may have given the GPU with this bus id, longest first:
// GpuLabel's "GPU 3 (0000:3b:00.0)", "GPU 0000:3b:00.0 (GPU-uuid)",
// "GPU 0000:3b:00.0", "GPU 3" and the bare bus id.
std::vector<std::string> NamesOfGpu(const DiagnosisInput& input, const std::string& bus) {
  std::vector<std::string> names;
  for (const GpuSeries& series : input.gpus) {
    const GpuStatus& g = series.latest();
    if (g.pci_bus_id != bus) continue;
    names.push_back(GpuLabel(g));
    if (!g.uuid.empty()) names.push_back("GPU " + bus + " (" + g.uuid + ")");
    // "Stop every process on GPU 3": remedies name the GPU by its index.
    names.push_back("GPU " + std::to_string(g.index));
  }
  names.push_back("GPU " + bus);
  names.push_back(bus);
  std::stable_sort(names.begin(), names.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return names;
}

// `text` with every one of `names` replaced by kGpuMark; `matched` gets the
// first name found (longest first), when one is.
std::string WithoutGpuName(std::string text, const std::vector<std::string>& names,
                           std::string* matched = nullptr) {
  for (const std::string& name : names) {
    if (name.empty()) continue;
    // A name is whole only when no digit follows it ("GPU 1" is not in "GPU 12").
    auto whole_at = [&text, &name](std::size_t from) {
      std::size_t at = text.find(name, from);
      while (at != std::string::npos && at + name.size() < text.size() &&
             text[at + name.size()] >= '0' && text[at + name.size()] <= '9') {
        at = text.find(name, at + 1);
      }
      return at;
    };
    std::size_t at = whole_at(0);
    if (at == std::string::npos) continue;
    if (matched != nullptr && matched->empty()) *matched = name;
    while (at != std::string::npos) {
      text.replace(at, name.size(), 1, kGpuMark);
      at = whole_at(at + 1);
    }
  }
  return text;
}

// A command with the GPU's name taken out, including nvidia-smi's
// `-i <index>` when the rule chose the GPU by index.
std::string CommandWithoutGpu(const std::string& command, const std::vector<std::string>& names,
                              const DiagnosisInput& input, const std::string& bus) {
  std::string out = WithoutGpuName(command, names);
  for (const GpuSeries& series : input.gpus) {
    if (series.latest().pci_bus_id != bus) continue;
    const std::string flag = "-i " + std::to_string(series.latest().index);
    for (std::size_t at = out.find(flag); at != std::string::npos; at = out.find(flag, at + 1)) {
      const std::size_t end = at + flag.size();
      if (end < out.size() && out[end] != ' ') continue;  // "-i 1" in "-i 12"
      out.replace(at + 3, flag.size() - 3, 1, kGpuMark);
    }
  }
  return out;
}

// English verbs that follow a GPU's name in titles, singular to plural, and
// the possessive that refers back to it.
std::string AgreeInPlural(std::string_view after) {
  static constexpr std::pair<std::string_view, std::string_view> kVerbs[] = {
      {" is ", " are "},     {" has ", " have "},     {" was ", " were "},   {" does ", " do "},
      {" runs ", " run "},   {" slows ", " slow "},   {" waits ", " wait "}, {" reports ", " report "},
      {" needs ", " need "}, {" looks ", " look "},   {" gets ", " get "},   {" answers ", " answer "},
      {" accepts ", " accept "}, {" computes ", " compute "}};
  std::string out(after);
  for (const auto& [one, many] : kVerbs) {
    if (after.substr(0, one.size()) == one) {
      out = std::string(many) + std::string(after.substr(one.size()));
      break;
    }
  }
  // "8 of 8 GPUs are slowed by the power brake of their power supply": the
  // GPU's own things become theirs.
  for (std::size_t at = out.find(" its "); at != std::string::npos; at = out.find(" its ", at + 7)) {
    out.replace(at, 5, " their ");
  }
  return out;
}

// A text with kGpuMark put back as `many` (the GPUs together); with
// `plural`, an English verb right after it agrees.
std::string WithGpus(std::string_view text, std::string_view many, bool plural) {
  std::size_t at = text.find(kGpuMark);
  std::string out(text.substr(0, at));
  while (at != std::string_view::npos) {
    std::size_t next = text.find(kGpuMark, at + 1);
    std::string_view piece = text.substr(at + 1, next == std::string_view::npos ? next : next - at - 1);
    out.append(many);
    out += plural ? AgreeInPlural(piece) : std::string(piece);
    at = next;
  }
  return out;
}

struct NormalisedFinding {
  std::size_t position = 0;  // in Diagnosis::findings
  std::string label;         // the GPU's name as the title gave it
  Text title, explanation;
  std::vector<Text> action_texts;
  std::string key;
};

NormalisedFinding Normalise(const Finding& f, std::size_t position, const DiagnosisInput& input) {
  NormalisedFinding n;
  n.position = position;
  const std::vector<std::string> names = NamesOfGpu(input, f.gpus.front());
  n.title = Text{WithoutGpuName(f.title.en, names, &n.label), WithoutGpuName(f.title.zh, names)};
  if (n.label.empty()) n.label = names.front();
  n.explanation = Text{WithoutGpuName(f.explanation.en, names), WithoutGpuName(f.explanation.zh, names)};
  n.key = f.id + kKeySeparator + SeverityName(f.severity) + kKeySeparator;
  n.key.append(RecoveryActionName(f.recommended.value_or(RecoveryAction::kNone)));
  n.key += f.recommended_by_driver ? "d" : "";
  n.key += kKeySeparator;
  for (int x : f.xids) n.key += std::to_string(x) + ",";
  for (const std::string* part : {&n.title.en, &n.title.zh, &n.explanation.en, &n.explanation.zh}) {
    n.key += kKeySeparator + *part;
  }
  for (const Action& a : f.actions) {
    n.action_texts.push_back(Text{WithoutGpuName(a.text.en, names), WithoutGpuName(a.text.zh, names)});
    n.key += kKeySeparator + n.action_texts.back().en + kKeySeparator + n.action_texts.back().zh +
             kKeySeparator + CommandWithoutGpu(a.command, names, input, f.gpus.front());
  }
  return n;
}

bool HasMark(const std::string& text) { return text.find(kGpuMark) != std::string::npos; }

// The findings of `members` (two or more, the same cause) as one.
Finding Folded(std::vector<Finding>& findings, const std::vector<const NormalisedFinding*>& members,
               std::size_t gpu_total) {
  const NormalisedFinding& first = *members.front();
  const std::size_t n = members.size();
  const bool of_total = gpu_total >= n;
  const Text count{of_total ? fmt::format("{} of {} GPUs", n, gpu_total) : fmt::format("{} GPUs", n),
                   of_total ? fmt::format("{} 块 GPU 中的 {} 块", gpu_total, n) : fmt::format("{} 块 GPU", n)};

  Finding out;
  const Finding& model = findings[first.position];
  out.id = model.id;
  out.category = model.category;
  out.severity = model.severity;
  out.recommended = model.recommended;
  out.recommended_by_driver = model.recommended_by_driver;
  out.xids = model.xids;
  if (HasMark(first.title.en)) {
    out.title = Text{WithGpus(first.title.en, count.en, true), WithGpus(first.title.zh, count.zh, false)};
  } else {
    out.title = Text{fmt::format("{} ({})", model.title.en, count.en),
                     fmt::format("{}（{}）", model.title.zh, count.zh)};
  }
  out.explanation = Text{WithGpus(first.explanation.en, "these GPUs", true),
                         WithGpus(first.explanation.zh, "这些 GPU", false)};
  for (std::size_t i = 0; i < model.actions.size(); ++i) {
    bool same = std::all_of(members.begin(), members.end(), [&](const NormalisedFinding* m) {
      const Action& a = findings[m->position].actions[i];
      return a.text.en == model.actions[i].text.en && a.command == model.actions[i].command;
    });
    if (same) {
      out.actions.push_back(model.actions[i]);
      continue;
    }
    Action a{Text{WithGpus(first.action_texts[i].en, "each of these GPUs", false),
                  WithGpus(first.action_texts[i].zh, "其中每块 GPU", false)},
             ""};
    std::vector<std::string> commands;
    for (const NormalisedFinding* m : members) {
      const std::string& c = findings[m->position].actions[i].command;
      if (!c.empty() && std::find(commands.begin(), commands.end(), c) == commands.end()) commands.push_back(c);
    }
    for (const std::string& c : commands) a.command += (a.command.empty() ? "" : "\n") + c;
    out.actions.push_back(std::move(a));
  }
  for (const NormalisedFinding* m : members) {
    Finding& f = findings[m->position];
    out.gpus.push_back(f.gpus.front());
    out.evidence.insert(out.evidence.end(), f.evidence.begin(), f.evidence.end());
    out.per_gpu.push_back(GpuShare{f.gpus.front(), m->label, std::move(f.title), std::move(f.evidence)});
  }
  return out;
}

}  // namespace

void FoldAcrossGpus(Diagnosis& d, const DiagnosisInput& input) {
  std::vector<NormalisedFinding> normalised;
  std::map<std::string, std::vector<const NormalisedFinding*>> by_key;
  normalised.reserve(d.findings.size());
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    // A finding about a GPU the evidence does not name cannot be told from
    // another such one: it stays as it is.
    if (f.gpus.size() != 1 || f.gpus.front().empty() || !f.per_gpu.empty()) continue;
    normalised.push_back(Normalise(f, i, input));
  }
  for (const NormalisedFinding& n : normalised) by_key[n.key].push_back(&n);

  std::vector<Finding> out;
  std::vector<bool> folded_away(d.findings.size(), false);
  std::map<std::size_t, const std::vector<const NormalisedFinding*>*> group_at;  // first member's position
  for (const auto& [key, members] : by_key) {
    if (members.size() < 2) continue;
    group_at[members.front()->position] = &members;
    for (const NormalisedFinding* m : members) folded_away[m->position] = true;
  }
  for (std::size_t i = 0; i < d.findings.size(); ++i) {
    if (auto g = group_at.find(i); g != group_at.end()) {
      out.push_back(Folded(d.findings, *g->second, input.gpus.size()));
    } else if (!folded_away[i]) {
      out.push_back(std::move(d.findings[i]));
    }
  }
  d.findings = std::move(out);
}

}  // namespace gpudoctor
