// MaxPool and AveragePool, 1-D and 2-D (kernels/pool2d.cu; explicit pads or auto_pad), and
// GlobalAveragePool / GlobalMaxPool as a reduction over each channel's plane (kernels/reduce.cu).
#include <algorithm>

#include "backends/gpu/kernels/pool.h"
#include "backends/gpu/kernels/reduce.h"
#include "backends/gpu/ops/ops.h"
#include "backends/gpu/ops/window.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

class Pool final : public GpuKernel {
 public:
  explicit Pool(PoolKind kind) : kind_(kind) {}
  Status init(ops::InitContext& ctx) override {
    window_.parse(ctx, true);
    count_include_pad_ = ctx.get_int("count_include_pad", 0) != 0;
    return Status::ok();
  }
  Status launch(LaunchContext& ctx) const override {
    // 1-D pooling is 2-D pooling of a [N, C, 1, W] view with a window of height 1.
    const bool one_d = ctx.input(0).shape.size() == 3;
    const Shape x =
        one_d ? Shape{ctx.input(0).shape[0], ctx.input(0).shape[1], 1, ctx.input(0).shape[2]} : ctx.input(0).shape;
    DeviceValue& y = ctx.output(0);
    ops::WindowParams params = window_;
    if (one_d) {
      HI_RETURN_IF_ERROR(params.resolve_rank(1));
      params.kernel.insert(params.kernel.begin(), 1);
      params.strides.insert(params.strides.begin(), 1);
      params.dilations.insert(params.dilations.begin(), 1);
      params.pads = {0, params.pads[0], 0, params.pads[1]};
    }
    HI_ASSIGN_OR_RETURN(const Window2d win, resolve_window(params, x, nullptr));
    Pool2dDesc d;
    d.batch = x[0];
    d.channels = x[1];
    d.in_h = x[2];
    d.in_w = x[3];
    d.out_h = one_d ? 1 : y.shape[2];
    d.out_w = y.shape.back();
    set_window(d, win);
    d.pad_bottom = win.pads[2];
    d.pad_right = win.pads[3];
    d.count_include_pad = count_include_pad_;
    return pool2d(kind_, ctx.input(0).dtype, d, ctx.input(0).ptr, y.ptr, ctx.stream());
  }

 private:
  PoolKind kind_;
  ops::WindowParams window_;
  bool count_include_pad_ = false;
};

// GlobalAveragePool, GlobalMaxPool: one reduction per (n, c) plane.
class GlobalPool final : public GpuKernel {
 public:
  explicit GlobalPool(ReduceKind kind) : kind_(kind) {}
  Status launch(LaunchContext& ctx) const override {
    const Shape& x = ctx.input(0).shape;
    const int64_t planes = x[0] * x[1];
    return reduce(kind_, ctx.input(0).dtype, ctx.input(0).ptr, ctx.output(0).ptr, planes,
                  shape_numel(x) / std::max<int64_t>(planes, 1), 1, ctx.stream());
  }

 private:
  ReduceKind kind_;
};

}  // namespace

std::string pool_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const std::string& op = node.op_type;
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  if (rank_of(inputs, 0) != 4 && rank_of(inputs, 0) != 3) return "no GPU kernel for " + op + " other than 1-D and 2-D";
  if (node.outputs.size() > 1 && !node.outputs[1].empty()) return "no GPU kernel for MaxPool's indices";
  return "";
}

std::unique_ptr<GpuKernel> make_pool(const ir::Node& node) {
  return std::make_unique<Pool>(node.op_type == "MaxPool" ? PoolKind::kMax : PoolKind::kAverage);
}

std::string global_pool_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  if (!is_float(dtype_of(inputs, 0))) return float_only_reason(node, inputs);
  if (rank_of(inputs, 0) < 3) return "no GPU kernel for " + node.op_type + " below rank 3";
  return "";
}

std::unique_ptr<GpuKernel> make_global_pool(const ir::Node& node) {
  return std::make_unique<GlobalPool>(node.op_type == "GlobalMaxPool" ? ReduceKind::kMax : ReduceKind::kMean);
}

}  // namespace hi::gpu::HI_GPU_NS
