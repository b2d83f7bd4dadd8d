// Skipping device tests where this backend sees no GPU. For sources compiled once per backend
// (HI_GPU_NS, HI_GPU_BACKEND set by tests/gpu/CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "backends/gpu/device_api.h"
#include "hipinfer/device.h"

namespace hi::gpu::HI_GPU_NS {

inline const GpuBackendInfo* this_backend(const GpuRuntimeInfo& info) {
  for (const auto& b : info.backends)
    if (b.name == HI_GPU_BACKEND) return &b;
  return nullptr;
}

// The reason this backend has no device, or "" when it has one.
inline std::string no_gpu_reason() {
  static const std::string reason = [] {
    const GpuRuntimeInfo info = query_gpus();
    const GpuBackendInfo* b = this_backend(info);
    if (!b) return std::string("the " HI_GPU_BACKEND " backend is missing from query_gpus()");
    if (b->device_count > 0 && device_count() > 0) return std::string();
    return b->no_gpu_reason.empty() ? std::string("the runtime reports no device") : b->no_gpu_reason;
  }();
  return reason;
}

}  // namespace hi::gpu::HI_GPU_NS

// On the emulated GPU (HI_GPU_EMULATED) there is always a device: a missing one is a failure,
// so that no test skips there.
#if defined(HI_GPU_EMULATED)
#define SKIP_WITHOUT_GPU()                                                                      \
  do {                                                                                          \
    if (!no_gpu_reason().empty()) FAIL() << "the emulated GPU is missing: " << no_gpu_reason(); \
  } while (0)
#else
#define SKIP_WITHOUT_GPU()                                                       \
  do {                                                                           \
    if (!no_gpu_reason().empty()) GTEST_SKIP() << "no GPU: " << no_gpu_reason(); \
  } while (0)
#endif
