// GlobalLpPool: (sum of |x|^p over all spatial dims)^(1/p) per (N, C) plane, kept as size 1.
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

class GlobalLpPoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    p_ = ctx.get_float("p", 2.f);  // a float before opset 2, an int after
    if (!(p_ > 0)) return ctx.fail(StatusCode::kInvalidModel, "p must be positive, got ", p_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override { return infer_global_pool(ctx, kFloatTypes); }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_RETURN_IF_ERROR(check_global_pool_input(x));
    Shape out = {x.dim(0), x.dim(1)};
    out.resize(x.shape().size(), 1);
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t size = shape_numel(Shape(x.shape().begin() + 2, x.shape().end()));
    Tensor& y = ctx.output(0, x.dtype(), out);
    const double p = p_;
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      for (int64_t pl = 0; pl < planes; ++pl) {
        double sum = 0;
        for (int64_t i = 0; i < size; ++i) sum += std::pow(std::abs(static_cast<double>(px[pl * size + i])), p);
        y.data<T>()[pl] = static_cast<T>(std::pow(sum, 1.0 / p));
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  float p_ = 2;
};

}  // namespace

HI_REGISTER_OP(GlobalLpPool, GlobalLpPoolOp)

}  // namespace hi::ops
