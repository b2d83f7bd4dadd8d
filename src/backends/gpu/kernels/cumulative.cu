// CumSum / CumProd (see reduce.h): one thread per (outer, inner) line walks its n elements in
// order (or backwards), accumulating floats in double as the CPU op does, integers in their own
// type (wrapping, computed unsigned).
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/reduce.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// The accumulator: double for floats, the unsigned twin for integers (where wrapping is defined).
template <typename T, bool = std::is_integral_v<T>>
struct Acc {
  using type = double;
};
template <typename T>
struct Acc<T, true> {
  using type = std::make_unsigned_t<T>;
};

template <typename T>
__device__ __forceinline__ typename Acc<T>::type load_acc(const T* p, int64_t i) {
  if constexpr (std::is_integral_v<T>) return static_cast<typename Acc<T>::type>(p[i]);
  else return static_cast<double>(load_f(p, i));
}

template <typename T>
__device__ __forceinline__ void store_acc(T* p, int64_t i, typename Acc<T>::type v) {
  if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(v);
  else store_f(p, i, static_cast<float>(v));
}

template <typename T>
__global__ void cumulative_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t lines, int64_t n, int64_t inner,
                                  bool product, bool exclusive, bool reverse) {
  using A = typename Acc<T>::type;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines; line += stride) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    A acc = product ? A(1) : A(0);
    for (int64_t s = 0; s < n; ++s) {
      const int64_t off = base + (reverse ? n - 1 - s : s) * inner;
      const A v = load_acc(x, off);
      if (exclusive) store_acc(y, off, acc);
      acc = product ? acc * v : acc + v;
      if (!exclusive) store_acc(y, off, acc);
    }
  }
}

template <typename T>
void launch(const void* x, void* y, int64_t lines, int64_t n, int64_t inner, bool product, bool exclusive, bool reverse,
            cudaStream_t s) {
  launch_kernel<cumulative_kernel<T>>(elementwise_blocks(lines), kElementwiseBlock, 0, s, static_cast<const T*>(x),
                                      static_cast<T*>(y), lines, n, inner, product, exclusive, reverse);
}

}  // namespace

bool cumulative_supports(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kInt64 || t == DType::kInt32;
}

Status cumulative(const CumulativeOp& op, DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                  Stream stream) {
  HI_RETURN_IF(outer < 0 || n < 0 || inner < 0, kInvalidArgument, "GPU CumSum/CumProd: negative size");
  HI_RETURN_IF(!cumulative_supports(dtype), kUnsupported, "GPU CumSum/CumProd: no kernel for ", dtype_name(dtype));
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU CumSum/CumProd: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case DType::kFloat32: launch<float>(x, y, lines, n, inner, op.product, op.exclusive, op.reverse, s); break;
    case DType::kFloat16: launch<__half>(x, y, lines, n, inner, op.product, op.exclusive, op.reverse, s); break;
    case DType::kInt64: launch<int64_t>(x, y, lines, n, inner, op.product, op.exclusive, op.reverse, s); break;
    default: launch<int32_t>(x, y, lines, n, inner, op.product, op.exclusive, op.reverse, s); break;
  }
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
