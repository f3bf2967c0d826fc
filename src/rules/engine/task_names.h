// Which processes belong to the NVIDIA driver or to a training job, by their
// name (comm): the host rules over kernel-log events and over the process
// table judge a stuck or crashed task by it. Pure.
#pragma once

#include <string_view>

namespace gpudoctor {

// A task of the NVIDIA driver or its tools: "nvidia-smi",
// "nvidia-persistenced", "nv_queue", "nvidia-modeset/..", "nvidia-peermem".
bool IsNvidiaTask(std::string_view name);
// A task of a training or inference job: python, torchrun, deepspeed,
// PyTorch's "pt_main_thread" and "pt_autograd_*", Ray workers.
bool IsTrainingTask(std::string_view name);

}  // namespace gpudoctor
