// Sigmoid: elementwise 1 / (1 + exp(-x)). The CPU backend runs float32 on its vector kernels
// (backends/cpu/ops/sigmoid.cc).
#pragma once

#include "ops/elementwise.h"

namespace hi::ops {

struct SigmoidFn {
  template <typename T>
  T operator()(T x) const {
    return static_cast<T>(T(1) / (T(1) + std::exp(-x)));
  }
};

using SigmoidOp = UnaryOp<kFloatTypes, SigmoidFn>;

}  // namespace hi::ops
