// Bernoulli (opset 15): y[i] = 1 with probability x[i] (u < x[i] for u uniform in [0, 1)), else
// 0, in the type named by 'dtype' (default: x's type; any numeric type or bool). 'seed' seeds the
// generator (random_util.h); unseeded, each run differs, so the op is never folded.
// ONNX's test data for this op cannot be reproduced: it was drawn from numpy's global generator
// after drawing the input, whatever the seed attribute says.
#include <optional>

#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/random_util.h"

namespace hi::ops {
namespace {

class BernoulliOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (ctx.has("seed")) seed_ = static_cast<double>(ctx.get_float("seed", 0));
    if (ctx.has("dtype")) {
      dtype_ = static_cast<DType>(ctx.get_int("dtype", 0));
      if (!in_set(kAllTypes, dtype_))
        return ctx.fail(StatusCode::kUnsupported, "Bernoulli (opset ", ctx.opset(), "): attribute 'dtype' names ",
                        dtype_name(dtype_), ", which it does not produce (numeric types and bool only)");
    }
    return ctx.status();
  }

  bool is_deterministic() const override { return false; }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return error(StatusCode::kUnsupported, "Bernoulli does not support input type ", dtype_name(x.dtype),
                   " (probabilities must be float16, bfloat16, float32 or float64)");
    ir::ValueType y = x;
    if (dtype_ != DType::kUndefined) y.dtype = dtype_;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype()))
      return error(StatusCode::kUnsupported, "Bernoulli does not support input type ", dtype_name(x.dtype()));
    const DType dt = dtype_ == DType::kUndefined ? x.dtype() : dtype_;
    Tensor& y = ctx.output(0, dt, x.shape());
    RandomSource rng(seed_);
    dispatch<kAllTypes>(dt, [&]<typename T>() {
      T* py = y.data<T>();
      for (int64_t i = 0; i < x.numel(); ++i) py[i] = static_cast<T>(rng.uniform() < x.as_double(i) ? 1.f : 0.f);
    });
    return Status::ok();
  }

 private:
  std::optional<double> seed_;
  DType dtype_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(Bernoulli, BernoulliOp)

}  // namespace hi::ops
