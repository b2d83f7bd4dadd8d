// InvertedResidual on the CPU: the fused block kernel (backends/cpu/kernels/inverted_residual.h), one per input
// shape, its packed weights shared across shapes; the reference where the kernel is not made (no
// AVX-512, an activation it lacks, an empty tensor).
#include "backends/cpu/kernels/inverted_residual.h"
#include "backends/cpu/kernels/kernel_cache.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "ops/inverted_residual.h"

namespace hi::cpu {
namespace {

class CpuInvertedResidual final : public ops::InvertedResidualOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Plan p, plan(ctx));
    const Tensor* z = ctx.input(7);
    const std::shared_ptr<const InvertedResidualKernel> kernel = fast_kernel(ctx, p);
    if (!kernel || shape_numel(p.y_shape) == 0) return InvertedResidualOp::run(ctx);
    Tensor& y = ctx.output(0, DType::kFloat32, p.y_shape);
    kernel->run(ctx.in(0).data<float>(), z ? z->data<float>() : nullptr, y.data<float>());
    return Status::ok();
  }

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  // One kernel per input shape and weight set, the packed weights shared among them.
  std::shared_ptr<const InvertedResidualKernel> fast_kernel(const ops::RunContext& ctx, const Plan& p) const {
    const Tensor* we = ctx.input(1);
    const Tensor* be = ctx.input(2);
    const Tensor& wd = ctx.in(3);
    const Tensor* bd = ctx.input(4);
    const Tensor& wp = ctx.in(5);
    const Tensor* bp = ctx.input(6);
    const bool residual = ctx.input(7) != nullptr;
    const std::vector<int64_t> key = {
        p.batch, p.height, p.width, reinterpret_cast<int64_t>(wd.raw()), reinterpret_cast<int64_t>(wp.raw()), residual};
    return kernels_.get(key, [&](WeightCache* cache) {
      InvertedResidualGeometry g;
      g.batch = p.batch;
      g.height = p.height;
      g.width = p.width;
      g.in_channels = p.in_channels;
      g.hidden = p.hidden;
      g.out_channels = p.out_channels;
      g.expand = p.expand;
      g.kernel_h = window_.kernel[0];
      g.kernel_w = window_.kernel[1];
      g.stride_h = window_.strides[0];
      g.stride_w = window_.strides[1];
      g.pad_top = p.pad_top;
      g.pad_left = p.pad_left;
      g.out_height = p.out_height;
      g.out_width = p.out_width;
      g.residual = residual;
      g.bf16 = bf16_;
      InvertedResidualWeights w;
      w.expand_w = we ? we->data<float>() : nullptr;
      w.expand_b = be ? be->data<float>() : nullptr;
      w.depthwise_w = wd.data<float>();
      w.depthwise_b = bd ? bd->data<float>() : nullptr;
      w.project_w = wp.data<float>();
      w.project_b = bp ? bp->data<float>() : nullptr;
      w.expand_act = acts_[0];
      w.depthwise_act = acts_[1];
      w.project_act = acts_[2];
      w.cache = cache;
      return make_inverted_residual_kernel(g, w);
    });
  }

  mutable KernelCache<InvertedResidualKernel> kernels_;
};

}  // namespace

HI_REGISTER_CPU_OP(InvertedResidual, CpuInvertedResidual)

}  // namespace hi::cpu
