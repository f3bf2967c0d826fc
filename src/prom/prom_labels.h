// Who a series is about, from its labels, in gpudoctor's naming or
// dcgm-exporter's: the node (Hostname/hostname/node/nodename, else the
// scrape's instance) and the GPU (pci_bus_id, gpu, uuid/UUID,
// model/modelName). And the selectors the fleet's queries are made of.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "core/result.h"

namespace gpudoctor {

using PromLabels = std::map<std::string, std::string, std::less<>>;

std::string NodeOfLabels(const PromLabels& labels);
// The labels `max by (...)` keeps so that NodeOfLabels still works.
inline constexpr std::string_view kNodeLabelList = "Hostname, hostname, node, nodename, instance";

struct GpuLabels {
  std::string pci_bus_id;  // normalised "0000:3b:00.0"; empty when absent or malformed
  std::string gpu;         // index label (or the N of device="nvidiaN")
  std::string uuid;
  std::string model;
  // The GPU's key within its node: the bus id, else "gpu <index>", else the uuid.
  std::string Key() const;
  // The name the agent's findings give the GPU (core/gpu_key.h): its bus id,
  // or "index:N" for a GPU lost before it gave one; empty when neither is
  // known.
  std::string FindingKey() const;
};
GpuLabels GpuOfLabels(const PromLabels& labels);
// A MIG GPU instance's series (dcgm-exporter's GPU_I_ID, gpudoctor's
// gpu_instance label) rather than the whole GPU's, under the same GPU labels.
bool IsMigInstanceSeries(const PromLabels& labels);

// The matchers inside --match's braces ('{job="gpudoctor"}' -> 'job="gpudoctor"');
// empty for an empty --match. kInvalid for anything but one {...} selector.
Result<std::string> MatchersOf(const std::string& match);

// "name{matchers}" or "{__name__=~"a|b",matchers}" for several names.
std::string Selector(std::string_view name, const std::string& matchers,
                     std::string_view extra = "");
std::string SelectorOfNames(const std::string& names_regex, const std::string& matchers);

}  // namespace gpudoctor
