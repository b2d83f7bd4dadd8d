// Calls a generic lambda with the C++ type for a DType: dispatch<kFloatTypes>(dtype, [&]<typename T>() {...}).
#pragma once

#include <cstdint>
#include <vector>

#include "hipinfer/dtype.h"
#include "hipinfer/tensor.h"

namespace hi::ops {

// Type sets, as bit masks over DType codes.
constexpr uint64_t bit(DType t) { return uint64_t{1} << static_cast<int>(t); }
constexpr uint64_t kFloatTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kFloat16) | bit(DType::kBFloat16);
constexpr uint64_t kSignedIntTypes = bit(DType::kInt8) | bit(DType::kInt16) | bit(DType::kInt32) | bit(DType::kInt64);
constexpr uint64_t kUnsignedIntTypes =
    bit(DType::kUInt8) | bit(DType::kUInt16) | bit(DType::kUInt32) | bit(DType::kUInt64);
constexpr uint64_t kIntTypes = kSignedIntTypes | kUnsignedIntTypes;
constexpr uint64_t kNumericTypes = kFloatTypes | kIntTypes;
constexpr uint64_t kSignedNumericTypes = kFloatTypes | kSignedIntTypes;
constexpr uint64_t kAllTypes = kNumericTypes | bit(DType::kBool);

constexpr bool in_set(uint64_t set, DType t) {
  return static_cast<int>(t) >= 0 && static_cast<int>(t) < 64 && (set & bit(t)) != 0;
}

// Returns false (and calls nothing) when dtype is not in Set.
template <uint64_t Set, typename F>
bool dispatch(DType dtype, F&& f) {
  if (!in_set(Set, dtype)) return false;
  switch (dtype) {
#define HI_DISPATCH_CASE(code, T)                                            \
  case DType::code:                                                          \
    if constexpr ((Set & bit(DType::code)) != 0) f.template operator()<T>(); \
    return true;
    HI_DISPATCH_CASE(kFloat32, float)
    HI_DISPATCH_CASE(kFloat64, double)
    HI_DISPATCH_CASE(kFloat16, Float16)
    HI_DISPATCH_CASE(kBFloat16, BFloat16)
    HI_DISPATCH_CASE(kInt8, int8_t)
    HI_DISPATCH_CASE(kInt16, int16_t)
    HI_DISPATCH_CASE(kInt32, int32_t)
    HI_DISPATCH_CASE(kInt64, int64_t)
    HI_DISPATCH_CASE(kUInt8, uint8_t)
    HI_DISPATCH_CASE(kUInt16, uint16_t)
    HI_DISPATCH_CASE(kUInt32, uint32_t)
    HI_DISPATCH_CASE(kUInt64, uint64_t)
    HI_DISPATCH_CASE(kBool, bool)
#undef HI_DISPATCH_CASE
    default: return false;
  }
}

// The type arithmetic happens in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
struct ComputeType {
  using type = T;
};
template <>
struct ComputeType<Float16> {
  using type = float;
};
template <>
struct ComputeType<BFloat16> {
  using type = float;
};
template <typename T>
using compute_t = typename ComputeType<T>::type;

// A tensor's elements, stored as T, converted to C (the type a reference kernel computes in).
template <typename T, typename C>
std::vector<C> to_compute(const Tensor& t) {
  std::vector<C> v(static_cast<size_t>(t.numel()));
  const T* p = t.data<T>();
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<C>(static_cast<compute_t<T>>(p[i]));
  return v;
}

}  // namespace hi::ops
