// AveragePool: the mean of each window's input elements; with count_include_pad the divisor
// also counts the window's taps on padding (see pool_util.h for which ones).
#include "ops/pool_util.h"

namespace hi::ops {
namespace {

class AveragePoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    HI_RETURN_IF_ERROR(parse_pool_window(ctx, &window_));
    count_include_pad_ = ctx.get_int("count_include_pad", 0) != 0;
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
    HI_ASSIGN_OR_RETURN(PoolWindows g,
                        make_pool_windows(window_, x.shape(), !count_include_pad_, StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, x.dtype(), g.out_shape);
    const int64_t in_size = g.in_size(), out_size = g.out_size();
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for_each_window(g, [&](int64_t pos, const std::vector<int64_t>& taps, int64_t padded) {
        const double divisor = static_cast<double>(count_include_pad_ ? padded : static_cast<int64_t>(taps.size()));
        for (int64_t p = 0; p < g.planes; ++p) {
          double sum = 0;
          for (int64_t t : taps) sum += static_cast<double>(px[p * in_size + t]);
          py[p * out_size + pos] = static_cast<T>(sum / divisor);
        }
      });
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  WindowParams window_;
  bool count_include_pad_ = false;
};

}  // namespace

HI_REGISTER_OP(AveragePool, AveragePoolOp)

}  // namespace hi::ops
