// LpNormalization (opset 1): divides each vector along 'axis' (default -1) by its Lp norm,
// p = 1 or 2 (default 2): y = x / (sum |x|^p)^(1/p). A vector whose norm is 0 maps to zeros
// (as the ONNX reference does) instead of NaN. Norms in double.
#include <cmath>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class LpNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -1);
    p_ = ctx.get_int("p", 2);
    if (p_ != 1 && p_ != 2) return ctx.fail(StatusCode::kInvalidModel, "attribute 'p' must be 1 or 2, got ", p_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (x.has_rank()) {
      if (x.rank() == 0) return error(StatusCode::kInvalidModel, "input must have rank >= 1, got ", x.to_string());
      HI_RETURN_IF_ERROR(normalize_axis(axis_, x.rank()).status());
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    if (x.rank() == 0) return error(StatusCode::kInvalidArgument, "input must have rank >= 1, got ", x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    const auto a = static_cast<size_t>(axis);
    const int64_t outer = dims_product(x.shape(), 0, a), n = x.dim(axis);
    const int64_t inner = dims_product(x.shape(), a + 1, x.shape().size());
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) {
            const double v = std::abs(static_cast<double>(px[base + j * inner]));
            acc += p_ == 1 ? v : v * v;
          }
          const double norm = p_ == 1 ? acc : std::sqrt(acc);
          for (int64_t j = 0; j < n; ++j) {
            const double v = static_cast<double>(px[base + j * inner]);
            py[base + j * inner] = static_cast<T>(static_cast<compute_t<T>>(norm == 0 ? 0.0 : v / norm));
          }
        }
    });
    return Status::ok();
  }

 private:
  int64_t axis_ = -1;
  int64_t p_ = 2;
};

}  // namespace

HI_REGISTER_OP(LpNormalization, LpNormalizationOp)

}  // namespace hi::ops
