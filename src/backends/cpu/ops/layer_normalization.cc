// LayerNormalization on the CPU: float32 rows whose Scale and B cover the whole row, without the
// Mean and InvStdDev outputs, take the vector row kernel, in float; the rest the reference, in
// double.
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "ops/layer_normalization.h"

namespace hi::cpu {
namespace {

class CpuLayerNormalization final : public ops::LayerNormalizationOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& scale = ctx.in(1);
    const Tensor* bias = ctx.input(2);
    if (x.dtype() != DType::kFloat32 || stats_wanted(ctx)) return LayerNormalizationOp::run(ctx);
    HI_ASSIGN_OR_RETURN(const Rows r, check_rows(ctx));
    if (scale.numel() != r.n || (bias && bias->numel() != r.n)) return LayerNormalizationOp::run(ctx);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    layer_norm_rows(x.data<float>(), scale.data<float>(), bias ? bias->data<float>() : nullptr, y.data<float>(), r.rows,
                    r.n, epsilon_);
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_CPU_OP(LayerNormalization, CpuLayerNormalization)
HI_REGISTER_CPU_OP(LayerNormalizationInternal, CpuLayerNormalization)

}  // namespace hi::cpu
