#include "nvml/nvml_xid_events.h"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "core/gpu_status.h"
#include "nvml/nvml_error.h"
#include "nvml/nvml_library.h"

namespace gpudoctor {
namespace {

// How long one nvmlEventSetWait blocks: the watcher wakes this often with
// nothing to do (one wake-up per second, part of the agent's idle cost), and
// notices a stop within it (the destructor waits up to 2 s for a clean exit).
constexpr unsigned kWaitMs = 1000;

class Watcher final : public NvmlXidWatcher {
 public:
  explicit Watcher(std::string path) : shared_(std::make_shared<Shared>()) {
    shared_->path = std::move(path);
    // The thread owns a reference to the shared state: when it is stuck in
    // the driver at destruction it is detached and may finish later.
    std::thread([s = shared_] { Run(*s); }).detach();
  }

  ~Watcher() override {
    std::unique_lock lock(shared_->mu);
    shared_->stop = true;
    shared_->cv.notify_all();
    // Wait briefly for a clean exit (nvmlShutdown); a thread stuck in the
    // driver is left behind, holding only its own reference.
    shared_->cv.wait_for(lock, std::chrono::seconds(2), [&] { return shared_->exited; });
  }

  std::vector<NvmlXidEvent> Take() override {
    std::lock_guard lock(shared_->mu);
    std::vector<NvmlXidEvent> out;
    out.swap(shared_->events);
    return out;
  }

  std::string status() const override {
    std::lock_guard lock(shared_->mu);
    return shared_->status;
  }

 private:
  struct Shared {
    std::string path;
    std::mutex mu;
    std::condition_variable cv;
    bool stop = false;
    bool exited = false;
    std::vector<NvmlXidEvent> events;
    std::string status = "starting";
  };

  static void SetStatus(Shared& s, std::string text) {
    std::lock_guard lock(s.mu);
    s.status = std::move(text);
  }

  static bool Stopping(Shared& s) {
    std::lock_guard lock(s.mu);
    return s.stop;
  }

  // Sleeps up to `d`, waking early on stop. True when stopping.
  static bool Pause(Shared& s, std::chrono::milliseconds d) {
    std::unique_lock lock(s.mu);
    return s.cv.wait_for(lock, d, [&] { return s.stop; });
  }

  // One registration: init, register every GPU, wait until an error.
  // Returns a one-line reason when it could not watch.
  static std::string WatchOnce(Shared& s) {
    auto lib = LoadNvmlLibrary(ResolveNvmlLibraryPath(s.path));
    if (!lib) return lib.error().message;
    const NvmlFunctions& fn = (*lib)->fn;
    if (fn.nvmlEventSetCreate == nullptr || fn.nvmlDeviceRegisterEvents == nullptr ||
        fn.nvmlEventSetWait_v2 == nullptr) {
      return "this driver's NVML has no event API";
    }
    nvmlReturn_t rc = fn.nvmlInit_v2();
    if (rc != NVML_SUCCESS) return NvmlError(rc, "nvmlInit_v2").message;
    std::string why;
    nvmlEventSet_t set = nullptr;
    unsigned count = 0;
    std::map<nvmlDevice_t, std::string> bus_of;
    if ((rc = fn.nvmlDeviceGetCount_v2(&count)) != NVML_SUCCESS) {
      why = NvmlError(rc, "nvmlDeviceGetCount_v2").message;
    } else if (why = RegisterXidEvents(fn, XidDevices(fn, count), set, bus_of); why.empty()) {
      if (bus_of.empty()) {
        why = "no GPU accepted Xid event registration";
      } else {
        SetStatus(s, "watching Xid events on " + std::to_string(bus_of.size()) + " GPU(s)");
        while (!Stopping(s)) {
          nvmlEventData_t data{};
          rc = fn.nvmlEventSetWait_v2(set, &data, kWaitMs);
          if (rc == NVML_ERROR_TIMEOUT) continue;
          if (rc != NVML_SUCCESS) {
            why = NvmlError(rc, "nvmlEventSetWait_v2").message;
            break;
          }
          if ((data.eventType & nvmlEventTypeXidCriticalError) == 0) continue;
          NvmlXidEvent ev;
          ev.time = std::chrono::system_clock::now();
          ev.xid = static_cast<int>(data.eventData);
          if (auto it = bus_of.find(data.device); it != bus_of.end()) ev.pci_bus_id = it->second;
          std::lock_guard lock(s.mu);
          s.events.push_back(std::move(ev));
        }
      }
    }
    if (set != nullptr && fn.nvmlEventSetFree != nullptr) fn.nvmlEventSetFree(set);
    fn.nvmlShutdown();
    return why;
  }

