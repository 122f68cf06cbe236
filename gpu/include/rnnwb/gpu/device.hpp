#pragma once
// Whether a CUDA device can be used here. No CUDA type crosses this header (ggml's rule), so code
// above gpu/ can ask without a CUDA compiler.
#include <string>

namespace rnnwb::gpu {

/// True when the CUDA runtime finds at least one usable device. Never throws.
bool deviceAvailable();

/// "NVIDIA H200, sm_90, 139.8 GiB" for device 0, or the runtime's reason there is none.
std::string deviceDescription();

}  // namespace rnnwb::gpu
