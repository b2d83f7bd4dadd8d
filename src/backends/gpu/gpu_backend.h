// Each GPU backend (CUDA, HIP, the emulated device) as the runtime sees it: backend() is its
// runtime::Backend (gpu_backend.cc, compiled once per backend in that backend's namespace), which
// backends/registry.cc lists when the backend is built. The other entry points are what
// gpu_backend.cc dispatches to (besides query.h's device query): the GPU executor
// (gpu_partition.cc) and the allocators (device_allocator.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "runtime/backend.h"

namespace hi::gpu {

// The same entry points in each backend's namespace.
#define HI_GPU_BACKEND_API(backend_ns)                                                                     \
  namespace backend_ns {                                                                                   \
  const runtime::Backend& backend();                                                                       \
  std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);           \
  std::vector<bool> partition_host_inputs(const ir::Node& node);                                           \
  Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec); \
  void append_memory_stats(std::vector<GpuMemoryStats>* out);                                              \
  Status empty_caches();                                                                                   \
  Status reserve(int device, int64_t bytes);                                                               \
  }

HI_GPU_BACKEND_API(cuda_backend)
HI_GPU_BACKEND_API(hip_backend)
HI_GPU_BACKEND_API(emu_backend)
#undef HI_GPU_BACKEND_API

}  // namespace hi::gpu
