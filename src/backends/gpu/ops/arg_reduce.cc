// ArgMax and ArgMin along one axis, with keepdims and select_last_index (kernels/arg_reduce.cu).
#include "backends/gpu/kernels/index_ops.h"
#include "backends/gpu/ops/ops.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class ArgReduce final : public GpuKernel {
 public:
  explicit ArgReduce(bool max) : max_(max) {}
  Status init(ops::InitContext& ctx) override {
    axis_ = ctx.get_int("axis", 0);
    select_last_ = ctx.get_int("select_last_index", 0) != 0;
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    const DeviceValue& x = ctx.input(0);
    HI_ASSIGN_OR_RETURN(const AxisView v, axis_view(ctx.node(), x.shape, axis_));
    return arg_reduce(x.dtype, x.ptr, static_cast<int64_t*>(ctx.output(0).ptr), v.outer, v.n, v.inner, max_,
                      select_last_, ctx.stream());
  }

 private:
  bool max_;
  int64_t axis_ = 0;
  bool select_last_ = false;
};

}  // namespace

std::string arg_reduce_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!arg_reduce_supports(dtype_of(inputs, 0)))
    return "no GPU kernel for " + node.op_type + " on " + dtype_name(dtype_of(inputs, 0)) +
           " (float32, float16, int64, int32)";
  return "";
}

std::unique_ptr<GpuKernel> make_arg_reduce(const ir::Node& node) {
  return std::make_unique<ArgReduce>(node.op_type == "ArgMax");
}

}  // namespace hi::gpu::HI_GPU_NS
