// LpPool: (sum of |x|^p over each window)^(1/p); padding contributes nothing.
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

class LpPoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    HI_RETURN_IF_ERROR(parse_pool_window(ctx, &window_));
    p_ = ctx.get_float("p", 2.f);  // a float before opset 2, an int after
    if (!(p_ > 0)) return ctx.fail(StatusCode::kInvalidModel, "p must be positive, got ", p_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_ASSIGN_OR_RETURN(std::vector<ir::Dim> dims, infer_pool_dims(ctx, window_, kFloatTypes));
    ctx.set_output_type(0, ir::ValueType::tensor(ctx.input_type(0).dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(PoolWindows g, make_pool_windows(window_, x.shape(), false, StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), g.out_shape);
    const int64_t in_size = g.in_size(), out_size = g.out_size();
    const double p = p_;
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for_each_window(g, [&](int64_t pos, const std::vector<int64_t>& taps, int64_t) {
        for (int64_t pl = 0; pl < g.planes; ++pl) {
          double sum = 0;
          for (int64_t t : taps) sum += std::pow(std::abs(static_cast<double>(px[pl * in_size + t])), p);
          py[pl * out_size + pos] = static_cast<T>(std::pow(sum, 1.0 / p));
        }
      });
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  WindowParams window_;
  float p_ = 2;
};

}  // namespace

HI_REGISTER_OP(LpPool, LpPoolOp)

}  // namespace hi::ops
