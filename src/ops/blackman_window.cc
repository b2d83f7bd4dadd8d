// BlackmanWindow (opset 17): w[n] = 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N); see
// window_util.h.
#include "ops/window_util.h"

namespace hi::ops {
namespace {

struct BlackmanFn {
  static double value(double phase) { return 0.42 - 0.5 * std::cos(phase) + 0.08 * std::cos(2.0 * phase); }
};

}  // namespace

HI_REGISTER_OP(BlackmanWindow, WindowOp<BlackmanFn>)

}  // namespace hi::ops
