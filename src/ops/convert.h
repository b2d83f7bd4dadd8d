// Value conversions between element types (Cast, Pow, Pad's constant, ...), defined for every
// input: float to integer saturates and maps NaN to 0 (the ONNX spec leaves out-of-range
// conversions undefined; C++ makes them undefined behaviour, so we pick a defined result).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/dispatch.h"

namespace hi::ops {

template <typename T>
inline constexpr bool kIsFloatLike =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// A double converted to integer type D: truncated toward zero, saturated, NaN -> 0.
template <typename D>
D saturate_to_int(double v) {
  static_assert(std::is_integral_v<D> && !std::is_same_v<D, bool>);
  if (std::isnan(v)) return D(0);
  const double t = std::trunc(v);
  // lowest() and max() of every integer type convert to double either exactly or (int64/uint64
  // max) rounded up to 2^63 / 2^64, which is itself out of range; so >= and <= are right.
  if (t <= static_cast<double>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
  if (t >= static_cast<double>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
  return static_cast<D>(t);
}

// Converts one value of storage type S to storage type D, the way Cast does.
template <typename D, typename S>
D convert_value(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<D, bool>) {
    if constexpr (kIsFloatLike<S>) return static_cast<double>(static_cast<compute_t<S>>(v)) != 0.0;
    else return v != 0;
  } else if constexpr (std::is_same_v<D, Float16> || std::is_same_v<D, BFloat16>) {
    if constexpr (std::is_same_v<S, bool>) return D(v ? 1.f : 0.f);
    else return D(static_cast<float>(static_cast<compute_t<S>>(v)));
  } else if constexpr (std::is_floating_point_v<D>) {
    if constexpr (std::is_same_v<S, bool>) return v ? D(1) : D(0);
    else return static_cast<D>(static_cast<compute_t<S>>(v));
  } else {  // integer destination
    if constexpr (std::is_same_v<S, bool>) return v ? D(1) : D(0);
    else if constexpr (kIsFloatLike<S>) return saturate_to_int<D>(static_cast<double>(static_cast<compute_t<S>>(v)));
    else return static_cast<D>(v);  // integer to integer: two's complement wrap (C++20)
  }
}

}  // namespace hi::ops
