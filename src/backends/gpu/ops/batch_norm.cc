// BatchNormalization in inference mode, one output (kernels/batch_norm.cu): per-channel
// statistics, or per (channel, position) with spatial=0 (opsets 6-8).
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class BatchNorm final : public GpuKernel {
 public:
  Status init(ops::InitContext& ctx) override {
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    spatial_ = ctx.opset() >= 9 || ctx.get_int("spatial", 1) != 0;
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    BatchNormDesc d;
    d.epsilon = epsilon_;
    d.spatial = spatial_;
    d.outer = x.shape.size() >= 2 ? x.shape[0] : shape_numel(x.shape);
    d.channels = x.shape.size() >= 2 ? x.shape[1] : 1;
    d.inner = x.shape.size() > 2 ? shape_numel(Shape(x.shape.begin() + 2, x.shape.end())) : 1;
    d.scale_dtype = ctx.input(1).dtype;
    d.stats_dtype = ctx.input(3).dtype;
    return batch_norm(d, x.dtype, x.ptr, ctx.input(1).ptr, ctx.input(2).ptr, ctx.input(3).ptr, ctx.input(4).ptr,
                      ctx.output(0).ptr, ctx.stream());
  }

 private:
  float epsilon_ = 1e-5f;
  bool spatial_ = true;
};

}  // namespace

std::string batch_norm_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  for (size_t i = 0; i < 5; ++i)
    if (!is_float(dtype_of(inputs, i)))
      return "no GPU kernel for BatchNormalization with " + std::string(dtype_name(dtype_of(inputs, i))) + " input " +
             std::to_string(i) + " (float32, float16)";
  if (attr_int(node, "training_mode", 0) != 0)
    return "no GPU kernel for BatchNormalization in training mode (inference only)";
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (!node.outputs[i].empty()) return "no GPU kernel for BatchNormalization's running statistics (one output)";
  if (rank_of(inputs, 0) == 0) return "no GPU kernel for BatchNormalization of a scalar";
  return "";
}

std::unique_ptr<GpuKernel> make_batch_norm(const ir::Node&) { return std::make_unique<BatchNorm>(); }

}  // namespace hi::gpu::HI_GPU_NS
