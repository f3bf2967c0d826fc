#include "collect/named_processes.h"

#include <algorithm>

namespace gpudoctor {

std::vector<NamedProcess> FindProcessesNamed(const CollectContext& ctx,
                                             const std::vector<std::string>& comms) {
  std::vector<NamedProcess> out;
  auto entries = ListRootDir(ctx, "/proc");
  if (!entries) return out;
  for (const std::string& name : *entries) {
    if (name.empty() ||
        !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    if (name.size() > 9) continue;
    auto comm = ReadRootFile(ctx, "/proc/" + name + "/comm", 64);
    if (!comm) continue;
    std::string c = *comm;
    while (!c.empty() && (c.back() == '\n' || c.back() == ' ')) c.pop_back();
    if (std::find(comms.begin(), comms.end(), c) == comms.end()) continue;
    out.push_back(NamedProcess{static_cast<std::uint32_t>(std::stoul(name)), c});
  }
  std::sort(out.begin(), out.end(),
            [](const NamedProcess& a, const NamedProcess& b) { return a.pid < b.pid; });
  return out;
}

}  // namespace gpudoctor
