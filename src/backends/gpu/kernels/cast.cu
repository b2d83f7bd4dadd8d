// Cast (see elementwise.h): one element per thread, with the CPU's conversions (ops/convert.h):
// float to integer truncates toward zero, saturates and maps NaN to 0; integer to integer wraps;
// anything to bool is "!= 0"; to float16 rounds once to nearest-even. One kernel per (from, to).
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

#include <limits>
#include <type_traits>

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
inline constexpr bool kIsFloat = std::is_same_v<T, float> || std::is_same_v<T, __half>;

// The integer range as host constants (numeric_limits' functions are host-only for nvcc).
template <typename D>
struct Range {
  static constexpr D lo = std::numeric_limits<D>::lowest();
  static constexpr D hi = std::numeric_limits<D>::max();
};

template <typename D>
__device__ __forceinline__ D saturate_to_int(float v) {
  if (v != v) return D(0);
  const double t = trunc(static_cast<double>(v));
  // lowest() and max() convert to double exactly, or (int64 max) rounded up to 2^63, itself out
  // of range: so >= and <= are right.
  if (t <= static_cast<double>(Range<D>::lo)) return Range<D>::lo;
  if (t >= static_cast<double>(Range<D>::hi)) return Range<D>::hi;
  return static_cast<D>(t);
}

template <typename D, typename S>
__device__ __forceinline__ D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (kIsFloat<S>) {
    const float f = load_f(&v, 0);
    if constexpr (std::is_same_v<D, bool>) return f != 0.f;
    else if constexpr (kIsFloat<D>) {
      D out;
      store_f(&out, 0, f);
      return out;
    } else {
      return saturate_to_int<D>(f);
    }
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (kIsFloat<D>) {
    D out;
    store_f(&out, 0, static_cast<float>(v));
    return out;
  } else {
    return static_cast<D>(v);  // integer (or bool) to integer: two's complement wrap
  }
}

template <typename S, typename D>
__global__ void cast_kernel(const S* __restrict__ x, D* __restrict__ y, int64_t n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = convert<D>(x[i]);
}

// Calls f(T{}) with T the storage type of `t`; false when the kernels have none.
template <typename F>
bool with_type(DType t, F&& f) {
  switch (t) {
    case DType::kFloat32: f(float{}); return true;
    case DType::kFloat16: f(__half{}); return true;
    case DType::kInt64: f(int64_t{}); return true;
    case DType::kInt32: f(int32_t{}); return true;
    case DType::kInt8: f(int8_t{}); return true;
    case DType::kUInt8: f(uint8_t{}); return true;
    case DType::kBool: f(bool{}); return true;
    default: return false;
  }
}

}  // namespace

bool cast_supports(DType t) {
  return with_type(t, [](auto) {});
}

Status cast(DType from, DType to, const void* x, void* y, int64_t n, Stream stream) {
  HI_RETURN_IF(n < 0, kInvalidArgument, "GPU Cast: element count must be >= 0, got ", n);
  HI_RETURN_IF(!cast_supports(from) || !cast_supports(to), kUnsupported, "GPU Cast: no kernel from ", dtype_name(from), " to ",
               dtype_name(to), " (float32, float16, int64, int32, int8, uint8, bool)");
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU Cast: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  with_type(from, [&](auto s_tag) {
    using S = decltype(s_tag);
    with_type(to, [&](auto d_tag) {
      using D = decltype(d_tag);
      cast_kernel<S, D><<<elementwise_blocks(n), kElementwiseBlock, 0, s>>>(static_cast<const S*>(x), static_cast<D*>(y), n);
    });
  });
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
