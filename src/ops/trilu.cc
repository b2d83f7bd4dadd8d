// Trilu (opset 14): keeps the upper (upper=1, the default) or lower triangle of each matrix in
// the last two dims and zeroes the rest. The optional scalar input k (int64, default 0) moves the
// diagonal: upper keeps j - i >= k, lower keeps j - i <= k. Any element type (strings become "").
#include "ops/copy_util.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

class TriluOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    const int64_t u = ctx.get_int("upper", 1);
    if (u != 0 && u != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'upper' must be 0 or 1, got ", u);
    upper_ = u == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (x.has_rank() && x.rank() < 2)
      return error(StatusCode::kInvalidModel, "input must have rank >= 2, got ", x.to_string());
    if (ctx.has_input(1)) HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(1), bit(DType::kInt64), "k"));
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() < 2) return error(StatusCode::kInvalidArgument, "input must have rank >= 2, got ", x.type_string());
    int64_t k = 0;
    if (const Tensor* kt = ctx.input(1)) {
      HI_ASSIGN_OR_RETURN(k, scalar_int(*kt, "k"));
    }
    const int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
    const int64_t mats = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          for (int64_t m = 0; m < mats; ++m)
            for (int64_t i = 0; i < rows; ++i)
              for (int64_t j = 0; j < cols; ++j) {
                const int64_t o = (m * rows + i) * cols + j;
                // j - i lies within the matrix size, so any int64 k compares exactly.
                const bool keep = upper_ ? (j - i >= k) : (j - i <= k);
                dst[o] = keep ? src[o] : U{};
              }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  bool upper_ = true;
};

}  // namespace

HI_REGISTER_OP(Trilu, TriluOp)

}  // namespace hi::ops
