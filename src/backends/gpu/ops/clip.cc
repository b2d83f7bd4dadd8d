// Clip on the unary kernel (kernels/unary.cu, kind kClip): the bounds are float attributes before
// opset 11 and optional scalar inputs from 11, read on the host; a missing bound is float32's
// lowest or highest value, as the CPU op's.
#include <limits>

#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Clip final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    inputs_ = ctx.opset() >= 11;
    if (!inputs_) {
      lo_ = ctx.get_float("min", std::numeric_limits<float>::lowest());
      hi_ = ctx.get_float("max", std::numeric_limits<float>::max());
    }
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input >= 1; }
  Status launch(LaunchContext& ctx) const override {
    UnaryOp op{UnaryKind::kClip, lo_, hi_};
    if (inputs_) {
      for (size_t i = 1; i < 3; ++i) {
        if (!ctx.has_input(i)) continue;
        HI_ASSIGN_OR_RETURN(const std::vector<double> v, host_doubles(ctx, i));
        HI_RETURN_IF(v.size() != 1, kInvalidArgument, "Clip: ", i == 1 ? "min" : "max", " must be a scalar, got ",
                     v.size(), " values");
        (i == 1 ? op.alpha : op.beta) = static_cast<float>(v[0]);
      }
    }
    const DeviceValue& x = ctx.input(0);
    return unary(op, x.dtype, x.ptr, ctx.output(0).ptr, shape_numel(x.shape), ctx.stream());
  }

 private:
  bool inputs_ = true;
  float lo_ = std::numeric_limits<float>::lowest(), hi_ = std::numeric_limits<float>::max();
};

}  // namespace

std::string clip_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  for (size_t i = 1; i < node.inputs.size() && i < 3; ++i)
    if (!node.inputs[i].empty() && dtype_of(inputs, i) != dtype_of(inputs, 0))
      return "no GPU kernel for Clip with " + std::string(dtype_name(dtype_of(inputs, i))) + " bounds on " +
             dtype_name(dtype_of(inputs, 0));
  return "";
}

std::unique_ptr<GpuKernel> make_clip(const ir::Node&) { return std::make_unique<Clip>(); }

}  // namespace hi::gpu::HI_GPU_NS
