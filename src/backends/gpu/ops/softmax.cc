// Softmax and LogSoftmax over the last axis (kernels/softmax.cu).
#include "backends/gpu/kernels/rows.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Softmax final : public GpuKernel {
 public:
  explicit Softmax(bool log) : log_(log) {}
  Status launch(LaunchContext& ctx) const override {
    DeviceValue& y = ctx.output(0);
    const int64_t cols = y.shape.empty() ? 1 : y.shape.back();
    return softmax_rows(ctx.input(0).dtype, ctx.input(0).ptr, y.ptr, cols ? shape_numel(y.shape) / cols : 0, cols, log_,
                        ctx.stream());
  }

 private:
  bool log_;
};

}  // namespace

std::string softmax_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  // Without the attribute the default depends on the opset (1 before 13, -1 from 13), which
  // this query does not see: only rank 2, where both mean the last axis, is taken.
  const int64_t r = rank_of(inputs, 0);
  const int64_t axis = attr_int(node, "axis", -1);
  const bool last = node.attr("axis") ? (axis == -1 || axis == r - 1) : r == 2;
  if (!last) return "no GPU kernel for " + node.op_type + " over an axis other than the last";
  return "";
}

std::unique_ptr<GpuKernel> make_softmax(const ir::Node& node) {
  return std::make_unique<Softmax>(node.op_type == "LogSoftmax");
}

}  // namespace hi::gpu::HI_GPU_NS
