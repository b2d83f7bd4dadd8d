// The GPU executor for one backend: which nodes it has kernels for (the placement query) and a
// runner for a partition of them (runtime/backend.h). Host C++ compiled once per backend with
// HI_GPU_NS naming it; it reaches the device only through device_api.h and kernels/*.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/gpu/device_api.h"
#include "runtime/backend.h"

namespace hi::gpu::HI_GPU_NS {

// Empty when a kernel covers the node with these input types, else why not.
std::string partition_support(const ir::Node& node, const std::vector<ir::ValueType>& inputs);

// Compiles a partition for spec.device ("cuda:0", "hip:1"): each node becomes a step with its
// attributes read once; at run time the inputs are copied to the device (constants once), the
// steps run on the calling thread's stream with intermediates from the device's caching
// allocator, and the outputs are copied back.
Result<std::shared_ptr<runtime::PartitionRunner>> compile_partition(const runtime::PartitionSpec& spec);

}  // namespace hi::gpu::HI_GPU_NS
