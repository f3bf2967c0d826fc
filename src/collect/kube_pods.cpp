#include "collect/kube_pods.h"

namespace gpudoctor {

std::map<std::string, KubePodRef> ReadKubePods(const CollectContext& ctx) {
  std::map<std::string, KubePodRef> pods;
  auto names = ListRootDir(ctx, kKubePodLogDir);
  if (!names) return pods;
  for (const auto& name : *names) {
    if (auto pod = ParsePodLogDirName(name)) pods[pod->uid] = std::move(*pod);
  }
  return pods;
}

std::map<std::string, KubeContainerRef> ReadKubeContainers(const CollectContext& ctx) {
  std::map<std::string, KubeContainerRef> containers;
  auto names = ListRootDir(ctx, kKubeContainerLogDir);
  if (!names) return containers;
  for (const auto& name : *names) {
    if (auto c = ParseContainerLogName(name)) containers[c->container_id] = std::move(*c);
  }
  return containers;
}

const KubeContainerRef* FindContainerById(const std::map<std::string, KubeContainerRef>& containers,
                                          const std::string& short_id) {
  if (short_id.empty()) return nullptr;
  auto it = containers.lower_bound(short_id);
  if (it == containers.end() || !it->first.starts_with(short_id)) return nullptr;
  return &it->second;
}

}  // namespace gpudoctor
