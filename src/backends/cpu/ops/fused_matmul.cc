// FusedMatMul on the CPU: the packed-weights kernel for each row count (its weights packed once
// and shared across row counts, backends/cpu/kernels/kernel_cache.h), which applies the bias, residual and
// activation while the product's rows are in cache; a residual that broadcasts, or a shape the
// kernels do not take, runs the op's own path with its products on sgemm.
#include "backends/cpu/kernels/kernel_cache.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "backends/cpu/ops/sgemm_product.h"
#include "ops/fused_matmul.h"

namespace hi::cpu {
namespace {

class CpuFusedMatMul final : public SgemmProduct<ops::FusedMatMulOp> {
 public:
  Status run(ops::RunContext& ctx) const override {
    HI_ASSIGN_OR_RETURN(const Dims d, dims(ctx));
    const Tensor* z = ctx.input(3);
    if (z && z->shape() != d.out_shape) return FusedMatMulOp::run(ctx);
    const std::shared_ptr<const MatMulKernel> kernel = fast_kernel(d, ctx.in(1), ctx.in(2), z != nullptr);
    if (!kernel) return FusedMatMulOp::run(ctx);
    Tensor& y = ctx.output(0, DType::kFloat32, d.out_shape);
    return kernel->run(ctx.in(0).data<float>(), z ? z->data<float>() : nullptr, y.data<float>());
  }

  std::string kernel_name() const override { return kernels_.describe(); }

 private:
  // The packed-weights kernel for this row count, made once (B and bias are constants: the
  // fusion pass only makes FusedMatMul for constant weights).
  std::shared_ptr<const MatMulKernel> fast_kernel(const Dims& d, const Tensor& b, const Tensor& bias,
                                                  bool with_sum) const {
    const std::vector<int64_t> key = {d.rows, with_sum ? 1 : 0, reinterpret_cast<int64_t>(b.raw()),
                                      reinterpret_cast<int64_t>(bias.raw())};
    return kernels_.get(key, [&](WeightCache* cache) {
      return make_matmul_kernel(d.rows, d.k, d.n, b.data<float>(), bias.data<float>(), activation_, with_sum,
                                bf16_ ? Precision::kBFloat16 : Precision::kFloat32, cache);
    });
  }

  mutable KernelCache<MatMulKernel> kernels_;
};

}  // namespace

HI_REGISTER_CPU_OP(FusedMatMul, CpuFusedMatMul)

}  // namespace hi::cpu
