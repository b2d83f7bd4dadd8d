// Cast between the low-precision types (float8 variants, float8e8m0, float4e2m1, int4/uint4,
// int2/uint2) and everything else. Not an op of its own: cast_into() hands these over.
//
// Every conversion goes through a standard type that holds the source values exactly:
// minifloats decode to float32 (all their values are float32 values), sub-byte integers are
// read as the int8/uint8 that holds them, strings parse to float32. From there a standard
// destination uses the ordinary Cast conversions, and a low-precision destination is encoded
// with core/low_precision.h (round to nearest even, 'saturate' and 'round_mode' honoured;
// integers truncate toward zero and wrap to 4 or 2 bits, like any integer narrowing).
#include <string>

#include "core/low_precision.h"
#include "ops/cast.h"
#include "ops/convert.h"

namespace hi::ops {
namespace {

bool is_sub_byte_int(DType t) {
  return t == DType::kInt4 || t == DType::kUInt4 || t == DType::kInt2 || t == DType::kUInt2;
}

// The source as a tensor of a standard type with the same values.
Result<Tensor> widen(const Tensor& x) {
  const DType t = x.dtype();
  if (is_sub_byte_int(t)) {  // a view: the bytes already hold the values
    const DType holder = (t == DType::kInt4 || t == DType::kInt2) ? DType::kInt8 : DType::kUInt8;
    return Tensor::wrap(holder, x.shape(), const_cast<void*>(x.raw()), x.storage());
  }
  Tensor f = Tensor::empty(DType::kFloat32, x.shape());
  if (dtype_is_minifloat(t)) {
    const uint8_t* src = x.data<uint8_t>();
    float* dst = f.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) dst[i] = low_precision_to_float(t, src[i]);
    return f;
  }
  HI_RETURN_IF_ERROR(cast_into(x, f));  // string (or any other type) to float32
  return f;
}

// One value of a standard type S into the low-precision type `to`.
template <typename S>
uint8_t encode(DType to, S v, const CastOptions& o) {
  if constexpr (std::is_integral_v<S> && !std::is_same_v<S, bool>) {
    // Integers narrow by wrapping the exact value (a double would lose int64's low bits).
    if (is_sub_byte_int(to)) {
      const int64_t w = static_cast<int64_t>(v);
      const bool is_signed = to == DType::kInt4 || to == DType::kInt2;
      return is_signed ? static_cast<uint8_t>(wrap_to_signed_bits(w, dtype_bits(to)))
                       : wrap_to_unsigned_bits(w, dtype_bits(to));
    }
  }
  return low_precision_from_double(to, convert_value<double>(v), o.saturate, o.round_mode);
}

}  // namespace

Status read_cast_options(InitContext& ctx, CastOptions* options) {
  options->saturate = ctx.get_int("saturate", 1) != 0;
  const std::string mode = ctx.get_string("round_mode", "up");
  if (mode == "up") options->round_mode = E8M0Rounding::kUp;
  else if (mode == "down") options->round_mode = E8M0Rounding::kDown;
  else if (mode == "nearest") options->round_mode = E8M0Rounding::kNearest;
  else
    return ctx.fail(StatusCode::kInvalidModel, "attribute 'round_mode' is '", mode, "', expected up, down or nearest");
  return ctx.status();
}

Status cast_low_precision(const Tensor& x, Tensor& out, const CastOptions& options) {
  Tensor src = x;
  if (dtype_is_low_precision(x.dtype()) || x.dtype() == DType::kString) {
    HI_ASSIGN_OR_RETURN(src, widen(x));
  }
  const DType to = out.dtype();
  if (!dtype_is_low_precision(to)) return cast_into(src, out, options);
  uint8_t* dst = out.data<uint8_t>();
  const int64_t n = src.numel();
  const bool known = dispatch<kAllTypes>(src.dtype(), [&]<typename S>() {
    const S* s = src.data<S>();
    for (int64_t i = 0; i < n; ++i) dst[i] = encode(to, s[i], options);
  });
  if (!known)
    return error(StatusCode::kUnsupported, "Cast from ", dtype_name(x.dtype()), " to ", dtype_name(to),
                 " is not supported");
  return Status::ok();
}

}  // namespace hi::ops
