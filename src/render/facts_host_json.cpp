#include "render/facts_host_json.h"

#include "render/facts_json_util.h"

namespace gpudoctor {

using facts_json::OrNull;
using facts_json::Sources;
using Json = nlohmann::ordered_json;

namespace {

void PutPercents(Json& out, const CpuPercent& p) {
  out["total_percent"] = p.total_percent;
  out["user_percent"] = p.user_percent;
  out["system_percent"] = p.system_percent;
  out["iowait_percent"] = p.iowait_percent;
  out["steal_percent"] = p.steal_percent;
  out["idle_percent"] = p.idle_percent;
}

Json ContainerJson(const std::optional<ContainerRef>& c) {
  if (!c) return nullptr;
  Json out;
  out["runtime"] = c->runtime;
  out["container_id"] = c->container_id;
  out["pod_uid"] = c->pod_uid;
  return out;
}

Json CpuJson(const HostFacts& f) {
  Json out;
  const CpuUsage& u = f.cpu_usage;
  out["window_s"] = u.window_s;
  out["available"] = u.available;
  if (!u.available) out["why"] = u.why;
  PutPercents(out, u.total);
  Json cores = Json::array();
  for (const auto& c : u.cores) {
    Json one;
    one["cpu"] = c.cpu;
    PutPercents(one, c.usage);
    cores.push_back(std::move(one));
  }
  out["cores"] = std::move(cores);
  out["load_1m"] = f.cpu.load ? Json(f.cpu.load->load1) : Json(nullptr);
  out["load_5m"] = f.cpu.load ? Json(f.cpu.load->load5) : Json(nullptr);
  out["load_15m"] = f.cpu.load ? Json(f.cpu.load->load15) : Json(nullptr);
  out["online_cores"] = OrNull(f.cpu.online_cores);
  out["online_list"] = f.cpu.online_list;
  out["cgroup_quota_cores"] = OrNull(f.cpu.cgroup_quota_cores);
  out["effective_cores"] = OrNull(f.cpu.effective_cores);
  out["cores_per_gpu"] = OrNull(f.cores_per_gpu);
  Json top = Json::array();
  for (const auto& p : u.top_processes) {
    Json one;
    one["pid"] = p.pid;
    one["comm"] = p.comm;
    one["cmdline"] = p.cmdline;
    one["cpu_percent"] = p.cpu_percent;
    top.push_back(std::move(one));
  }
  out["top_processes"] = std::move(top);
  out["sources"] = Sources(f.cpu.sources);
  return out;
}

Json MemoryJson(const HostFacts& f) {
  const MemoryFacts& m = f.memory;
  Json out;
  out["total_bytes"] = OrNull(m.total_bytes);
  out["available_bytes"] = OrNull(m.available_bytes);
  out["used_bytes"] = OrNull(m.used_bytes);
  out["used_percent"] = OrNull(m.used_percent);
  out["swap_total_bytes"] = OrNull(m.swap_total_bytes);
  out["swap_used_bytes"] = OrNull(m.swap_used_bytes);
  out["window_s"] = m.window_s;
  out["swap_in_bytes_per_s"] = OrNull(m.swap_in_bytes_per_s);
  out["swap_out_bytes_per_s"] = OrNull(m.swap_out_bytes_per_s);
  out["major_faults_per_s"] = OrNull(m.major_faults_per_s);
  out["cgroup_limit_bytes"] = OrNull(f.cgroup.memory_limit_bytes);
  if (f.ram_to_gpu) {
    Json r;
    r["ratio"] = f.ram_to_gpu->ratio;
    r["verdict"] = f.ram_to_gpu->verdict;
    r["recommendation"] = f.ram_to_gpu->recommendation;
    out["ram_to_gpu"] = std::move(r);
  } else {
    out["ram_to_gpu"] = nullptr;
  }
  out["sources"] = Sources(m.sources);
  return out;
}

Json LimitsJson(const KernelLimits& l) {
  Json out;
  out["open_files"] = OrNull(l.open_files);
  out["open_files_max"] = OrNull(l.open_files_max);
  out["threads"] = OrNull(l.threads);
  out["pid_max"] = OrNull(l.pid_max);
  out["threads_max"] = OrNull(l.threads_max);
  out["sources"] = Sources(l.sources);
  return out;
}

}  // namespace

Json ToJson(const CgroupLimits& c) {
  Json out;
  out["version"] = c.version;
  out["path"] = c.cgroup_path;
  out["cpu_quota_cores"] = OrNull(c.cpu_quota_cores);
  out["cpu_quota_file"] = c.cpu_quota_file;
  out["memory_limit_bytes"] = OrNull(c.memory_limit_bytes);
  out["memory_limit_file"] = c.memory_limit_file;
  out["container"] = ContainerJson(c.container);
  if (c.throttling) {
    const CpuThrottling& t = *c.throttling;
    out["throttling"] = Json{{"window_s", t.window_s},
                             {"periods", t.periods},
                             {"throttled_periods", t.throttled_periods},
                             {"throttled_s", t.throttled_s},
                             {"file", t.file}};
  } else {
    out["throttling"] = nullptr;
  }
  out["sources"] = Sources(c.sources);
  return out;
}

namespace {

Json ProcessStatesJson(const ProcessStateFacts& p) {
  Json stuck = Json::array();
  for (const StuckProcess& s : p.stuck) {
    stuck.push_back(Json{{"pid", s.pid},
                         {"comm", s.comm},
                         {"cmdline", s.cmdline},
                         {"wchan", s.wchan},
                         {"kernel_thread", s.kernel_thread},
                         {"checks", s.checks},
                         {"stuck_for_s", s.stuck_for_s}});
  }
  Json parents = Json::array();
  for (const ZombieParent& z : p.zombie_parents) {
    parents.push_back(Json{{"pid", z.pid}, {"comm", z.comm}, {"zombies", z.zombies}});
  }
  return Json{{"checks", p.checks},
              {"stuck", stuck},
              {"zombies", OrNull(p.zombies)},
              {"zombie_parents", parents},
              {"sources", Sources(p.sources)}};
}

Json EdacJson(const EdacFacts& e) {
  Json dimms = Json::array();
  for (const EdacDimm& d : e.dimms) {
    dimms.push_back(Json{{"controller", d.controller},
                         {"name", d.name},
                         {"label", d.label},
                         {"corrected", d.corrected},
                         {"uncorrected", OrNull(d.uncorrected)}});
  }
  return Json{{"present", e.present},
              {"dimms", dimms},
              {"uncorrected_unnamed", e.uncorrected_unnamed},
              {"counting_for_s", OrNull(e.counting_for_s)},
              {"sources", Sources(e.sources)}};
}

}  // namespace

Json ToJson(const HostFacts& facts) {
  Json out;
  out["cpu"] = CpuJson(facts);
  out["memory"] = MemoryJson(facts);
  out["cgroup"] = ToJson(facts.cgroup);
  out["uptime_s"] = OrNull(facts.uptime_s);
  out["limits"] = LimitsJson(facts.limits);
  Json disks = Json::array();
  for (const DiskSpace& d : facts.disk_space.disks) {
    disks.push_back(Json{{"path", d.path},
                         {"total_bytes", d.total_bytes},
                         {"free_bytes", d.free_bytes},
                         {"inodes_total", OrNull(d.inodes_total)},
                         {"inodes_free", OrNull(d.inodes_free)}});
  }
  Json unresponsive = Json::array();
  for (const UnresponsiveMount& m : facts.disk_space.unresponsive) {
    unresponsive.push_back(Json{
        {"path", m.path}, {"fs_type", m.fs_type}, {"source", m.source}, {"dataset", m.dataset}});
  }
  out["disk_space"] = Json{{"disks", disks},
                           {"unresponsive", unresponsive},
                           {"network_mounts", facts.disk_space.network_mounts},
                           {"sources", Sources(facts.disk_space.sources)}};
  out["processes"] = ProcessStatesJson(facts.processes);
  out["edac"] = EdacJson(facts.edac);
  return out;
}

Json ToJson(const std::vector<ProcessInfo>& processes) {
  Json out = Json::array();
  for (const auto& p : processes) {
    Json one;
    one["pid"] = p.pid;
    one["visible"] = p.visible;
    if (!p.visible) one["why_not_visible"] = p.why_not_visible;
    one["comm"] = p.comm;
    one["cmdline"] = p.cmdline;
    one["uid"] = OrNull(p.uid);
    one["user"] = p.user;
    one["cgroup_path"] = p.cgroup_path;
    one["container"] = ContainerJson(p.container);
    out.push_back(std::move(one));
  }
  return out;
}

}  // namespace gpudoctor
