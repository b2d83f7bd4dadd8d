#include "ops/softmax.h"

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

}  // namespace

Status SoftmaxOp::init(InitContext& ctx) {
  axis_.parse(ctx);
  return ctx.status();
}

Status SoftmaxOp::run(RunContext& ctx) const { return run_rows(ctx, axis_, SoftmaxFn{}); }

HI_REGISTER_OP(Softmax, SoftmaxOp)

}  // namespace hi::ops
