// The GPU executor as the runtime sees it (runtime/placement.h, runtime/partition.h): the built
// backends' kernel tables and partition compilers, or "no GPU backend" in a build without them.
#include "backends/gpu/device_counters.h"
#include "backends/gpu/partition_api.h"
#include "runtime/partition.h"
#include "runtime/placement.h"

namespace hi::runtime {

std::string gpu_kernel_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  // The backends compile the same kernel sources, so any answers for all.
#if defined(HI_HAVE_CUDA)
  return gpu::cuda_backend::partition_support(node, inputs);
#elif defined(HI_HAVE_HIP)
  return gpu::hip_backend::partition_support(node, inputs);
#elif defined(HI_HAVE_EMU)
  return gpu::emu_backend::partition_support(node, inputs);
#else
  (void)inputs;
  return "this build has no GPU backend (no kernel for " + node.op_type + ")";
#endif
}

std::vector<bool> gpu_host_inputs(const ir::Node& node) {
#if defined(HI_HAVE_CUDA)
  return gpu::cuda_backend::partition_host_inputs(node);
#elif defined(HI_HAVE_HIP)
  return gpu::hip_backend::partition_host_inputs(node);
#elif defined(HI_HAVE_EMU)
  return gpu::emu_backend::partition_host_inputs(node);
#else
  (void)node;
  return {};
#endif
}

Result<std::shared_ptr<PartitionRunner>> compile_gpu_partition(const PartitionSpec& spec) {
#if defined(HI_HAVE_CUDA)
  if (spec.device.rfind("cuda:", 0) == 0) return gpu::cuda_backend::compile_partition(spec);
#endif
#if defined(HI_HAVE_HIP)
  if (spec.device.rfind("hip:", 0) == 0) return gpu::hip_backend::compile_partition(spec);
#endif
#if defined(HI_HAVE_EMU)
  if (spec.device.rfind("emu:", 0) == 0) return gpu::emu_backend::compile_partition(spec);
#endif
  return error(StatusCode::kUnsupported, "this build has no GPU backend for device '", spec.device, "'");
}

}  // namespace hi::runtime

namespace hi {

GpuActivity gpu_activity() {
  const gpu::DeviceCounters& c = gpu::device_counters();
  GpuActivity a;
  a.kernel_launches = c.kernel_launches.load();
  a.graph_launches = c.graph_launches.load();
  a.host_syncs = c.host_syncs.load();
  a.device_allocations = c.device_allocations.load();
  a.allocator_requests = c.allocator_requests.load();
  return a;
}

GpuActivity operator-(const GpuActivity& a, const GpuActivity& b) {
  return {a.kernel_launches - b.kernel_launches, a.graph_launches - b.graph_launches, a.host_syncs - b.host_syncs,
          a.device_allocations - b.device_allocations, a.allocator_requests - b.allocator_requests};
}

std::vector<GpuMemoryStats> gpu_memory_stats() {
  std::vector<GpuMemoryStats> out;
#if defined(HI_HAVE_CUDA)
  gpu::cuda_backend::append_memory_stats(&out);
#endif
#if defined(HI_HAVE_HIP)
  gpu::hip_backend::append_memory_stats(&out);
#endif
#if defined(HI_HAVE_EMU)
  gpu::emu_backend::append_memory_stats(&out);
#endif
  return out;
}

Status gpu_empty_cache() {
#if defined(HI_HAVE_CUDA)
  HI_RETURN_IF_ERROR(gpu::cuda_backend::empty_caches());
#endif
#if defined(HI_HAVE_HIP)
  HI_RETURN_IF_ERROR(gpu::hip_backend::empty_caches());
#endif
#if defined(HI_HAVE_EMU)
  HI_RETURN_IF_ERROR(gpu::emu_backend::empty_caches());
#endif
  return Status::ok();
}

Status gpu_reserve(const std::string& device, int64_t bytes) {
  const size_t colon = device.find(':');
  const std::string backend = device.substr(0, colon);
  int index = 0;
  if (colon != std::string::npos) {
    const std::string digits = device.substr(colon + 1);
    HI_RETURN_IF(digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 6,
                 kInvalidArgument, "gpu_reserve: device '", device, "' is not of the form cuda:N, hip:N or emu:N");
    index = std::stoi(digits);
  }
#if defined(HI_HAVE_CUDA)
  if (backend == "cuda") return gpu::cuda_backend::reserve(index, bytes);
#endif
#if defined(HI_HAVE_HIP)
  if (backend == "hip") return gpu::hip_backend::reserve(index, bytes);
#endif
#if defined(HI_HAVE_EMU)
  if (backend == "emu") return gpu::emu_backend::reserve(index, bytes);
#endif
  (void)index;
  (void)bytes;
  return error(StatusCode::kInvalidArgument, "gpu_reserve: no GPU backend in this build for device '", device, "'");
}

}  // namespace hi
