// The conversion behind Cast and CastLike (see cast.cc for the rules on strings and ranges).
#pragma once

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"

namespace hi::ops {

// Whether Cast converts from or to this type (numbers, bool, float16/bfloat16, string).
bool cast_supported(DType t);
// Converts every element of `x` into `out`, which has x's shape and the target dtype.
Status cast_into(const Tensor& x, Tensor& out);

}  // namespace hi::ops
