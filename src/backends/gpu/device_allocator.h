// The caching allocator (caching_allocator.h) over one backend's real devices. Host C++ compiled
// once per backend with HI_GPU_NS naming it (see src/backends/gpu/CMakeLists.txt), calling only
// the vendor-neutral device_api.h, so the same source serves CUDA and HIP.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "backends/gpu/caching_allocator.h"
#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

// DeviceMemory over the runtime for one device. Each call makes `device` current for its
// duration and restores the caller's device, so it can be used from any thread.
std::unique_ptr<DeviceMemory> make_device_memory(int device);

// The process-wide caching allocator of `device`, made on first use. A device index outside
// [0, device_count()) is an InvalidArgument error naming the count. The allocators are never
// destroyed: at process exit the runtime may already be unloaded, and the driver reclaims the
// memory anyway.
Result<CachingAllocator*> device_allocator(int device);

// The allocators made so far, with their device index (for statistics and empty_cache).
std::vector<std::pair<int, CachingAllocator*>> made_allocators();

}  // namespace hi::gpu::HI_GPU_NS
