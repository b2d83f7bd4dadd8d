// EyeLike (opset 9): a 2-D tensor of the input's shape with ones on the k-th diagonal (k > 0 above
// the main one, k < 0 below) and zeros elsewhere, of type 'dtype' (default: the input's type).
// Only the input's shape is read.
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class EyeLikeOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    k_ = ctx.get_int("k", 0);
    if (ctx.has("dtype")) {
      dtype_ = static_cast<DType>(ctx.get_int("dtype", 0));
      if (!in_set(kAllTypes, dtype_))
        return ctx.fail(StatusCode::kUnsupported, "attribute 'dtype' names ", dtype_name(dtype_),
                        ", which EyeLike does not produce (numeric types and bool)");
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kAllTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (x.has_rank() && x.rank() != 2)
      return error(StatusCode::kInvalidModel, "input must be 2-D, got ", x.to_string());
    ir::ValueType out = x;
    out.dtype = dtype_ == DType::kUndefined ? x.dtype : dtype_;
    ctx.set_output_type(0, std::move(out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() != 2) return error(StatusCode::kInvalidArgument, "input must be 2-D, got ", x.type_string());
    const DType dt = dtype_ == DType::kUndefined ? x.dtype() : dtype_;
    if (!in_set(kAllTypes, dt)) return unsupported_dtype(ctx.node(), dt);
    Tensor& y = ctx.output(0, dt, x.shape());
    const int64_t rows = x.dim(0), cols = x.dim(1);
    dispatch<kAllTypes>(dt, [&]<typename T>() {
      T* p = y.data<T>();
      for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) p[i * cols + j] = saturate_cast<T>(j - i == k_ ? 1.0 : 0.0);
    });
    return Status::ok();
  }

 private:
  int64_t k_ = 0;
  DType dtype_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(EyeLike, EyeLikeOp)

}  // namespace hi::ops
