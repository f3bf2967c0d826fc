#include "render/facts_versions_json.h"

#include "knowledge/framework_compat.h"
#include "render/facts_json_util.h"

#include <nlohmann/json.hpp>

namespace gpudoctor {
namespace {

using Json = nlohmann::ordered_json;

template <typename T, typename F>
Json MapOrNull(const std::optional<T>& v, F&& f) {
  return v ? Json(f(*v)) : Json(nullptr);
}

Json Str(const std::optional<std::string>& v) {
  return MapOrNull(v, [](const std::string& s) { return s; });
}

Json Driver(const std::optional<DriverVersion>& v) {
  return MapOrNull(v, [](const DriverVersion& d) { return d.ToString(); });
}

Json Cuda(const std::optional<CudaVersion>& v) {
  return MapOrNull(v, [](const CudaVersion& c) { return c.ToString(); });
}

Json Verdict(const std::optional<CudaSupportVerdict>& v) { return v ? ToJson(*v) : Json(nullptr); }

using facts_json::Sources;

Json Issues(const std::vector<FrameworkIssueId>& ids) {
  Json arr = Json::array();
  for (const auto id : ids) {
    const auto& info = FrameworkIssue(id);
    arr.push_back(Json{{"id", info.key}, {"summary", info.summary}, {"advice", info.advice}});
  }
  return arr;
}

Json Service(const ServiceState& s) {
  Json j;
  j["unit"] = s.unit;
  j["load_state"] = s.load_state;
  j["active_state"] = s.active_state;
  j["sub_state"] = s.sub_state;
  j["running"] = s.Running();
  j["exec_main_status"] = MapOrNull(s.exec_main_status, [](int v) { return v; });
  j["main_pid"] = MapOrNull(s.main_pid, [](std::uint32_t v) { return v; });
  return j;
}

Json Framework(const FrameworkInstall& f) {
  Json j;
  j["name"] = f.name;
  j["version"] = f.version.empty() ? Json(nullptr) : Json(f.version);
  j["source"] = f.source;
  j["cuda_build"] = Cuda(f.cuda);
  j["cuda_build_major"] =
      f.cuda ? Json(f.cuda->major) : MapOrNull(f.cuda_major, [](int v) { return v; });
  j["cuda_build_source"] = f.cuda_source.empty() ? Json(nullptr) : Json(f.cuda_source);
  j["cudnn_build"] = Str(f.cudnn);
  j["cpu_only_build"] = f.cpu_only;
  j["rocm_build"] = f.rocm;
  j["on_driver"] = Verdict(f.check.verdict);
  j["issues"] = Issues(f.check.issues);
  return j;
}

Json Stack(const GpuStackFacts& f) {
  if (!f.read) return nullptr;
  Json acs = Json::array();
  for (const AcsRedirect& a : f.acs_redirects) {
    acs.push_back(Json{{"port", a.port}, {"gpu", a.gpu}, {"control", a.control}});
  }
  Json iommu = Json::object();
  for (const auto& [gpu, type] : f.iommu_types) iommu[gpu] = type;
  Json cdi = Json::array();
  for (const CdiSpec& spec : f.containers.cdi_specs) {
    Json versions = Json::array();
    for (const DriverVersion& v : spec.driver_versions) versions.push_back(v.ToString());
    cdi.push_back(Json{{"path", spec.path}, {"driver_versions", versions}});
  }
  const ContainerStack& c = f.containers;
  return Json{
      {"virtual_machine", MapOrNull(f.virtual_machine, [](bool b) { return b; })},
      {"modules", MapOrNull(f.modules, [](const std::vector<std::string>& m) { return m; })},
      {"infiniband_devices", f.infiniband_devices},
      {"iommu_group_types", iommu},
      {"acs_redirects", acs},
      {"acs_ports_read", f.acs_ports_read},
      {"acs_ports_unreadable", f.acs_unreadable},
      {"containers",
       Json{{"runtimes", c.runtimes},
            {"kubernetes", c.kubernetes},
            {"toolkit", c.toolkit},
            {"docker_nvidia_runtime", MapOrNull(c.docker_nvidia_runtime, [](bool b) { return b; })},
            {"containerd_nvidia", MapOrNull(c.containerd_nvidia, [](bool b) { return b; })},
            {"containerd_config", c.containerd_config},
            {"cdi_specs", cdi}}},
      {"sources", Sources(f.sources)}};
}

}  // namespace

Json ToJson(const CudaSupportVerdict& v) {
  Json j;
  j["support"] = CudaSupportName(v.support);
  j["driver_max_cuda"] =
      v.driver_max_cuda.major == 0 ? Json(nullptr) : Json(v.driver_max_cuda.ToString());
  j["min_driver_native"] = Driver(v.min_driver);
  j["min_driver_minor_compat"] = Driver(v.min_driver_minor_compat);
  return j;
}

Json ToJson(const DriverFacts& f) {
  Json j;
  if (f.kernel_module) {
    j["kernel_module"] = Json{{"version", f.kernel_module->version.ToString()},
                              {"open_module", f.kernel_module->open_module},
                              {"arch", f.kernel_module->arch},
                              {"build_info", f.kernel_module->build_info},
                              {"gcc_version", f.kernel_module->gcc_version}};
  } else {
    j["kernel_module"] = nullptr;
  }
  Json libs = Json::array();
  for (const auto& lib : f.libraries) {
    libs.push_back(Json{{"path", lib.path},
                        {"library", lib.library},
                        {"version", lib.version.ToString()},
                        {"matches_kernel_module", lib.matches_kernel_module}});
  }
  j["user_space_libraries"] = std::move(libs);
  j["nvml_version"] = Driver(f.nvml_version);
  j["driver_version"] = Driver(f.effective_version);
  j["driver_version_source"] =
      f.effective_source.empty() ? Json(nullptr) : Json(f.effective_source);
  j["version_mismatch"] = f.version_mismatch;
  j["version_mismatch_details"] = f.mismatch_details;
  Json gsp;
  if (f.gsp.enable_gpu_firmware) {
    const auto& p = *f.gsp.enable_gpu_firmware;
    gsp["enable_gpu_firmware_param"] = p.raw;
    gsp["mode"] = GspModeName(p.mode);
    gsp["allow_fallback"] = p.allow_fallback;
    gsp["default_on_ws_server"] = p.default_on_ws_server;
  } else {
    gsp["enable_gpu_firmware_param"] = nullptr;
    gsp["mode"] = nullptr;
  }
  gsp["firmware_dir"] = f.gsp.firmware_dir.empty() ? Json(nullptr) : Json(f.gsp.firmware_dir);
  gsp["firmware_files"] = f.gsp.firmware_files;
  j["gsp_firmware"] = std::move(gsp);
  const auto& p = f.persistenced;
  j["persistence_daemon"] = Json{{"source", p.source},
                                 {"running", MapOrNull(p.running, [](bool b) { return b; })},
                                 {"active_state", p.active_state},
                                 {"sub_state", p.sub_state},
                                 {"pid", MapOrNull(p.pid, [](std::uint32_t v) { return v; })}};
  j["sources"] = Sources(f.sources);
  return j;
}

Json ToJson(const CudaFacts& f) {
  Json j;
  j["driver_version"] = Driver(f.driver);
  j["driver_cuda_version"] = Cuda(f.driver_cuda);
  j["driver_max_cuda"] = Cuda(f.driver_max_cuda);
  Json toolkits = Json::array();
  for (const auto& t : f.toolkits) {
    toolkits.push_back(Json{{"path", t.path},
                            {"version", t.version.ToString()},
                            {"version_file", t.version_file},
                            {"is_default", t.is_default},
                            {"on_driver", Verdict(t.on_driver)}});
  }
  j["toolkits"] = std::move(toolkits);
  if (f.nvcc) {
    j["nvcc"] = Json{{"path", f.nvcc->path},
                     {"release", f.nvcc->version.release.ToString()},
                     {"build", f.nvcc->version.build},
                     {"on_driver", Verdict(f.nvcc->on_driver)}};
  } else {
    j["nvcc"] = nullptr;
  }
  Json runtimes = Json::array();
  for (const auto& r : f.runtimes) {
    runtimes.push_back(Json{{"path", r.path},
                            {"found_via", r.origin},
                            {"cuda_major", r.major},
                            {"version", Cuda(r.version)},
                            {"on_driver", Verdict(r.on_driver)}});
  }
  j["cudart_libraries"] = std::move(runtimes);
  j["sources"] = Sources(f.sources);
  return j;
}

Json ToJson(const FrameworkFacts& f) {
  Json j;
  j["driver_version"] = Driver(f.driver);
  j["driver_cuda_version"] = Cuda(f.driver_cuda);
  Json envs = Json::array();
  for (const auto& e : f.environments) {
    Json env;
    env["site_dir"] = e.site_dir;
    env["origin"] = e.origin;
    Json fws = Json::array();
    for (const auto& fw : e.frameworks) fws.push_back(Framework(fw));
    env["frameworks"] = std::move(fws);
    Json wheels = Json::array();
    for (const auto& w : e.cuda_wheels) {
      wheels.push_back(
          Json{{"name", w.name}, {"version", w.version}, {"cuda_major", w.cuda_major}});
    }
    env["cuda_wheels"] = std::move(wheels);
    env["bundled_cuda_runtime"] = Cuda(e.bundled_runtime);
    env["bundled_cuda_runtime_on_driver"] = Verdict(e.bundled_runtime_on_driver);
    env["cuda_majors"] = e.cuda_majors;
    env["issues"] = Issues(e.issues);
    envs.push_back(std::move(env));
  }
  j["environments"] = std::move(envs);
  j["scanned_dirs"] = f.scanned_dirs;
  j["sources"] = Sources(f.sources);
  return j;
}

Json ToJson(const FabricManagerFacts& f) {
  Json j;
  j["nvswitch_present"] = f.nvswitch_present;
  j["needed"] = f.nvswitch_present;
  j["service"] = f.service ? Service(*f.service) : Json(nullptr);
  j["version"] = Str(f.version);
  j["version_source"] = f.version_source.empty() ? Json(nullptr) : Json(f.version_source);
  j["driver_version"] = Driver(f.driver);
  j["version_matches_driver"] = MapOrNull(f.version_matches_driver, [](bool b) { return b; });
  j["log_path"] = f.log_path;
  if (f.log) {
    Json errors = Json::array();
    for (const auto& e : f.log->last_errors) {
      errors.push_back(Json{{"line_number", e.line_number},
                            {"time_local", e.entry.time_text},
                            {"level", e.entry.level},
                            {"tid", MapOrNull(e.entry.tid, [](std::uint64_t v) { return v; })},
                            {"message", e.entry.message}});
    }
    Json log;
    log["lines"] = f.log->lines;
    log["entries"] = f.log->entries;
    log["error_count"] = f.log->error_count;
    log["warning_count"] = f.log->warning_count;
    log["first_time_local"] = f.log->first_time_text;
    log["last_time_local"] = f.log->last_time_text;
    log["skipped_bytes"] = f.log_skipped_bytes;
    log["last_errors"] = std::move(errors);
    if (f.log->version_mismatch) {
      log["version_mismatch"] =
          Json{{"fabric_manager_version", f.log->version_mismatch->fm_version},
               {"driver_version", f.log->version_mismatch->driver_version}};
    } else {
      log["version_mismatch"] = nullptr;
    }
    j["log"] = std::move(log);
  } else {
    j["log"] = nullptr;
  }
  j["sources"] = Sources(f.sources);
  return j;
}

Json ToJson(const VersionFacts& f) {
  Json j;
  j["driver"] = ToJson(f.driver);
  j["cuda"] = ToJson(f.cuda);
  j["frameworks"] = ToJson(f.frameworks);
  j["fabric_manager"] = ToJson(f.fabric_manager);
  j["stack"] = Stack(f.stack);
  return j;
}

}  // namespace gpudoctor
