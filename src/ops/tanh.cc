// Tanh: elementwise tanh(x).
#include "ops/elementwise.h"
#include "ops/vector_activation.h"

namespace hi::ops {
namespace {

struct TanhFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::tanh(x));
  }
};

// Float32 on the vector kernels; the other types element by element.
class TanhOp final : public UnaryOp<kFloatTypes, TanhFn> {
 public:
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32) return UnaryOp::run(ctx);
    run_vector_activation(x, ctx.output(0, x.dtype(), x.shape()), VectorActivation::kTanh);
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Tanh, TanhOp)

}  // namespace hi::ops
