// Softmax on the CPU: float32 rows that are contiguous (the axis is the last dim, or opset < 13's
// 2-D view) take the vector row kernel, in float; everything else the reference, in double.
#include "backends/cpu/kernels/kernels.h"
#include "backends/cpu/ops/cpu_ops.h"
#include "ops/softmax.h"

namespace hi::cpu {
namespace {

class CpuSoftmax final : public ops::SoftmaxOp {
 public:
  Status run(ops::RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    int64_t outer = 0, n = 0, inner = 0;
    if (x.dtype() != DType::kFloat32 || !axis_.layout(x.shape(), &outer, &n, &inner).is_ok() || inner != 1)
      return SoftmaxOp::run(ctx);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    softmax_rows(x.data<float>(), y.data<float>(), outer, n);
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_CPU_OP(Softmax, CpuSoftmax)

}  // namespace hi::cpu
