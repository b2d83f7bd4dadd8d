// Gather along one axis (kernels/gather.cu). Out-of-range indices write zeros: the CPU op
// rejects them, and a GPU run cannot report them without waiting for the device.
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Gather final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& data = ctx.input(0);
    const Shape& x = data.shape;
    HI_ASSIGN_OR_RETURN(const AxisView v, axis_view(ctx.node(), x, axis_));
    return gather(static_cast<int>(dtype_size(data.dtype)), data.ptr, static_cast<const int64_t*>(ctx.input(1).ptr),
                  ctx.output(0).ptr, v.outer, v.n, v.inner, shape_numel(ctx.input(1).shape), nullptr, ctx.stream());
  }

 private:
  int64_t axis_ = 0;
};

}  // namespace

std::string gather_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (std::string r = movable_reason(node, inputs); !r.empty()) return r;
  return dtype_of(inputs, 1) == DType::kInt64 ? "" : "no GPU kernel for Gather with int32 indices";
}

std::unique_ptr<GpuKernel> make_gather(const ir::Node&) { return std::make_unique<Gather>(); }

}  // namespace hi::gpu::HI_GPU_NS
