// ArgMin: the index of the smallest element along `axis` (first, or last with select_last_index).
#include "ops/reduce_util.h"

namespace hi::ops {
namespace {

struct Less {
  template <typename C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};

}  // namespace

HI_REGISTER_OP(ArgMin, ArgReduceOp<Less>)

}  // namespace hi::ops
