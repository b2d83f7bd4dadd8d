// Cast's conversions that do not involve float16, written once for the device and the host
// (host_device.h), so the tests check them against the CPU's (ops/convert.h) in every build:
// float to integer truncates toward zero, saturates and maps NaN to 0; integer to integer wraps;
// anything to bool is "!= 0".
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "backends/gpu/kernels/host_device.h"

namespace hi::gpu {

// The integer range as constants (numeric_limits' functions are host-only for nvcc).
template <typename D>
struct IntRange {
  static constexpr D lo = std::numeric_limits<D>::lowest();
  static constexpr D hi = std::numeric_limits<D>::max();
};

template <typename D>
HI_HOST_DEVICE inline D saturate_to_int(float v) {
  if (v != v) return D(0);
  const double t = trunc(static_cast<double>(v));
  // lo and hi convert to double exactly, or (int64's hi) rounded up to 2^63, itself out of range:
  // so <= and >= are right.
  if (t <= static_cast<double>(IntRange<D>::lo)) return IntRange<D>::lo;
  if (t >= static_cast<double>(IntRange<D>::hi)) return IntRange<D>::hi;
  return static_cast<D>(t);
}

// S, D: float, bool or an integer type.
template <typename D, typename S>
HI_HOST_DEVICE inline D convert_plain(S v) {
  if constexpr (std::is_same_v<D, S>) return v;
  else if constexpr (std::is_same_v<D, bool>) return v != S(0);
  else if constexpr (std::is_same_v<S, float> && !std::is_same_v<D, float>) return saturate_to_int<D>(v);
  else return static_cast<D>(v);  // to float, or integer (bool) to integer: two's complement wrap
}

}  // namespace hi::gpu
