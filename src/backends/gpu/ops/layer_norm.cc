// LayerNormalization (with its optional Mean and InvStdDev outputs) and RMSNormalization over the
// dims from `axis` on (kernels/layer_norm.cu: one row per position before the axis). Scale and bias must hold the whole
// normalised shape (no broadcasting within a row), which the support check proves from the static shapes.
#include "backends/gpu/kernels/rows.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class LayerNorm final : public GpuKernel {
 public:
  explicit LayerNorm(bool rms) : rms_(rms) {}
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -1);
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    DeviceValue& y = ctx.output(0);
    const auto rank = static_cast<int64_t>(x.shape.size());
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    int64_t cols = 1;
    for (int64_t d = axis; d < rank; ++d) cols *= x.shape[static_cast<size_t>(d)];
    for (size_t i = 1; i < 3; ++i)
      HI_RETURN_IF(ctx.has_input(i) && shape_numel(ctx.input(i).shape) != cols, kInvalidArgument, ctx.node().op_type,
                   ": input ", i, " has ", shape_numel(ctx.input(i).shape), " elements, the normalised shape ", cols);
    RowStats stats;  // LayerNormalization's optional Mean and InvStdDev outputs, float32 (stash_type 1)
    for (size_t o = 1; o < 3; ++o) {
      if (!ctx.has_output(o)) continue;
      HI_RETURN_IF(ctx.output(o).dtype != DType::kFloat32, kUnsupported, ctx.node().op_type, ": output ", o, " is ",
                   dtype_name(ctx.output(o).dtype), "; the GPU kernel writes float32 statistics");
      (o == 1 ? stats.mean : stats.inv_std) = static_cast<float*>(ctx.output(o).ptr);
    }
    return layer_norm_rows(x.dtype, x.ptr, ctx.input(1).ptr, ctx.has_input(2) ? ctx.input(2).ptr : nullptr, y.ptr,
                           cols ? shape_numel(y.shape) / cols : 0, cols, epsilon_, ctx.stream(), rms_, stats);
  }

 private:
  bool rms_;
  int64_t axis_ = -1;
  float epsilon_ = 1e-5f;
};

}  // namespace

std::string layer_norm_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const DType t0 = dtype_of(inputs, 0);
  if (!is_float(t0) || dtype_of(inputs, 1) != t0 ||
      (inputs.size() > 2 && !node.inputs[2].empty() && dtype_of(inputs, 2) != t0))
    return float_only_reason(node, inputs);
  if (attr_int(node, "stash_type", 1) != 1)
    return "no GPU kernel for " + node.op_type + " with a stash_type other than float32";
  // The normalised dims must be known, and scale and bias must hold all of them.
  const int64_t r = rank_of(inputs, 0);
  if (r < 1) return "no GPU kernel for " + node.op_type + " of unknown rank";
  int64_t axis = attr_int(node, "axis", -1);
  axis = axis < 0 ? axis + r : axis;
  if (axis < 0 || axis >= r) return "";  // the op's own check reports the bad axis
  int64_t cols = 1;
  for (int64_t d = axis; d < r; ++d) {
    const ir::Dim& dim = (*inputs[0].shape)[static_cast<size_t>(d)];
    if (!dim.is_known()) return "no GPU kernel for " + node.op_type + " over dims of unknown size";
    cols *= dim.value;
  }
  for (size_t i = 1; i < 3 && i < inputs.size(); ++i) {
    if (node.inputs[i].empty()) continue;
    if (!inputs[i].is_static() || shape_numel(inputs[i].concrete_shape()) != cols)
      return "no GPU kernel for " + node.op_type + " with a scale or bias broadcast within the normalised shape";
  }
  return "";
}

std::unique_ptr<GpuKernel> make_layer_norm(const ir::Node& node) {
  return std::make_unique<LayerNorm>(node.op_type == "RMSNormalization");
}

}  // namespace hi::gpu::HI_GPU_NS
