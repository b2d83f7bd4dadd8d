// Conv and FusedConv on the CPU: float32 on the fast kernels (oneDNN's primitives, the own
// Winograd, packed-product, im2col, bfloat16 and first-layer kernels: make_conv_kernel picks), one
// kernel per input shape when the weights are constants, their packed forms shared across shapes
// (backends/cpu/kernels/kernel_cache.h). The reference takes other types, and every case when oneDNN is not built in.
#include "backends/cpu/kernels/kernel_cache.h"
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "ops/conv.h"

namespace hi::cpu {
namespace {

class CpuConv final : public ops::ConvOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Geometry g, geometry(ctx));
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32) return run_reference(ctx, g);
    const Tensor& w = ctx.in(1);
    const Tensor* b = ctx.input(2);
    const Tensor* z = ctx.input(3);
    const std::shared_ptr<const ConvKernel> kernel = fast_kernel(conv_geometry(g), w, b, z != nullptr);
    if (!kernel) return run_reference(ctx, g);
    Tensor& y = ctx.output(0, x.dtype(), g.y_shape);
    return kernel->run(x.data<float>(), z ? z->data<float>() : nullptr, y.data<float>());
  }

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  ConvGeometry conv_geometry(const Geometry& g) const {
    ConvGeometry c;
    c.batch = g.batch;
    c.in_channels = g.in_channels;
    c.out_channels = g.out_channels;
    c.groups = group_;
    c.in = g.in;
    c.out = g.out;
    c.kernel = g.window.kernel;
    c.strides = g.window.strides;
    c.dilations = g.window.dilations;
    const auto rank = static_cast<std::ptrdiff_t>(g.in.size());
    c.pads_begin.assign(g.pads.begin(), g.pads.begin() + rank);
    c.pads_end.assign(g.pads.begin() + rank, g.pads.end());
    c.channels_last = channels_last_;
    c.input_channels_first = channels_last_ && !input_channels_last_;
    return c;
  }

  // The fast kernel for this geometry: made once per input shape when the weights are
  // constants (and their packed forms shared across shapes), else made for this call alone.
  std::shared_ptr<const ConvKernel> fast_kernel(const ConvGeometry& g, const Tensor& w, const Tensor* b,
                                                bool with_sum) const {
    if (!fast_kernels_available()) return nullptr;
    auto make = [&](WeightCache* cache) {
      return make_conv_kernel(g, w.data<float>(), b ? b->data<float>() : nullptr, activation_, with_sum,
                              bf16_ ? Precision::kBFloat16 : Precision::kFloat32, cache);
    };
    if (!weights_constant_) return make(nullptr);
    std::vector<int64_t> key = {g.batch, with_sum ? 1 : 0, reinterpret_cast<int64_t>(w.raw()),
                                reinterpret_cast<int64_t>(b ? b->raw() : nullptr)};
    key.insert(key.end(), g.in.begin(), g.in.end());
    return kernels_.get(key, make);
  }

  mutable KernelCache<ConvKernel> kernels_;
};

}  // namespace

HI_REGISTER_CPU_OP(Conv, CpuConv)
HI_REGISTER_CPU_OP(FusedConv, CpuConv)

}  // namespace hi::cpu
