// Expand as one strided copy with stride 0 along the broadcast dims (kernels/strided_copy.cu).
// The shape input is read on the host, by the op's inference, which gives the output shape.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Expand final : public GpuKernel {
 public:
  bool reads_on_host(size_t input) const override { return input == 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    HI_ASSIGN_OR_RETURN(const StridedCopy c, expand_copy(x.shape, y.shape));
    return strided_copy(c, static_cast<int>(dtype_size(x.dtype)), x.ptr, y.ptr, ctx.stream());
  }
};

}  // namespace

std::string expand_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  if (std::string r = rank_reason(node, inputs, 0, kMaxCopyRank); !r.empty()) return r;
  // The output's rank is the larger of the input's and the shape's length.
  const ir::ValueType* shape = inputs.size() > 1 ? &inputs[1] : nullptr;
  if (!shape || !shape->is_static() || shape->rank() != 1)
    return "no GPU kernel for Expand to a shape of unknown length";
  if (shape->concrete_shape()[0] > kMaxCopyRank) return "no GPU kernel for Expand above rank 8";
  return "";
}

std::unique_ptr<GpuKernel> make_expand(const ir::Node&) { return std::make_unique<Expand>(); }

}  // namespace hi::gpu::HI_GPU_NS
