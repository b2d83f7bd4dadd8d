// LogSoftmax: x - max - log(sum(exp(x - max))) along the axis (see softmax_util.h for the axis).
#include "ops/softmax_util.h"

namespace hi::ops {
namespace {

struct LogSoftmaxFn {
  void operator()(std::vector<double>& row) const {
    double mx = -std::numeric_limits<double>::infinity();
    for (double v : row) mx = std::max(mx, v);
    double sum = 0;
    for (double v : row) sum += std::exp(v - mx);
    const double log_sum = std::log(sum);
    for (double& v : row) v = v - mx - log_sum;
  }
};

}  // namespace

HI_REGISTER_OP(LogSoftmax, SoftmaxLikeOp<LogSoftmaxFn>)

}  // namespace hi::ops
