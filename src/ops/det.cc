// Det (opset 11): the determinant of each square matrix in the last two dims, [*, M, M] -> [*].
// LU decomposition with partial pivoting in double; a singular matrix gives 0.
#include <cmath>
#include <utility>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

// Determinant of the m x m row-major matrix `a` (destroyed).
double determinant(std::vector<double>& a, int64_t m) {
  double det = 1;
  auto at = [&](int64_t r, int64_t c) -> double& { return a[static_cast<size_t>(r * m + c)]; };
  for (int64_t k = 0; k < m; ++k) {
    int64_t pivot = k;
    for (int64_t r = k + 1; r < m; ++r)
      if (std::abs(at(r, k)) > std::abs(at(pivot, k))) pivot = r;
    if (at(pivot, k) == 0) return 0;
    if (pivot != k) {
      for (int64_t c = 0; c < m; ++c) std::swap(at(k, c), at(pivot, c));
      det = -det;
    }
    det *= at(k, k);
    for (int64_t r = k + 1; r < m; ++r) {
      const double f = at(r, k) / at(k, k);
      for (int64_t c = k; c < m; ++c) at(r, c) -= f * at(k, c);
    }
  }
  return det;
}

class DetOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() < 2) return error(StatusCode::kInvalidModel, "input must be [*, M, M], got ", x.to_string());
    const ir::Dim& r = (*x.shape)[static_cast<size_t>(x.rank() - 2)];
    const ir::Dim& c = (*x.shape)[static_cast<size_t>(x.rank() - 1)];
    if (r.is_known() && c.is_known() && r.value != c.value)
      return error(StatusCode::kInvalidModel, "input must hold square matrices [*, M, M], got ", x.to_string());
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::vector<ir::Dim>(x.shape->begin(), x.shape->end() - 2)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2))
      return error(StatusCode::kInvalidArgument, "input must hold square matrices [*, M, M], got ", x.type_string());
    const int64_t m = x.dim(x.rank() - 1);
    const Shape out_shape(x.shape().begin(), x.shape().end() - 2);
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    const int64_t count = shape_numel(out_shape);
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      std::vector<double> a(static_cast<size_t>(m * m));
      for (int64_t b = 0; b < count; ++b) {
        for (int64_t i = 0; i < m * m; ++i) a[static_cast<size_t>(i)] = static_cast<double>(px[b * m * m + i]);
        py[b] = static_cast<T>(static_cast<compute_t<T>>(determinant(a, m)));
      }
    });
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(Det, DetOp)

}  // namespace hi::ops
