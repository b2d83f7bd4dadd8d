// The GPU executor as the runtime sees it (runtime/placement.h, runtime/partition.h): the built
// backends' kernel tables and partition compilers, or "no GPU backend" in a build without them.
#include "backends/gpu/partition_api.h"
#include "runtime/partition.h"
#include "runtime/placement.h"

namespace hi::runtime {

std::string gpu_kernel_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  // Both backends compile the same kernel sources, so either answers for both.
#if defined(HI_HAVE_CUDA)
  return gpu::cuda_backend::partition_support(node, inputs);
#elif defined(HI_HAVE_HIP)
  return gpu::hip_backend::partition_support(node, inputs);
#else
  (void)inputs;
  return "this build has no GPU backend (no kernel for " + node.op_type + ")";
#endif
}

Result<std::shared_ptr<PartitionRunner>> compile_gpu_partition(const PartitionSpec& spec) {
#if defined(HI_HAVE_CUDA)
  if (spec.device.rfind("cuda:", 0) == 0) return gpu::cuda_backend::compile_partition(spec);
#endif
#if defined(HI_HAVE_HIP)
  if (spec.device.rfind("hip:", 0) == 0) return gpu::hip_backend::compile_partition(spec);
#endif
  return error(StatusCode::kUnsupported, "this build has no GPU backend for device '", spec.device, "'");
}

}  // namespace hi::runtime
