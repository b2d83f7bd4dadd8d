// HammingWindow (opset 17): w[n] = alpha - beta cos(2 pi n / N) with alpha = 25/46 and
// beta = 1 - alpha (the spec's values); see window_util.h.
#include "ops/window_util.h"

namespace hi::ops {
namespace {

struct HammingFn {
  static double value(double phase) {
    constexpr double kAlpha = 25.0 / 46.0;
    return kAlpha - (1.0 - kAlpha) * std::cos(phase);
  }
};

}  // namespace

HI_REGISTER_OP(HammingWindow, WindowOp<HammingFn>)

}  // namespace hi::ops
