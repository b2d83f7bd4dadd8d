// The per-backend entry points that gpu_backends.cc dispatches to: the GPU executor
// (gpu_partition.cc) and the allocators' statistics and controls (device_allocator.cc). Each is defined
// by that backend's gpu_partition.cc and exists only when the backend is built (HI_HAVE_CUDA /
// HI_HAVE_HIP are then defined for gpu_backends.cc).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "runtime/partition.h"

namespace hi::gpu {

namespace cuda_backend {
std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
std::vector<bool> partition_host_inputs(const ir::Node& node);
Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec);
void append_memory_stats(std::vector<GpuMemoryStats>* out);
Status empty_caches();
Status reserve(int device, int64_t bytes);
}  // namespace cuda_backend
namespace hip_backend {
std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
std::vector<bool> partition_host_inputs(const ir::Node& node);
Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec);
void append_memory_stats(std::vector<GpuMemoryStats>* out);
Status empty_caches();
Status reserve(int device, int64_t bytes);
}  // namespace hip_backend
namespace emu_backend {
std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);
std::vector<bool> partition_host_inputs(const ir::Node& node);
Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec);
void append_memory_stats(std::vector<GpuMemoryStats>* out);
Status empty_caches();
Status reserve(int device, int64_t bytes);
}  // namespace emu_backend

}  // namespace hi::gpu
