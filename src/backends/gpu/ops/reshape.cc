// Reshape, Flatten, Squeeze, Unsqueeze and Identity: the output is the input's buffer under the
// shape the op's inference gives; nothing runs on the device.
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Alias final : public GpuKernel {
 public:
  bool aliases_input() const override { return true; }
  bool reads_on_host(size_t input) const override { return input >= 1; }  // shape, axes
  Status launch(LaunchContext&) const override { return Status::ok(); }
};

}  // namespace

// Float tensors only: integer tensors in a graph are mostly shape arithmetic, which later nodes
// (Reshape, Expand, Slice) read on the host.
std::string reshape_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  return is_float(dtype_of(inputs, 0)) ? "" : float_only_reason(node, inputs);
}

std::unique_ptr<GpuKernel> make_reshape(const ir::Node&) { return std::make_unique<Alias>(); }

}  // namespace hi::gpu::HI_GPU_NS
