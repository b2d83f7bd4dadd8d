// The per-backend entry points that gpu_backends.cc dispatches to: the GPU executor
// (gpu_partition.cc) and the allocators' statistics and controls (device_allocator.cc). Each is defined
// by that backend's gpu_partition.cc and exists only when the backend is built (HI_HAVE_CUDA,
// HI_HAVE_HIP, HI_HAVE_EMU are then defined for gpu_backends.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "runtime/partition.h"

namespace hi::gpu {

// The same entry points in each backend's namespace.
#define HI_GPU_PARTITION_API(backend)                                                                      \
  namespace backend {                                                                                      \
  std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);           \
  std::vector<bool> partition_host_inputs(const ir::Node& node);                                           \
  Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec); \
  void append_memory_stats(std::vector<GpuMemoryStats>* out);                                              \
  Status empty_caches();                                                                                   \
  Status reserve(int device, int64_t bytes);                                                               \
  }

HI_GPU_PARTITION_API(cuda_backend)
HI_GPU_PARTITION_API(hip_backend)
HI_GPU_PARTITION_API(emu_backend)
#undef HI_GPU_PARTITION_API

}  // namespace hi::gpu
