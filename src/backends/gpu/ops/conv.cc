// Conv and FusedConv (bias, residual, activation), 2-D NCHW: through the vendor library where it
// takes the geometry (cuDNN; vendor_libs.h), else the own implicit-GEMM kernel (kernels/conv2d.cu).
#include "backends/gpu/kernels/conv.h"
#include "backends/gpu/ops/ops.h"
#include "backends/gpu/ops/window.h"
#include "backends/gpu/vendor_libs.h"
#include "ops/internal.h"

namespace hi::gpu::HI_GPU_NS {

Result<Window2d> resolve_window(const ops::WindowParams& params, const Shape& x, const Shape* weights) {
  ops::WindowParams p = params;
  if (p.kernel.empty() && weights) p.kernel = {(*weights)[2], (*weights)[3]};
  HI_RETURN_IF_ERROR(p.resolve_rank(2));
  std::vector<int64_t> pads, out;
  HI_RETURN_IF_ERROR(p.output_dims({x[2], x[3]}, &pads, &out));
  Window2d w;
  for (size_t i = 0; i < 2; ++i) {
    w.kernel[i] = p.kernel[i];
    w.strides[i] = p.strides[i];
    w.dilations[i] = p.dilations[i];
  }
  for (size_t i = 0; i < 4; ++i) w.pads[i] = pads[i];
  return w;
}

namespace {

class Conv final : public GpuKernel {
 public:
  explicit Conv(bool fused) : fused_(fused) {}
  Status init(ops::InitContext& ctx) override {
    window_.parse(ctx, true);
    group_ = ctx.get_int("group", 1);
    if (fused_) read_activation(ctx, &has_activation_, &activation_);
    return Status::ok();
  }
  Result<size_t> workspace_bytes(const LaunchContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Conv2dDesc d, describe(ctx));
    Result<size_t> bytes = vendor_conv2d_workspace(ctx.input(0).dtype, d);
    if (bytes.is_ok() || bytes.status().code() != StatusCode::kUnsupported) return bytes;
    return size_t{0};  // the own kernel needs none
  }
  // The vendor library (cuDNN) where it takes the convolution, else the own kernel.
  Status launch(LaunchContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Conv2dDesc d, describe(ctx));
    const DType dt = ctx.input(0).dtype;
    const void* bias = ctx.has_input(2) ? ctx.input(2).ptr : nullptr;
    const void* residual = ctx.has_input(3) ? ctx.input(3).ptr : nullptr;
    void* y = ctx.output(0).ptr;
    const Status vendor = vendor_conv2d(dt, d, ctx.input(0).ptr, ctx.input(1).ptr, bias, residual, y, ctx.workspace(),
                                        ctx.workspace_bytes(), ctx.stream());
    if (vendor.code() != StatusCode::kUnsupported) return vendor;
    return conv2d(dt, d, ctx.input(0).ptr, ctx.input(1).ptr, bias, residual, y, ctx.stream());
  }

 private:
  Result<Conv2dDesc> describe(const LaunchContext& ctx) const {
    const Shape& x = ctx.input(0).shape;
    const Shape& w = ctx.input(1).shape;
    const Shape& y = ctx.output(0).shape;
    HI_ASSIGN_OR_RETURN(const Window2d win, resolve_window(window_, x, &w));
    Conv2dDesc d;
    d.batch = x[0];
    d.in_channels = x[1];
    d.in_h = x[2];
    d.in_w = x[3];
    d.out_channels = w[0];
    d.out_h = y[2];
    d.out_w = y[3];
    d.groups = group_;
    set_window(d, win);
    d.has_activation = has_activation_;
    d.activation = activation_;
    return d;
  }

  bool fused_;
  ops::WindowParams window_;
  int64_t group_ = 1;
  bool has_activation_ = false;
  UnaryOp activation_;
};

}  // namespace

std::string conv_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs) {
  const std::string& op = node.op_type;
  if (!is_float(dtype_of(inputs, 0)) || dtype_of(inputs, 1) != dtype_of(inputs, 0))
    return float_only_reason(node, inputs);
  if (rank_of(inputs, 1) != 4) return "no GPU kernel for " + op + " other than 2-D";
  if (op == "FusedConv") {
    if (attr_int(node, "channels_last", 0) != 0) return "no GPU kernel for channels-last FusedConv (a CPU layout)";
    return activation_why_not(node);
  }
  return "";
}

std::unique_ptr<GpuKernel> make_conv(const ir::Node& node) {
  return std::make_unique<Conv>(node.op_type == "FusedConv");
}

}  // namespace hi::gpu::HI_GPU_NS
