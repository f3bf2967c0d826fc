#include "rules/engine/task_names.h"

namespace gpudoctor {

namespace {
namespace task_names_impl {
bool Starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace task_names_impl
}  // namespace

bool IsNvidiaTask(std::string_view name) {
  using task_names_impl::Starts;
  return Starts(name, "nvidia") || Starts(name, "nv_") || Starts(name, "nv-") ||
         Starts(name, "nvc:") || Starts(name, "dcgm") || Starts(name, "nv-hostengine");
}

bool IsTrainingTask(std::string_view name) {
  for (std::string_view p : {"python", "pt_", "torchrun", "deepspeed", "ray::", "accelerate",
                             "horovod", "mpirun", "srun", "tritonserver", "vllm"}) {
    if (task_names_impl::Starts(name, p)) return true;
  }
  return false;
}

}  // namespace gpudoctor
