// The per-backend device queries that hi::query_gpus() (query_gpus.cc) combines. Each is
// defined by that backend's runtime.cu and exists only when the backend is built
// (HI_HAVE_CUDA / HI_HAVE_HIP / HI_HAVE_EMU are then defined for query_gpus.cc).
#pragma once

#include "hipinfer/device.h"

namespace hi::gpu {

// Each appends its GpuBackendInfo to info.backends and its devices to info.devices. Never fails.
namespace cuda_backend {
void query(GpuRuntimeInfo& info);
}
namespace hip_backend {
void query(GpuRuntimeInfo& info);
}
namespace emu_backend {
void query(GpuRuntimeInfo& info);
}

}  // namespace hi::gpu
