#include "support/infiniband_tree.h"

#include <fstream>
#include <stdexcept>

#include "support/fixtures.h"

namespace gpudoctor::test {

namespace fs = std::filesystem;

bool CopyInfinibandCapture(const fs::path& root) {
  const fs::path capture = FixtureDir("infiniband") / "gpud-sys-class-infiniband-h100";
  if (!fs::is_directory(capture)) return false;
  const fs::path target = root / "sys/class/infiniband";
  fs::create_directories(target);
  fs::copy(capture, target, fs::copy_options::recursive);
  // The capture is read-only; the copy must be rewritable and removable.
  fs::permissions(target, fs::perms::owner_all, fs::perm_options::add);
  for (const auto& entry : fs::recursive_directory_iterator(target)) {
    fs::permissions(entry.path(), fs::perms::owner_read | fs::perms::owner_write,
                    fs::perm_options::add);
    if (entry.is_directory()) {
      fs::permissions(entry.path(), fs::perms::owner_exec, fs::perm_options::add);
    }
  }
  return true;
}

fs::path InfinibandPort(const fs::path& root, const std::string& device) {
  return root / "sys/class/infiniband" / device / "ports/1";
}

InfinibandTree::InfinibandTree() : available_(CopyInfinibandCapture(dir_.path())) {}

fs::path InfinibandTree::Port(const std::string& device) const {
  return InfinibandPort(dir_.path(), device);
}

namespace infiniband_tree_detail {
void WriteText(const fs::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text << "\n";
  if (!out) throw std::runtime_error("cannot write " + file.string());
}
}  // namespace infiniband_tree_detail
using infiniband_tree_detail::WriteText;

void InfinibandTree::SetCounter(const std::string& device, const std::string& name,
                                std::uint64_t value) const {
  fs::path file = Port(device) / "counters" / name;
  if (!fs::exists(file)) file = Port(device) / "hw_counters" / name;
  if (!fs::exists(file)) throw std::runtime_error("no counter " + file.string());
  WriteText(file, std::to_string(value));
}

void InfinibandTree::SetState(const std::string& device, const std::string& state,
                              const std::string& phys_state) const {
  WriteText(Port(device) / "state", state);
  WriteText(Port(device) / "phys_state", phys_state);
}

void InfinibandTree::SetRate(const std::string& device, const std::string& rate) const {
  WriteText(Port(device) / "rate", rate);
}

void InfinibandTree::RemoveDevice(const std::string& device) const {
  fs::remove_all(dir_.path() / "sys/class/infiniband" / device);
}

RdmaFacts InfinibandTree::Read(std::chrono::system_clock::time_point at) const {
  CollectContext ctx;
  ctx.root = dir_.path();
  ctx.now = at;
  return ReadRdma(ctx);
}

}  // namespace gpudoctor::test
