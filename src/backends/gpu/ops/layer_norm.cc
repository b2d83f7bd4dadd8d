// LayerNormalization over the last axis (kernels/layer_norm.cu).
#include "backends/gpu/kernels/rows.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class LayerNorm final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    DeviceValue& y = ctx.output(0);
    const int64_t cols = y.shape.empty() ? 1 : y.shape.back();
    return layer_norm_rows(ctx.input(0).dtype, ctx.input(0).ptr, ctx.input(1).ptr,
                           ctx.has_input(2) ? ctx.input(2).ptr : nullptr, y.ptr, cols ? shape_numel(y.shape) / cols : 0,
                           cols, epsilon_, ctx.stream());
  }

 private:
  float epsilon_ = 1e-5f;
};

}  // namespace

std::string layer_norm_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType t0 = dtype_of(inputs, 0);
  if (!is_float(t0) || dtype_of(inputs, 1) != t0) return float_only_reason(node, inputs);
  const int64_t axis = attr_int(node, "axis", -1), r = rank_of(inputs, 0);
  if (axis != -1 && (r < 0 || axis != r - 1)) return "no GPU kernel for LayerNormalization over more than the last axis";
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty()) return "no GPU kernel for LayerNormalization's mean and inverse std outputs";
  return "";
}

std::unique_ptr<GpuKernel> make_layer_norm(const ir::Node&) { return std::make_unique<LayerNorm>(); }

}  // namespace hi::gpu::HI_GPU_NS
