// ArgMax: the index of the largest element along `axis` (first, or last with select_last_index).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct Greater {
  template <typename C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};

}  // namespace

HI_REGISTER_OP(ArgMax, ArgReduceOp<Greater>)

}  // namespace hi::ops
