// Softmax: exp(x - max) / sum(exp(x - max)) along the axis (see softmax_util.h for the axis).
#include "cpu/kernels.h"
#include "ops/softmax_util.h"

namespace hi::ops {
namespace {

struct SoftmaxFn {
  void operator()(std::vector<double>& row) const {
    double mx = -std::numeric_limits<double>::infinity();
    for (double v : row) mx = std::max(mx, v);
    double sum = 0;
    for (double& v : row) sum += (v = std::exp(v - mx));
    for (double& v : row) v /= sum;
  }
};

// float32 rows that are contiguous (the axis is the last dim, or opset < 13's 2-D view) take the
// fast row kernel; everything else the reference in double.
class SoftmaxOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_.parse(ctx);
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return axis_.infer(ctx); }
  // Y may be X's storage: the row kernel reads a row before writing it, and run_rows copies each
  // row out before writing it back.
  bool may_run_in_place(size_t out, size_t in) const override { return out == 0 && in == 0; }
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    int64_t outer = 0, n = 0, inner = 0;
    if (x.dtype() == DType::kFloat32 && axis_.layout(x.shape(), &outer, &n, &inner).is_ok() && inner == 1) {
      Tensor& y = ctx.output(0, x.dtype(), x.shape());
      cpu::softmax_rows(x.data<float>(), y.data<float>(), outer, n);
      return Status::ok();
    }
    return run_rows(ctx, axis_, SoftmaxFn{});
  }

 private:
  SoftmaxAxis axis_;
};

}  // namespace

HI_REGISTER_OP(Softmax, SoftmaxOp)

}  // namespace hi::ops
