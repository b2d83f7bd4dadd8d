// SwiGLU (opset 28): Y = Swish_alpha(A) * B = A * sigmoid(alpha * A) * B, elementwise over A and
// B of one shape and type (no broadcasting). Computed in double, rounded once.
#include <cmath>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class SwiGLUOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    alpha_ = ctx.get_float("alpha", 1.f);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& a = ctx.input_type(0);
    const ir::ValueType& b = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_types(a.dtype, b.dtype));
    if (a.has_rank() && b.has_rank()) {
      bool same = a.rank() == b.rank();
      for (size_t i = 0; same && i < a.shape->size(); ++i) {
        const ir::Dim& x = (*a.shape)[i];
        const ir::Dim& y = (*b.shape)[i];
        if (x.is_known() && y.is_known() && x.value != y.value) same = false;
      }
      if (!same)
        return error(StatusCode::kInvalidModel, "A ", a.to_string(), " and B ", b.to_string(),
                     " must have the same shape (SwiGLU does not broadcast)");
    }
    ctx.set_output_type(0, a.has_rank() ? a : b);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& a = ctx.in(0);
    const Tensor& b = ctx.in(1);
    HI_RETURN_IF_ERROR(check_types(a.dtype(), b.dtype()));
    if (a.shape() != b.shape())
      return error(StatusCode::kInvalidArgument, "A ", a.type_string(), " and B ", b.type_string(),
                   " must have the same shape (SwiGLU does not broadcast)");
    Tensor& y = ctx.output(0, a.dtype(), a.shape());
    dispatch<kFloatTypes>(a.dtype(), [&]<typename T>() {
      const T* pa = a.data<T>();
      const T* pb = b.data<T>();
      T* py = y.data<T>();
      for (int64_t i = 0; i < a.numel(); ++i) {
        const double x = static_cast<double>(pa[i]);
        const double gate = x / (1.0 + std::exp(-static_cast<double>(alpha_) * x));
        py[i] = static_cast<T>(static_cast<compute_t<T>>(gate * static_cast<double>(pb[i])));
      }
    });
    return Status::ok();
  }

 private:
  Status check_types(DType a, DType b) const {
    for (const auto& [t, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
      if (t != DType::kUndefined && !in_set(kFloatTypes, t))
        return error(StatusCode::kUnsupported, "SwiGLU (opset ", opset_, ") does not support ", name, " of type ",
                     dtype_name(t), "; expected float32, float64, float16 or bfloat16");
    if (a != DType::kUndefined && b != DType::kUndefined && a != b)
      return error(StatusCode::kInvalidModel, "B is ", dtype_name(b), " but A is ", dtype_name(a), "; they must match");
    return Status::ok();
  }

  int64_t opset_ = 28;
  float alpha_ = 1.f;
};

}  // namespace

HI_REGISTER_OP(SwiGLU, SwiGLUOp)

}  // namespace hi::ops
