// The host interface of one GPU backend, in vendor-neutral types, so that code built by the
// host compiler (tests now, the GPU executor later) can call a backend without its runtime
// headers. Everything is declared in hi::gpu::HI_GPU_NS: GPU sources get HI_GPU_NS from
// vendor.h; a host source that drives one backend gets it from the build
// (-DHI_GPU_NS=cuda_backend or hip_backend; see tests/gpu/CMakeLists.txt).
#pragma once

#include <cstddef>

#include "hipinfer/status.h"

#ifndef HI_GPU_NS
#error "HI_GPU_NS must name a GPU backend namespace (cuda_backend or hip_backend)"
#endif

namespace hi::gpu::HI_GPU_NS {

// A cudaStream_t / hipStream_t. nullptr is the default stream.
using Stream = void*;

// The Status HI_GPU_CHECK (common.cuh) returns for a failed call: `code` is the runtime's error
// code (cudaError_t / hipError_t); the message has the call text, file, line, current device
// and the runtime's name and description of the code. Also clears the runtime's last error so
// the failure is not reported again by a later, unrelated check.
Status error_status(int code, const char* expr, const char* file, int line);

// Devices this backend sees; 0 when there is no GPU or no driver. Never fails.
int device_count();

// Makes `device` current for the calling thread.
Status set_device(int device);

// Device memory on the current device. (The caching allocator will sit on top of these.)
Status device_malloc(void** ptr, size_t bytes);
Status device_free(void* ptr);

// Synchronous copies between host and device memory, ordered after all work on the default
// stream.
Status copy_to_host(void* host_dst, const void* device_src, size_t bytes);
Status copy_to_device(void* device_dst, const void* host_src, size_t bytes);

// Waits for everything queued on `stream`.
Status synchronize(Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
