// Binarizer (ai.onnx.ml opset 1): Y = 1 where X > threshold, else 0, in X's type (float,
// double, int64, int32). NaN is not greater than anything, so it maps to 0.
#include "ops/dispatch.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kBinarizerTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class BinarizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    threshold_ = ctx.get_float("threshold", 0.f);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kBinarizerTypes, "X"));
    ctx.set_output_type(0, ctx.input_type(0));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kBinarizerTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      // Compared in double: exact for float and for int32; int64 beyond 2^53 rounds.
      for (int64_t i = 0; i < x.numel(); ++i)
        py[i] = static_cast<double>(px[i]) > static_cast<double>(threshold_) ? T(1) : T(0);
    });
    if (!ok) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  float threshold_ = 0.f;
};

}  // namespace

HI_REGISTER_OP(Binarizer, BinarizerOp)

}  // namespace hi::ops
