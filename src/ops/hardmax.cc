// Hardmax: 1 at the first maximum of each row along the axis, 0 elsewhere (see softmax_util.h).
#include "ops/softmax_util.h"

namespace hi::ops {
namespace {

struct HardmaxFn {
  void operator()(std::vector<double>& row) const {
    size_t best = 0;
    for (size_t j = 1; j < row.size(); ++j)
      if (row[j] > row[best]) best = j;
    for (size_t j = 0; j < row.size(); ++j) row[j] = j == best ? 1.0 : 0.0;
  }
};

}  // namespace

HI_REGISTER_OP(Hardmax, SoftmaxLikeOp<HardmaxFn>)

}  // namespace hi::ops
