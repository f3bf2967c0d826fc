#include "render/prometheus_dcgm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "core/gpu_key.h"
#include "core/metric_fields.h"
#include "knowledge/dcgm_xid_messages.h"
#include "knowledge/dcgm_health_watch.h"
#include "render/prometheus_dcgm_fabric.h"

namespace gpudoctor {
namespace {

// DCGM names the per-link NVLink counters of links 0 to 17.
constexpr unsigned kDcgmNvLinkLinks = 18;

struct NvLinkCounter {
  const char* prefix;  // + "_L<n>" or "_TOTAL"
  const char* help;
  const std::optional<std::int64_t> NvLinkStatus::*member;
};

const NvLinkCounter kNvLinkCounters[] = {
    {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT", "NVLink flow-control CRC errors",
     &NvLinkStatus::crc_flit_errors},
    {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT", "NVLink data CRC errors",
     &NvLinkStatus::crc_data_errors},
    {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT", "NVLink replays", &NvLinkStatus::replay_errors},
    {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT", "NVLink recoveries",
     &NvLinkStatus::recovery_errors},
};

std::string HelpOf(const MetricField& f) {
  return fmt::format("gpudoctor's {} in dcgm-exporter's unit (see gpudoctor's DCGM_NAMES.md)",
                     f.names.status_name);
}

// pod, namespace and container of the GPU's single pod (of the single pod
// in GPU instance `gpu_instance_id` on MIG), dcgm-exporter's attributes;
// empty when the GPU (the instance) is shared or idle.
std::string DcgmPodLabels(const GpuStatus& g,
                          std::optional<unsigned> gpu_instance_id = std::nullopt) {
  const GpuProcess* pod = SinglePodOf(g, gpu_instance_id);
  if (pod == nullptr) return "";
  std::string container = ContainerLabelOf(*pod);
  for (const auto& p : *g.processes) {
    if (gpu_instance_id && p.gpu_instance_id != gpu_instance_id) continue;
    if (ContainerLabelOf(p) != container) container.clear();
  }
  return PromLabel("container", container) + "," + PromLabel("namespace", pod->pod_namespace) +
         "," + PromLabel("pod", pod->pod_name);
}

// dcgm-exporter's labels of a GPU instance's series (no profile label when
// the MIG device's name gives none).
std::string MigLabels(const MigDeviceStatus& mig) {
  const std::string profile = MigProfileOfName(mig.status.name);
  return (profile.empty() ? "" : PromLabel("GPU_I_PROFILE", profile) + ",") +
         PromLabel("GPU_I_ID", std::to_string(mig.gpu_instance_id));
}

class DcgmWriter {
 public:
  DcgmWriter(const AgentLiveSnapshot& s, const MetricsRenderOptions& o, Exposition& e)
      : s_(s), o_(o), e_(e) {}

  // The GPU's identity labels (gpu, UUID, ..., Hostname, driver).
  std::string IdentityLabels(const GpuStatus& g) const {
    MetricGpuLabels scratch;
    return DcgmGpuLabelText(LabelsOf(s_, g, scratch), o_.hostname, s_.status.driver_version);
  }

  // A GPU instance's series: the GPU's labels, the instance's, and the pod
  // whose processes run in that instance (dcgm-exporter 3.x maps pods to
  // MIG devices through the kubelet; NVML's process records name the
  // instance of each process).
  std::string InstanceLabels(const GpuStatus& g, const MigDeviceStatus& mig) const {
    return JoinLabels(JoinLabels(IdentityLabels(g), MigLabels(mig)),
                      DcgmPodLabels(g, mig.gpu_instance_id));
  }

  std::string Labels(const GpuStatus& g) const { return JoinLabels(IdentityLabels(g), DcgmPodLabels(g)); }

  void Fields() {
    for (const auto& f : MetricFields()) {
      const SeriesName& d = f.names.dcgm;
      if (d.name.empty()) continue;
      for (std::string_view name : {d.name, f.names.dcgm_alias}) {
        if (name.empty()) continue;
        bool family = false;
        auto sample = [&](const GpuStatus& from, const std::string& labels) {
          auto v = FieldValue(from, f);
          if (!v) return;
          if (!family) {
            e_.Family(name, d.kind == SeriesKind::kCounter ? "counter" : "gauge", HelpOf(f));
            family = true;
          }
          e_.Sample(labels, *v * d.per_field_unit);
        };
        for (const auto& g : s_.status.gpus) {
          if (g.mig_devices.empty()) {
            sample(g, Labels(g));
            continue;
          }
          // Once MIG is on, dcgm-exporter serves every field per GPU
          // instance and none for the whole GPU: the instance's own memory
          // and GPM figures, the GPU's value of the others. Each instance
          // once: its compute instances show the same figures.
          std::set<unsigned> instances;
          for (const auto& mig : g.mig_devices) {
            if (!instances.insert(mig.gpu_instance_id).second) continue;
            sample(IsPerMigInstanceField(f) ? mig.status : g, InstanceLabels(g, mig));
          }
        }
      }
    }
  }

  // Each series dcgm-exporter serves for a GPU: the whole GPU's, or once
  // MIG is on one per GPU instance (with the GPU's value). `f` gets the
  // labels and the GPU's status.
  template <class F>
  void PerGpuEntity(const GpuStatus& g, F f) const {
    if (g.mig_devices.empty()) {
      f(Labels(g));
      return;
    }
    std::set<unsigned> instances;
    for (const auto& mig : g.mig_devices) {
      if (instances.insert(mig.gpu_instance_id).second) f(InstanceLabels(g, mig));
    }
  }

  // The labels of every GPU seen in this run (a lost GPU included, with
  // the identity it had), per GPU instance on MIG.
  template <class F>
  void PerSeenGpu(F f) const {
    for (const auto& [bus, c] : s_.gpus) {
      if (!c.seen) continue;
      const GpuStatus* now = nullptr;
      for (const auto& g : s_.status.gpus) {
        if (GpuKeyOf(g) == bus && g.state == GpuState::kOk) now = &g;
      }
      if (now != nullptr) {
        PerGpuEntity(*now, [&](const std::string& labels) { f(bus, c, labels); });
      } else {
        f(bus, c, DcgmGpuLabelText(c.labels, o_.hostname, s_.status.driver_version));
      }
    }
  }

  // dcgm-exporter's Xid series is a gauge of the latest code, 0 before any,
  // with the code and dcgm-exporter's text for it; gpudoctor_xid_events_total
  // keeps the count of every code.
  void Xids() {
    e_.Family("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last Xid error (0: none)");
    PerSeenGpu([&](const std::string&, const GpuCounters& c, const std::string& labels) {
      e_.Sample(JoinLabels(labels, PromLabel("err_code", std::to_string(c.last_xid)) + "," +
                                       PromLabel("err_msg", std::string(DcgmXidErrorMessage(c.last_xid)))),
                c.last_xid);
    });
  }

  // DCGM_EXP_XID_ERRORS_COUNT: the Xids of each code in the last window,
  // one series per code seen there, else one without an xid label at 0.
  // A sliding window's count falls as events leave it: a gauge (dcgm-exporter
  // declares it a counter, which rate() would misread).
  void XidCounts() {
    e_.Family("DCGM_EXP_XID_ERRORS_COUNT", "gauge", "Xid errors in the last window, by code");
    const std::string window = PromLabel("window_size_in_ms", std::to_string(kDcgmExpWindow.count()));
    PerSeenGpu([&](const std::string&, const GpuCounters& c, const std::string& labels) {
      if (c.xids_in_window.empty()) e_.Sample(JoinLabels(labels, window), 0);
      for (const auto& [code, n] : c.xids_in_window) {
        e_.Sample(JoinLabels(labels, window + "," + PromLabel("xid", std::to_string(code))),
                  static_cast<double>(n));
      }
    });
  }

  // DCGM_EXP_CLOCK_EVENTS_COUNT: per clock event reason, the samples in the
  // last window that had it (dcgm-exporter counts DCGM's samples the same
  // way); a gauge, as the capture of dcgm-exporter types it.
  void ClockEventCounts() {
    // DCGM's reason bits (dcgm_fields.h, the same as NVML's) and
    // dcgm-exporter's clock_event names.
    static constexpr std::pair<std::uint64_t, const char*> kEvents[] = {
        {0x1, "gpu_idle"},     {0x2, "clocks_setting"}, {0x4, "power_cap"},
        {0x8, "hw_slowdown"},  {0x10, "sync_boost"},    {0x20, "sw_thermal"},
        {0x40, "hw_thermal"},  {0x80, "hw_power_brake"}, {0x100, "display_clocks"}};
    e_.Family("DCGM_EXP_CLOCK_EVENTS_COUNT", "gauge",
              "Samples in the last window with each clock event reason active");
    const std::string window = PromLabel("window_size_in_ms", std::to_string(kDcgmExpWindow.count()));
    PerSeenGpu([&](const std::string&, const GpuCounters& c, const std::string& labels) {
      bool any = false;
      for (const auto& [bit, name] : kEvents) {
        auto it = c.clock_event_samples_in_window.find(bit);
        if (it == c.clock_event_samples_in_window.end()) continue;
        any = true;
        e_.Sample(JoinLabels(labels, PromLabel("clock_event", name) + "," + window),
                  static_cast<double>(it->second));
      }
      if (!any) e_.Sample(JoinLabels(labels, window), 0);
    });
  }

  // DCGM_EXP_GPU_HEALTH_STATUS: per GPU and DCGM health watch, the worst
  // active finding under that watch (0 pass, 10 warn, 20 fail) and its DCGM
  // failure code. dcgm-exporter serves it per GPU, not per instance.
  void Health() {
    e_.Family("DCGM_EXP_GPU_HEALTH_STATUS", "gauge",
              "Health per DCGM health watch (0: pass, 10: warn, 20: fail)");
    for (const auto& [bus, c] : s_.gpus) {
      if (!c.seen) continue;
      std::string labels = DcgmGpuLabelText(c.labels, o_.hostname, s_.status.driver_version);
      for (const auto& g : s_.status.gpus) {
        if (GpuKeyOf(g) == bus && g.state == GpuState::kOk && g.mig_devices.empty()) labels = Labels(g);
      }
      for (std::string_view watch : DcgmHealthWatches()) {
        int result = 0;
        std::string_view code = kDcgmHealthOk;
        for (const auto& f : s_.active_findings) {
          const auto incident = DcgmHealthIncidentOf(f.finding_id);
          if (!incident || incident->watch != watch ||
              std::find(f.gpus.begin(), f.gpus.end(), bus) == f.gpus.end()) {
            continue;
          }
          const int r = f.severity == Severity::kCritical  ? kDcgmHealthFail
                        : f.severity == Severity::kWarning ? kDcgmHealthWarn
                                                           : kDcgmHealthPass;
          if (r > result) {
            result = r;
            code = incident->error_code;
          }
        }
        e_.Sample(JoinLabels(labels, PromLabel("health_watch", std::string(watch)) + "," +
                                         PromLabel("health_error_code", std::string(code))),
                  result);
      }
    }
  }

  // DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL: NVLink traffic, both directions and
  // all links, as DCGM computes it (KiB/s divided by 1000: "MiB/s", roughly);
  // a rate, so a gauge (dcgm-exporter's csv says counter, which its own
  // maintainers call wrong). From GPM's NVLink throughput.
  void NvLinkBandwidth() {
    bool family = false;
    for (const auto& g : s_.status.gpus) {
      if (!g.gpm_nvlink_tx_bytes_per_s && !g.gpm_nvlink_rx_bytes_per_s) continue;
      const double bytes_per_s = static_cast<double>(g.gpm_nvlink_tx_bytes_per_s.value_or(0) +
                                                     g.gpm_nvlink_rx_bytes_per_s.value_or(0));
      if (!family) {
        e_.Family("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "gauge",
                  "NVLink throughput, all links, transmit and receive (KiB/s / 1000, as DCGM)");
        family = true;
      }
      PerGpuEntity(g, [&](const std::string& labels) { e_.Sample(labels, bytes_per_s / 1024.0 / 1000.0); });
    }
  }

  void NvLinks() {
    for (const auto& counter : kNvLinkCounters) {
      bool family = false;
      const std::string total = std::string(counter.prefix) + "_TOTAL";
      for (const auto& g : s_.status.gpus) {
        std::optional<double> sum;
        for (const auto& l : g.nvlinks) {
          if (const auto& v = l.*counter.member) sum = sum.value_or(0) + static_cast<double>(*v);
        }
        if (!sum) continue;
        if (!family) e_.Family(total, "counter", std::string(counter.help) + ", all links");
        family = true;
        e_.Sample(Labels(g), *sum);
      }
      for (unsigned link = 0; link < kDcgmNvLinkLinks; ++link) {
        family = false;
        const std::string name = fmt::format("{}_L{}", counter.prefix, link);
        for (const auto& g : s_.status.gpus) {
          for (const auto& l : g.nvlinks) {
            const auto& v = l.*counter.member;
            if (l.link != link || !v) continue;
            if (!family) e_.Family(name, "counter", fmt::format("{}, link {}", counter.help, link));
            family = true;
            e_.Sample(Labels(g), static_cast<double>(*v));
          }
        }
      }
    }
  }

  void Fabric() {
    WriteDcgmFabric(s_.status.gpus, [this](const GpuStatus& g) { return Labels(g); }, e_);
  }

 private:
  const AgentLiveSnapshot& s_;
  const MetricsRenderOptions& o_;
  Exposition& e_;
};

}  // namespace

std::string DcgmPciBusId(std::string_view pci_bus_id) {
  // "dddd:bb:dd.f" -> "0000dddd:BB:DD.F"; anything else as it came, upper case.
  std::string out;
  if (pci_bus_id.size() == 12 && pci_bus_id[4] == ':') out = "0000";
  for (char c : pci_bus_id) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string DcgmGpuLabelText(const MetricGpuLabels& gpu, const std::string& hostname,
                             const std::optional<std::string>& driver_version) {
  std::string out = PromLabel("gpu", std::to_string(gpu.index)) + "," + PromLabel("UUID", gpu.uuid) +
                    "," + PromLabel("pci_bus_id", DcgmPciBusId(gpu.pci_bus_id)) + "," +
                    PromLabel("device", "nvidia" + std::to_string(gpu.index)) + "," +
                    PromLabel("modelName", gpu.model);
  if (!hostname.empty()) out += "," + PromLabel("Hostname", hostname);
  if (driver_version && !driver_version->empty()) {
    out += "," + PromLabel("DCGM_FI_DRIVER_VERSION", *driver_version);
  }
  return out;
}

void WriteDcgmMetrics(const AgentLiveSnapshot& s, const MetricsRenderOptions& options,
                      Exposition& e) {
  DcgmWriter w(s, options, e);
  w.Fields();
  w.Xids();
  w.XidCounts();
  w.ClockEventCounts();
  w.Health();
  w.NvLinks();
  w.NvLinkBandwidth();
  w.Fabric();
}

bool HasDcgmName(std::string_view gpudoctor_name) {
  const FieldOfSeries f = FindFieldOfSeries(gpudoctor_name);
  return f.field != nullptr && !f.field->names.dcgm.name.empty();
}

}  // namespace gpudoctor
