// Arithmetic helpers for the reference kernels: integer arithmetic that wraps instead of
// overflowing (signed overflow is undefined behaviour), conversions that saturate instead of
// being undefined, and the extreme values of a type (infinities for floats).
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "hipinfer/dtype.h"
#include "ops/dispatch.h"

namespace hi::ops {

template <typename T>
inline constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>;

// a + b and a * b, modulo 2^bits for integers (as numpy and ONNX Runtime compute them).
template <typename A>
A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>)
    return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) + static_cast<std::make_unsigned_t<A>>(b));
  else return a + b;
}
template <typename A>
A wrap_sub(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>)
    return static_cast<A>(static_cast<std::make_unsigned_t<A>>(a) - static_cast<std::make_unsigned_t<A>>(b));
  else return a - b;
}
// Unsigned arithmetic of at least int's width: uint16_t operands would be promoted to (signed)
// int, where 65535 * 65535 overflows.
template <typename A>
using wrap_unsigned_t = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
template <typename A>
A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
    return static_cast<A>(static_cast<wrap_unsigned_t<A>>(static_cast<std::make_unsigned_t<A>>(a)) *
                          static_cast<wrap_unsigned_t<A>>(static_cast<std::make_unsigned_t<A>>(b)));
  else return a * b;
}
// |a|, wrapping for the most negative integer.
template <typename A>
A wrap_abs(A a) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>)
    return a < 0 ? static_cast<A>(std::make_unsigned_t<A>(0) - static_cast<std::make_unsigned_t<A>>(a)) : a;
  else if constexpr (std::is_unsigned_v<A>) return a;
  else return std::abs(a);
}

template <typename A>
bool is_nan(A a) {
  if constexpr (std::is_floating_point_v<A>) return std::isnan(a);
  else return false;
}

// The smallest and largest values of storage type T, as type A: -inf and +inf for floating T.
template <typename T, typename A>
A lowest_as() {
  if constexpr (kIsFloat<T>) return -std::numeric_limits<A>::infinity();
  else return static_cast<A>(std::numeric_limits<T>::lowest());
}
template <typename T, typename A>
A highest_as() {
  if constexpr (kIsFloat<T>) return std::numeric_limits<A>::infinity();
  else return static_cast<A>(std::numeric_limits<T>::max());
}

// Converts a compute value to storage type T: floats round, integers from floating values
// saturate (NaN becomes 0), integers from integers wrap, bool is "nonzero".
template <typename T, typename A>
T saturate_cast(A v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != A(0);
  } else if constexpr (kIsFloat<T>) {
    return static_cast<T>(static_cast<compute_t<T>>(v));
  } else if constexpr (std::is_floating_point_v<A>) {
    if (std::isnan(v)) return T(0);
    // 2^63 and 2^64 are exact doubles; the largest integers are not, so compare against them.
    if (v <= static_cast<A>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (v >= static_cast<A>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

}  // namespace hi::ops
