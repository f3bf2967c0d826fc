#include "render/prometheus_dcgm.h"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "core/metric_fields.h"
#include "knowledge/xid_catalog.h"

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

// pod, namespace and container of the GPU's single pod, dcgm-exporter's
// attributes; empty when the GPU is shared or idle.
std::string DcgmPodLabels(const GpuStatus& g) {
  const GpuProcess* pod = SinglePodOf(g);
  if (pod == nullptr) return "";
  std::string container = ContainerLabelOf(*pod);
  for (const auto& p : *g.processes) {
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

  // A GPU instance's series: the GPU's labels and the instance's, without
  // the GPU's pod (its processes are not told apart by instance).
  std::string InstanceLabels(const GpuStatus& g, const MigDeviceStatus& mig) const {
    return JoinLabels(IdentityLabels(g), MigLabels(mig));
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

  // dcgm-exporter's Xid series is a gauge of the latest code, 0 before any;
  // gpudoctor_xid_events_total keeps the count of every code. Every GPU seen
  // in this run has one, a lost GPU included.
  void Xids() {
    e_.Family("DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last Xid error (0: none)");
    for (const auto& [bus, c] : s_.gpus) {
      if (!c.seen) continue;
      const std::string msg = c.last_xid == 0 ? "No Error" : LookupXid(c.last_xid).meaning;
      e_.Sample(JoinLabels(DcgmGpuLabelText(c.labels, o_.hostname, s_.status.driver_version),
                           PromLabel("err_code", std::to_string(c.last_xid)) + "," +
                               PromLabel("err_msg", msg)),
                c.last_xid);
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
  w.NvLinks();
}

bool HasDcgmName(std::string_view gpudoctor_name) {
  const FieldOfSeries f = FindFieldOfSeries(gpudoctor_name);
  return f.field != nullptr && !f.field->names.dcgm.name.empty();
}

}  // namespace gpudoctor
