// Softmax: exp(x - max) / sum(exp(x - max)) along the axis (see softmax_util.h for the axis).
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

}  // namespace

HI_REGISTER_OP(Softmax, SoftmaxLikeOp<SoftmaxFn>)

}  // namespace hi::ops
