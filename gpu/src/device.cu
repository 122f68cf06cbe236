#include "rnnwb/gpu/device.hpp"

#include <cstdio>

#include <cuda_runtime.h>

namespace rnnwb::gpu {

bool deviceAvailable() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) cudaGetLastError();  // clear it: "no device" is an answer here
  return status == cudaSuccess && count > 0;
}

std::string deviceDescription() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    return std::string("no CUDA device: ") + cudaGetErrorString(status);
  }
  if (count == 0) return "no CUDA device";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    return "CUDA device 0: properties unreadable";
  char text[256];
  std::snprintf(text, sizeof text, "%s, sm_%d%d, %.1f GiB", prop.name, prop.major, prop.minor,
                prop.totalGlobalMem / 1073741824.0);
  return text;
}

}  // namespace rnnwb::gpu
