// Tanh: elementwise tanh(x). The CPU backend runs float32 on its vector kernels (backends/cpu/ops/tanh.cc).
#pragma once

#include "ops/elementwise.h"

namespace hi::ops {

struct TanhFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(std::tanh(x));
  }
};

using TanhOp = UnaryOp<kFloatTypes, TanhFn>;

}  // namespace hi::ops
