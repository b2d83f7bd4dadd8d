// The conversion behind Cast and CastLike (see cast.cc for the rules on strings and ranges, and
// cast_low_precision.cc for the float8/float4/int4/int2 types).
#pragma once

#include "hipinfer/status.h"
#include "hipinfer/tensor.h"
#include "ops/op.h"

namespace hi::ops {

// The attributes that shape a conversion into the low-precision types (opset 19+ / 24+).
struct CastOptions {
  bool saturate = true;                         // float8 and float8e8m0 only
  E8M0Rounding round_mode = E8M0Rounding::kUp;  // float8e8m0 only
};

// Reads 'saturate' and 'round_mode' (both optional) for Cast and CastLike.
Status read_cast_options(InitContext& ctx, CastOptions* options);

// Whether Cast converts from or to this type (numbers, bool, float16/bfloat16, string, and the
// low-precision types).
bool cast_supported(DType t);
// Converts every element of `x` into `out`, which has x's shape and the target dtype.
Status cast_into(const Tensor& x, Tensor& out, const CastOptions& options = {});
// The part of cast_into for conversions where either side is a low-precision type.
Status cast_low_precision(const Tensor& x, Tensor& out, const CastOptions& options);

}  // namespace hi::ops
