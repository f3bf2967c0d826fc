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

}  // namespace gpudoctor
