// HannWindow (opset 17): w[n] = sin^2(pi n / N) = 0.5 - 0.5 cos(2 pi n / N); see window_util.h.
#include "ops/window_util.h"

namespace hi::ops {
namespace {

struct HannFn {
  static double value(double phase) {
    const double s = std::sin(phase / 2);
    return s * s;
  }
};

}  // namespace

HI_REGISTER_OP(HannWindow, WindowOp<HannFn>)

}  // namespace hi::ops
