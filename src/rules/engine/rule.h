// The shape of a diagnosis rule. Each rule lives in its own file under
// src/rules/, is a plain constant `Rule`, and is listed explicitly in a rule
// group (rules/group_*.cpp); registry.cpp joins the groups in order. No
// self-registration.
#pragma once

#include <string_view>
#include <vector>

#include "facts/diagnosis_input.h"
#include "rules/engine/finding.h"

namespace gpudoctor {

// Evidence a rule cannot do without. When the input lacks one, the engine
// does not run the rule and lists it as not checked with the reason.
enum Needs : unsigned {
  kNeedsNothing = 0,
  kNeedsGpuReadings = 1u << 0,  // at least one GPU reading (NVML or a file)
  kNeedsKernelLog = 1u << 1,    // kernel log / journal / bug-report dmesg
  kNeedsHost = 1u << 2,         // host CPU and memory (live only)
  kNeedsPci = 1u << 3,          // sysfs PCI devices (live only)
  kNeedsVersions = 1u << 4,     // driver / CUDA / framework / FM versions (live only)
  kNeedsNetwork = 1u << 5,      // interfaces, RDMA, pings (live only)
  // An active run (`gpudoctor stress`). Rules that need it are skipped
  // silently elsewhere: a diagnose or analyze never provokes, so there is
  // nothing to say about what it did not run.
  kNeedsActive = 1u << 6,
  // Xid events: the kernel log, or NVML's Xid event set watched over the
  // window (a container without the kernel log still sees NVML's).
  kNeedsXidEvents = 1u << 7,
};

// Where a rule writes what it concludes. A rule may add any number of
// findings (all with its own id and category: use MakeFinding), and may say
// why it could not judge something (NotCheckedBecause) instead.
class RuleOutput {
 public:
  RuleOutput(std::string_view id, std::string_view category) : id_(id), category_(category) {}
  // A new finding with id, category and severity filled in.
  Finding& Add(Severity severity);
  void NotCheckedBecause(Text reason);

  std::vector<Finding>& findings() { return findings_; }
  std::vector<NotChecked>& not_checked() { return not_checked_; }

 private:
  std::string_view id_;
  std::string_view category_;
  std::vector<Finding> findings_;
  std::vector<NotChecked> not_checked_;
};

struct Rule {
  std::string_view id;           // "thermal.slowdown": category, dot, what
  std::string_view category;     // "thermal", "power", "xid", "pcie", ...
  std::string_view description;  // one English line for `--list-rules` and docs
  unsigned needs = kNeedsNothing;
  // Pure: reads the input, writes findings. Never throws, never does I/O.
  void (*evaluate)(const DiagnosisInput& input, RuleOutput& out) = nullptr;
};

}  // namespace gpudoctor
