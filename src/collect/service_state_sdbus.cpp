// ServiceStateReader over sd-bus. The only file that talks to systemd's
// manager object.
#include <systemd/sd-bus.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "collect/service_state.h"

namespace gpudoctor {
namespace {

constexpr const char* kDest = "org.freedesktop.systemd1";
constexpr const char* kManagerPath = "/org/freedesktop/systemd1";
constexpr const char* kManagerIface = "org.freedesktop.systemd1.Manager";
constexpr const char* kUnitIface = "org.freedesktop.systemd1.Unit";
constexpr const char* kServiceIface = "org.freedesktop.systemd1.Service";

Error BusError(int r, const sd_bus_error* err, const std::string& what) {
  std::string msg = what + ": ";
  msg += (err != nullptr && sd_bus_error_is_set(err) && err->message != nullptr)
             ? std::string(err->message)
             : std::string(ErrnoError(-r, "").message.substr(2));
  ErrorCode code = ErrorCode::kIo;
  if (r == -ETIMEDOUT) code = ErrorCode::kTimeout;
  if (r == -EACCES || r == -EPERM) code = ErrorCode::kPermission;
  if (r == -ENOENT || r == -ECONNREFUSED || r == -ENOMEDIUM) code = ErrorCode::kUnavailable;
  return Error{code, msg};
}

class SdBusServiceStateReader final : public ServiceStateReader {
 public:
  explicit SdBusServiceStateReader(int timeout_ms) : timeout_ms_(timeout_ms) {}
  ~SdBusServiceStateReader() override {
    if (bus_ != nullptr) sd_bus_flush_close_unref(bus_);
  }
  SdBusServiceStateReader(const SdBusServiceStateReader&) = delete;
  SdBusServiceStateReader& operator=(const SdBusServiceStateReader&) = delete;

  Result<ServiceState> Read(std::string_view unit) override {
    if (auto opened = Open(); !opened.ok()) return opened.error();
    const std::string name(unit);
    sd_bus_error err = SD_BUS_ERROR_NULL;
    sd_bus_message* reply = nullptr;
    // LoadUnit (unlike GetUnit) answers for units that are installed but not
    // loaded, and yields load_state "not-found" for units that do not exist.
    int r = sd_bus_call_method(bus_, kDest, kManagerPath, kManagerIface, "LoadUnit", &err, &reply,
                               "s", name.c_str());
    if (r < 0) {
      Error e = BusError(r, &err, "systemd LoadUnit " + name);
      sd_bus_error_free(&err);
      return e;
    }
    const char* path_c = nullptr;
    r = sd_bus_message_read(reply, "o", &path_c);
    const std::string path = (r >= 0 && path_c != nullptr) ? path_c : "";
    sd_bus_message_unref(reply);
    if (path.empty()) return Error{ErrorCode::kCorrupt, "systemd LoadUnit " + name + ": no path"};

    ServiceState s;
    s.unit = name;
    s.load_state = StringProperty(path, kUnitIface, "LoadState");
    s.active_state = StringProperty(path, kUnitIface, "ActiveState");
    s.sub_state = StringProperty(path, kUnitIface, "SubState");
    if (s.Installed()) {
      std::int32_t status = 0;
      if (sd_bus_get_property_trivial(bus_, kDest, path.c_str(), kServiceIface, "ExecMainStatus",
                                      nullptr, 'i', &status) >= 0) {
        s.exec_main_status = status;
      }
      std::uint32_t pid = 0;
      if (sd_bus_get_property_trivial(bus_, kDest, path.c_str(), kServiceIface, "MainPID", nullptr,
                                      'u', &pid) >= 0) {
        s.main_pid = pid;
      }
    }
    if (s.active_state.empty()) {
      return Error{ErrorCode::kIo, "systemd " + name + ": ActiveState unreadable"};
    }
    return s;
  }

 private:
  Status Open() {
    if (bus_ != nullptr) return OkStatus();
    int r = sd_bus_open_system(&bus_);
    if (r < 0) {
      bus_ = nullptr;
      Error e = BusError(r, nullptr, "system bus");
      e.code = ErrorCode::kUnavailable;
      return e;
    }
    sd_bus_set_method_call_timeout(bus_, static_cast<std::uint64_t>(timeout_ms_) * 1000u);
    return OkStatus();
  }

  std::string StringProperty(const std::string& path, const char* iface, const char* member) {
    char* value = nullptr;
    std::string out;
    if (sd_bus_get_property_string(bus_, kDest, path.c_str(), iface, member, nullptr, &value) >=
            0 &&
        value != nullptr) {
      out = value;
    }
    std::free(value);
    return out;
  }

  int timeout_ms_;
  sd_bus* bus_ = nullptr;
};

}  // namespace

std::unique_ptr<ServiceStateReader> MakeSystemdServiceStateReader(int timeout_ms) {
  return std::make_unique<SdBusServiceStateReader>(timeout_ms);
}

}  // namespace gpudoctor
