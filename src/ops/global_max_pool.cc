// GlobalMaxPool: the largest element over all spatial dims of each (N, C) plane, kept as size 1.
// NaN inputs are skipped unless the whole plane is NaN, as in MaxPool.
#include "ops/numeric.h"
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

class GlobalMaxPoolOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override { return infer_global_pool(ctx, kFloatTypes); }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_RETURN_IF_ERROR(check_global_pool_input(x));
    Shape out = {x.dim(0), x.dim(1)};
    out.resize(x.shape().size(), 1);
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t size = shape_numel(Shape(x.shape().begin() + 2, x.shape().end()));
    if (size == 0 && planes > 0)
      return error(StatusCode::kInvalidArgument, "input ", x.type_string(),
                   " has no spatial elements to take the maximum of");
    Tensor& y = ctx.output(0, x.dtype(), out);
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      for (int64_t p = 0; p < planes; ++p) {
        C best = static_cast<C>(px[p * size]);
        for (int64_t i = 1; i < size; ++i) {
          const C v = static_cast<C>(px[p * size + i]);
          if (v > best || (is_nan(best) && !is_nan(v))) best = v;
        }
        y.data<T>()[p] = static_cast<T>(best);
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(GlobalMaxPool, GlobalMaxPoolOp)

}  // namespace hi::ops
