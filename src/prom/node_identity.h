// One machine, one node, whatever names its series carry. A gpudoctor agent
// that also serves dcgm-exporter's names puts its gpudoctor_* series under
// the scrape's `instance` only and its DCGM_* series under `Hostname` too; a
// dcgm-exporter restarted in Kubernetes comes back under a new pod name as
// `Hostname` (or `hostname`) and a new pod address as `instance`. Series are
// tied into one node when they share an instance or a host label value, and
// machines without gpudoctor's agent also when they share a GPU UUID (an
// agent keeps its instance across restarts; UUIDs are the only thing a
// restarted exporter pod keeps). Pure: labels in, names out.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "prom/prom_labels.h"

namespace gpudoctor {

struct NodeGroup {
  std::string name;                 // the display name (see NodeIdentities::Resolve)
  std::set<std::string> instances;  // `instance` values
  std::set<std::string> hosts;      // Hostname / hostname / node / nodename values
  std::set<std::pair<std::string, std::string>> host_labels;  // (label, value) of those
  bool agent = false;                                         // gpudoctor's own series among them
  // "instance=\"..\"" / "Hostname=\"..\"" matchers, one per name: a
  // series of the node carries at least one of them.
  std::vector<std::string> Matchers() const;
  // Every name the node goes by, display name first.
  std::vector<std::string> Names() const;
};

class NodeIdentities {
 public:
  // Learns a series' names. `agent`: a gpudoctor_* series. `last_s`: the
  // time of its latest point known (Unix s; 0 when unknown), for the
  // display name.
  void Add(const PromLabels& labels, bool agent, double last_s = 0);
  // Ties the names into nodes; call after the last Add. A node's display
  // name: the agent's instance where an agent serves it (as gpudoctor's
  // own series name it), else the host label of its newest series, else
  // its instance. Stable for the window whatever the order of the series.
  void Resolve();

  // The display name of the node the series belongs to; NodeOfLabels for a
  // series never added.
  std::string NodeOf(const PromLabels& labels) const;
  const std::vector<NodeGroup>& Groups() const { return groups_; }
  // The nodes --node names: an instance equal to it with or without a
  // port, or a host label equal to it.
  std::vector<const NodeGroup*> Matching(const std::string& node) const;

 private:
  std::string Find(const std::string& key) const;
  void Union(const std::string& a, const std::string& b);
  // Keys of one series: "i:<instance>", "h:<host>", "u:<uuid>".
  static std::vector<std::string> KeysOf(const PromLabels& labels);
  // The first of KeysOf, or "" (the key a series is named by).
  static std::string FirstKeyOf(const PromLabels& labels);

  mutable std::map<std::string, std::string> parent_;
  std::set<std::string> tied_;  // the key sets already tied (KeysOf, joined)
  std::map<std::string, std::set<std::string>> uuid_keys_;  // uuid -> its series' name keys
  std::set<std::string> agent_keys_;
  std::map<std::string, double> host_last_s_;                      // host -> newest point
  std::map<std::string, std::set<std::string>> host_label_names_;  // host -> labels it is in
  std::vector<NodeGroup> groups_;
  std::map<std::string, std::size_t> group_of_root_;
  std::unordered_map<std::string, std::string> name_of_key_;  // every key -> its node's name
};

}  // namespace gpudoctor
