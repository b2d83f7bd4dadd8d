// The runtime::Backend of one GPU backend (HI_GPU_NS: cuda_backend, hip_backend or emu_backend).
#include "backends/gpu/gpu_backend.h"

#include "backends/gpu/device_api.h"
#include "backends/gpu/query.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class GpuBackend final : public runtime::Backend {
 public:
  std::string kind() const override { return backend_name(); }
  void query(GpuRuntimeInfo& info) const override { HI_GPU_NS::query(info); }
  std::string support(const ir::Node& node, const std::vector<ir::ValueType>& inputs) const override {
    return partition_support(node, inputs);
  }
  std::vector<bool> host_inputs(const ir::Node& node) const override { return partition_host_inputs(node); }
  Result<std::shared_ptr<runtime::PartitionRunner>> compile(const runtime::PartitionSpec& spec) const override {
    return compile_partition(spec);
  }
  void append_memory_stats(std::vector<GpuMemoryStats>* out) const override { HI_GPU_NS::append_memory_stats(out); }
  Status empty_caches() const override { return HI_GPU_NS::empty_caches(); }
  Status reserve(int device, int64_t bytes) const override { return HI_GPU_NS::reserve(device, bytes); }
};

}  // namespace

const runtime::Backend& backend() {
  static const GpuBackend b;
  return b;
}

}  // namespace hi::gpu::HI_GPU_NS
