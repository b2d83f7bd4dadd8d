// Cast (see elementwise.h): one element per thread, with the CPU's conversions (kernels/convert.h
// and, for float16, through float32, rounding once to nearest-even). One kernel per (from, to).
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

#include <type_traits>

#include "backends/gpu/kernels/convert.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// float16 goes through float32 (exact), then the plain conversions (kernels/convert.h).
template <typename D, typename S>
__device__ __forceinline__ D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<S, __half>) {
    return convert<D>(__half2float(v));
  } else if constexpr (std::is_same_v<D, __half>) {
    return __float2half_rn(convert_plain<float>(v));
  } else {
    return convert_plain<D>(v);
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
  HI_RETURN_IF(!cast_supports(from) || !cast_supports(to), kUnsupported, "GPU Cast: no kernel from ", dtype_name(from),
               " to ", dtype_name(to), " (float32, float16, int64, int32, int8, uint8, bool)");
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU Cast: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  with_type(from, [&](auto s_tag) {
    using S = decltype(s_tag);
    with_type(to, [&](auto d_tag) {
      using D = decltype(d_tag);
      launch_kernel<cast_kernel<S, D>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const S*>(x),
                                       static_cast<D*>(y), n);
    });
  });
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
