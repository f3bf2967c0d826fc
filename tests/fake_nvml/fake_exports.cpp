// References every NVML symbol, so that a function declared from
// NVML_FUNCTIONS but never defined leaves an undefined symbol in the library
// and dlopen(RTLD_NOW) fails loudly instead of a test silently lacking it.
#include "fake_state.h"

#define FAKE_NVML_ADDRESS(name, params) reinterpret_cast<const void*>(&name),

extern "C" __attribute__((visibility("default"), used))
const void* const fake_nvml_exports[] = {
    NVML_FUNCTIONS(FAKE_NVML_ADDRESS) reinterpret_cast<const void*>(
        &nvmlErrorString),
};
