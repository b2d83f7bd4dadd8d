// The per-backend device queries behind runtime::Backend::query (gpu_backend.cc), which
// hi::query_gpus() combines. Each is defined by that backend's runtime.cu; kept apart from
// gpu_backend.h so that the device compilers see only the public device types.
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
