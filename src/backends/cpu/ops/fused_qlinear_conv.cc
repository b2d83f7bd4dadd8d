// FusedQLinearConv on the CPU: the int8 implicit product (backends/cpu/kernels/int8_conv.cc, AVX512_VNNI), one
// kernel per input shape, where the weights, scales and zero points are constants, w's zero point
// is 0 and the convolution is 2-D with one group; elsewhere the op's reference. Both give the
// same codes.
#include "backends/cpu/kernels/kernel_cache.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "ops/fused_qlinear_conv.h"
#include "ops/integer_conv.h"

namespace hi::cpu {
namespace {

class CpuFusedQLinearConv final : public ops::FusedQLinearConvOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const std::shared_ptr<const QuantizedConvKernel> kernel = x.rank() == 4 ? fast_kernel(ctx) : nullptr;
    if (!kernel) return FusedQLinearConvOp::run(ctx);
    HI_ASSIGN_OR_RETURN(ops::qconv::ConvGeometry g, ops::qconv::conv_geometry(kOp, channels_first_shape(x.shape()),
                                                                              ctx.in(3).shape(), group_, window_));
    Tensor& y = ctx.output(0, ctx.in(7).dtype(), {g.n, g.out[0], g.out[1], g.m});
    return kernel->run(x.raw(), y.raw());
  }

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  // The int8 kernel for this input shape, made once (the weights and scales are constants), or
  // null where it does not apply.
  std::shared_ptr<const QuantizedConvKernel> fast_kernel(const ops::RunContext& ctx) const {
    if (!constants_ || !int8_kernels_available() || group_ != 1) return nullptr;
    return kernels_.get(ctx.in(0).shape(), [&](WeightCache*) { return make_kernel(ctx); });
  }

  std::shared_ptr<const QuantizedConvKernel> make_kernel(const ops::RunContext& ctx) const {
    const Tensor& x = ctx.in(0);
    const Tensor& w = ctx.in(3);
    const Tensor& w_scale = ctx.in(4);
    const Tensor& w_zp = ctx.in(5);
    const Tensor* bias = ctx.input(8);
    if (w.dtype() != DType::kInt8 || w.rank() != 4) return nullptr;
    for (size_t s : {1, 2, 6, 7})
      if (ctx.in(s).numel() != 1) return nullptr;
    for (int64_t i = 0; i < w_zp.numel(); ++i)
      if (w_zp.data<int8_t>()[i] != 0) return nullptr;
    auto geometry = ops::qconv::conv_geometry(kOp, channels_first_shape(x.shape()), w.shape(), group_, window_);
    if (!geometry.is_ok() || geometry.value().in.size() != 2) return nullptr;
    const ops::qconv::ConvGeometry& g = geometry.value();
    if (w_scale.numel() != 1 && w_scale.numel() != g.m) return nullptr;
    if (bias && (bias->rank() != 1 || bias->dim(0) != g.m)) return nullptr;
    QuantizedConvParams q;
    ConvGeometry& cg = q.geometry;
    cg.batch = g.n;
    cg.in_channels = g.c;
    cg.out_channels = g.m;
    cg.groups = 1;
    cg.in = g.in;
    cg.out = g.out;
    cg.kernel = g.window.kernel;
    cg.strides = g.window.strides;
    cg.dilations = g.window.dilations;
    cg.pads_begin = {g.pads[0], g.pads[1]};
    cg.pads_end = {g.pads[2], g.pads[3]};
    cg.channels_last = true;
    q.x_signed = x.dtype() == DType::kInt8;
    q.y_signed = ctx.in(7).dtype() == DType::kInt8;
    auto zero_point = [](const Tensor& t) {
      return t.dtype() == DType::kInt8 ? int32_t{t.data<int8_t>()[0]} : int32_t{t.data<uint8_t>()[0]};
    };
    q.x_zero_point = zero_point(ctx.in(2));
    q.y_zero_point = zero_point(ctx.in(7));
    q.weights = w.data<int8_t>();
    q.bias = bias ? bias->data<int32_t>() : nullptr;
    q.relu = relu_;
    const float x_scale = ctx.in(1).data<float>()[0], y_scale = ctx.in(6).data<float>()[0];
    for (int64_t o = 0; o < g.m; ++o)  // as the reference: x_scale * w_scale / y_scale in float32
      q.multipliers.push_back(x_scale * w_scale.data<float>()[w_scale.numel() == 1 ? 0 : o] / y_scale);
    return make_int8_conv_kernel(q);
  }

  mutable KernelCache<QuantizedConvKernel> kernels_;
};

}  // namespace

HI_REGISTER_CPU_OP(FusedQLinearConv, CpuFusedQLinearConv)

}  // namespace hi::cpu
