// CumSum and CumProd along the axis given as an input (read on the host), with exclusive and
// reverse (kernels/cumulative.cu).
#include "backends/gpu/kernels/reduce.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Cumulative final : public GpuKernel {
 public:
  explicit Cumulative(bool product) { op_.product = product; }
  Status init(ops::InitContext& ctx) override {
    op_.exclusive = ctx.get_int("exclusive", 0) != 0;
    op_.reverse = ctx.get_int("reverse", 0) != 0;
    return Status::ok();
  }
  bool reads_on_host(size_t input) const override { return input == 1; }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    HI_ASSIGN_OR_RETURN(const std::vector<int64_t> axes, host_ints(ctx, 1));
    const auto rank = static_cast<int64_t>(x.shape.size());
    HI_RETURN_IF(axes.size() != 1, kInvalidArgument, ctx.node().op_type, ": axis must be one value, got ", axes.size());
    const int64_t axis = axes[0] < 0 ? axes[0] + rank : axes[0];
    HI_RETURN_IF(axis < 0 || axis >= rank, kInvalidArgument, ctx.node().op_type, ": axis ", axes[0], " is out of range for ",
                 shape_to_string(x.shape));
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (d < axis) outer *= x.shape[static_cast<size_t>(d)];
      if (d > axis) inner *= x.shape[static_cast<size_t>(d)];
    }
    return cumulative(op_, x.dtype, x.ptr, ctx.output(0).ptr, outer, x.shape[static_cast<size_t>(axis)], inner, ctx.stream());
  }

 private:
  CumulativeOp op_;
};

}  // namespace

std::string cumulative_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!cumulative_supports(dtype_of(inputs, 0)))
    return "no GPU kernel for " + node.op_type + " on " + dtype_name(dtype_of(inputs, 0)) + " (float32, float16, int64, int32)";
  return "";
}

std::unique_ptr<GpuKernel> make_cumulative(const ir::Node& node) { return std::make_unique<Cumulative>(node.op_type == "CumProd"); }

}  // namespace hi::gpu::HI_GPU_NS