  struct XidDevice {
    nvmlDevice_t device;
    std::string bus;  // empty when the PCI query failed
  };

  static std::vector<XidDevice> XidDevices(const NvmlFunctions& fn, unsigned count) {
    std::vector<XidDevice> out;
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice_t dev = nullptr;
      if (fn.nvmlDeviceGetHandleByIndex_v2(i, &dev) != NVML_SUCCESS) continue;
      nvmlPciInfo_t pci{};
      std::string bus;
      if (fn.nvmlDeviceGetPciInfo_v3 != nullptr &&
          fn.nvmlDeviceGetPciInfo_v3(dev, &pci) == NVML_SUCCESS) {
        pci.busId[sizeof pci.busId - 1] = '\0';
        bus = NormalizePciBusId(pci.busId);
      }
      out.push_back({dev, bus});
    }
    return out;
  }

  // Registers every device for Xid events on a new *set; bus_of gets the
  // devices that accepted. NOT_SUPPORTED leaves the set usable (nvml.h), so
  // that device is only skipped; any other failure leaves it undefined, so it
  // is freed and a new set is started without that device. Returns why no set
  // could be had (then *set is null), else "".
  static std::string RegisterXidEvents(const NvmlFunctions& fn,
                                       const std::vector<XidDevice>& devices,
                                       nvmlEventSet_t& set,
                                       std::map<nvmlDevice_t, std::string>& bus_of) {
    std::vector<bool> refused(devices.size(), false);
    // Each round either finishes or refuses one more device.
    for (std::size_t round = 0; round <= devices.size(); ++round) {
      bus_of.clear();
      if (nvmlReturn_t rc = fn.nvmlEventSetCreate(&set); rc != NVML_SUCCESS) {
        set = nullptr;
        return NvmlError(rc, "nvmlEventSetCreate").message;
      }
      bool undefined = false;
      for (std::size_t i = 0; i < devices.size() && !undefined; ++i) {
        if (refused[i]) continue;
        nvmlReturn_t rc =
            fn.nvmlDeviceRegisterEvents(devices[i].device, nvmlEventTypeXidCriticalError, set);
        if (rc == NVML_SUCCESS) {
          bus_of[devices[i].device] = devices[i].bus;
        } else if (rc != NVML_ERROR_NOT_SUPPORTED) {
          refused[i] = true;
          undefined = true;
        }
      }
      if (!undefined) return "";
      if (fn.nvmlEventSetFree != nullptr) fn.nvmlEventSetFree(set);
      set = nullptr;
    }
    return "no GPU accepted Xid event registration";
  }

  static void Run(Shared& s) {
    std::chrono::milliseconds backoff(1000);
    while (!Stopping(s)) {
      std::string why = WatchOnce(s);
      if (Stopping(s)) break;
      SetStatus(s, "not watching Xid events: " + why);
      if (Pause(s, backoff)) break;
      backoff = std::min(backoff * 2, std::chrono::milliseconds(60000));
    }
    std::lock_guard lock(s.mu);
    s.exited = true;
    s.cv.notify_all();
  }

  std::shared_ptr<Shared> shared_;
};

}  // namespace

std::unique_ptr<NvmlXidWatcher> NvmlXidWatcher::Start(const std::string& library_path) {
  return std::make_unique<Watcher>(library_path);
}

KernelEvent XidEventToKernelEvent(const NvmlXidEvent& event) {
  KernelEvent k;
  k.kind = KernelEventKind::kXid;
  k.time = event.time;
  k.code = event.xid;
  k.pci_bus_id = event.pci_bus_id;
  k.message = "Xid " + std::to_string(event.xid) + " reported by NVML" +
              (event.pci_bus_id.empty() ? "" : " for " + event.pci_bus_id);
  k.source = SourceRef{"nvml", 0};
  return k;
}

}  // namespace gpudoctor
