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
    HI_RETURN_IF(axes.size() != 1, kInvalidArgument, ctx.node().op_type, ": axis must be one value, got ", axes.size());
    HI_ASSIGN_OR_RETURN(const AxisView v, axis_view(ctx.node(), x.shape, axes[0]));
    return cumulative(op_, x.dtype, x.ptr, ctx.output(0).ptr, v.outer, v.n, v.inner, ctx.stream());
  }

 private:
  CumulativeOp op_;
};

}  // namespace

std::string cumulative_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!cumulative_supports(dtype_of(inputs, 0)))
    return "no GPU kernel for " + node.op_type + " on " + dtype_name(dtype_of(inputs, 0)) +
           " (float32, float16, int64, int32)";
  return "";
}

std::unique_ptr<GpuKernel> make_cumulative(const ir::Node& node) {
  return std::make_unique<Cumulative>(node.op_type == "CumProd");
}

}  // namespace hi::gpu::HI_GPU_NS
