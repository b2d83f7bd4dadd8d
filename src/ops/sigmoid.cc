// Sigmoid: elementwise 1 / (1 + exp(-x)).
#include "ops/elementwise.h"
#include "ops/vector_activation.h"

namespace hi::ops {
namespace {

struct SigmoidFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(T(1) / (T(1) + std::exp(-x)));
  }
};

// Float32 on the vector kernels; the other types element by element.
class SigmoidOp final : public UnaryOp<kFloatTypes, SigmoidFn> {
 public:
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32) return UnaryOp::run(ctx);
    run_vector_activation(x, ctx.output(0, x.dtype(), x.shape()), VectorActivation::kSigmoid);
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Sigmoid, SigmoidOp)

}  // namespace hi::ops
