#include "prom/node_identity.h"

#include <algorithm>

namespace gpudoctor {
namespace node_identity {

constexpr std::string_view kHostLabels[] = {"Hostname", "hostname", "node", "nodename"};

const std::string& LabelOf(const PromLabels& labels, std::string_view name) {
  static const std::string kNone;
  auto it = labels.find(name);
  return it == labels.end() ? kNone : it->second;
}

// A PromQL string literal's body.
std::string Quoted(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return "\"" + out + "\"";
}

}  // namespace node_identity

using node_identity::kHostLabels;
using node_identity::LabelOf;

std::vector<std::string> NodeGroup::Matchers() const {
  std::vector<std::string> out;
  for (const auto& i : instances) out.push_back("instance=" + node_identity::Quoted(i));
  for (const auto& [label, value] : host_labels) {
    out.push_back(label + "=" + node_identity::Quoted(value));
  }
  return out;
}

std::vector<std::string> NodeGroup::Names() const {
  std::vector<std::string> out = {name};
  for (const auto* set : {&hosts, &instances}) {
    for (const auto& n : *set) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

std::vector<std::string> NodeIdentities::KeysOf(const PromLabels& labels) {
  std::vector<std::string> keys;
  const std::string& instance = LabelOf(labels, "instance");
  if (!instance.empty()) keys.push_back("i:" + instance);
  for (std::string_view name : kHostLabels) {
    const std::string& v = LabelOf(labels, name);
    if (!v.empty()) keys.push_back("h:" + v);
  }
  return keys;
}

std::string NodeIdentities::FirstKeyOf(const PromLabels& labels) {
  const std::string& instance = LabelOf(labels, "instance");
  if (!instance.empty()) return "i:" + instance;
  for (std::string_view name : kHostLabels) {
    const std::string& v = LabelOf(labels, name);
    if (!v.empty()) return "h:" + v;
  }
  return "";
}

std::string NodeIdentities::Find(const std::string& key) const {
  auto it = parent_.find(key);
  if (it == parent_.end()) return key;
  std::string root = key;
  while (parent_[root] != root) root = parent_[root];
  // Path compression keeps later look-ups short.
  for (std::string k = key; parent_[k] != root;) {
    std::string next = parent_[k];
    parent_[k] = root;
    k = next;
  }
  return root;
}

void NodeIdentities::Union(const std::string& a, const std::string& b) {
  parent_.try_emplace(a, a);
  parent_.try_emplace(b, b);
  const std::string ra = Find(a), rb = Find(b);
  if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
}

void NodeIdentities::Add(const PromLabels& labels, bool agent, double last_s) {
  const std::vector<std::string> keys = KeysOf(labels);
  if (keys.empty()) return;
  // The GPUs' many series carry the same few name sets: tie each set once
  // (each key prefixed by its length: a label value may hold any byte).
  std::string set;
  for (const auto& k : keys) set += std::to_string(k.size()) + ':' + k;
  if (tied_.insert(std::move(set)).second) {
    for (const auto& k : keys) Union(keys.front(), k);
  }
  for (std::string_view name : kHostLabels) {
    const std::string& v = LabelOf(labels, name);
    if (v.empty()) continue;
    host_label_names_[v].insert(std::string(name));
    double& last = host_last_s_[v];
    last = std::max(last, last_s);
  }
  if (agent) agent_keys_.insert(keys.front());
  for (std::string_view name : {"UUID", "uuid"}) {
    const std::string& uuid = LabelOf(labels, name);
    if (!uuid.empty()) uuid_keys_[uuid].insert(keys.front());
  }
}

void NodeIdentities::Resolve() {
  std::set<std::string> agent_roots;
  for (const auto& k : agent_keys_) agent_roots.insert(Find(k));
  // Machines without an agent that share a GPU are one machine seen by
  // successive exporters; one that shares GPUs with exactly one agent is
  // that agent's machine (a dcgm-exporter beside it). Agents are never
  // tied to each other by UUID.
  for (const auto& [uuid, keys] : uuid_keys_) {
    std::set<std::string> agents, others;
    for (const auto& k : keys) (agent_roots.count(Find(k)) ? agents : others).insert(Find(k));
    std::vector<std::string> tie(others.begin(), others.end());
    if (agents.size() == 1) tie.push_back(*agents.begin());
    for (std::size_t i = 1; i < tie.size(); ++i) Union(tie.front(), tie[i]);
  }
  std::set<std::string> agent_now;
  for (const auto& k : agent_keys_) agent_now.insert(Find(k));
  groups_.clear();
  group_of_root_.clear();
  for (const auto& [key, _] : parent_) {
    const std::string root = Find(key);
    auto [it, fresh] = group_of_root_.try_emplace(root, groups_.size());
    if (fresh) groups_.emplace_back();
    NodeGroup& g = groups_[it->second];
    const std::string value = key.substr(2);
    if (key.starts_with("i:")) g.instances.insert(value);
    if (key.starts_with("h:")) {
      g.hosts.insert(value);
      for (const auto& label : host_label_names_[value]) g.host_labels.insert({label, value});
    }
    g.agent = g.agent || agent_now.count(root) > 0;
  }
  for (auto& [root, index] : group_of_root_) {
    NodeGroup& g = groups_[index];
    std::string agent_instance;
    for (const auto& k : agent_keys_) {
      if (k.starts_with("i:") && Find(k) == root &&
          (agent_instance.empty() || k.substr(2) < agent_instance)) {
        agent_instance = k.substr(2);
      }
    }
    std::string newest_host;
    double newest_s = -1;
    for (const auto& h : g.hosts) {
      const double t = host_last_s_[h];
      if (t > newest_s || (t == newest_s && h < newest_host)) {
        newest_s = t;
        newest_host = h;
      }
    }
    if (!agent_instance.empty()) {
      g.name = agent_instance;
    } else if (!newest_host.empty()) {
      g.name = newest_host;
    } else if (!g.instances.empty()) {
      g.name = *g.instances.begin();
    }
  }
  name_of_key_.clear();
  for (const auto& [key, _] : parent_) {
    name_of_key_.emplace(key, groups_[group_of_root_.at(Find(key))].name);
  }
}

std::string NodeIdentities::NodeOf(const PromLabels& labels) const {
  auto it = name_of_key_.find(FirstKeyOf(labels));
  return it == name_of_key_.end() ? NodeOfLabels(labels) : it->second;
}

std::vector<const NodeGroup*> NodeIdentities::Matching(const std::string& node) const {
  std::vector<const NodeGroup*> out;
  for (const NodeGroup& g : groups_) {
    bool match = g.name == node || g.hosts.count(node) > 0;
    for (const auto& i : g.instances) match = match || i == node || i.starts_with(node + ":");
    if (match) out.push_back(&g);
  }
  return out;
}

}  // namespace gpudoctor
