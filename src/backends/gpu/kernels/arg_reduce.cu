// ArgMax / ArgMin (see index_ops.h): one thread per (outer, inner) line, scanning from the first
// element as the CPU op does (a leading NaN stays the pick; later NaNs never win).
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/index_ops.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
__global__ void arg_reduce_kernel(const T* __restrict__ x, int64_t* __restrict__ y, int64_t lines, int64_t n,
                                  int64_t inner, bool max, bool last) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t line = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; line < lines; line += stride) {
    const int64_t base = (line / inner) * n * inner + line % inner;
    auto best = load_value(x, base);
    int64_t arg = 0;
    for (int64_t k = 1; k < n; ++k) {
      const auto v = load_value(x, base + k * inner);
      if ((max ? v > best : v < best) || (last && v == best)) {
        best = v;
        arg = k;
      }
    }
    y[line] = arg;
  }
}

template <typename T>
void launch(const void* x, int64_t* y, int64_t lines, int64_t n, int64_t inner, bool max, bool last, cudaStream_t s) {
  launch_kernel<arg_reduce_kernel<T>>(elementwise_blocks(lines), kElementwiseBlock, 0, s, static_cast<const T*>(x), y,
                                      lines, n, inner, max, last);
}

}  // namespace

bool arg_reduce_supports(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kInt64 || t == DType::kInt32;
}

Status arg_reduce(DType dtype, const void* x, int64_t* y, int64_t outer, int64_t n, int64_t inner, bool max,
                  bool select_last, Stream stream) {
  HI_RETURN_IF(outer < 0 || n < 1 || inner < 0, kInvalidArgument, "GPU ", max ? "ArgMax" : "ArgMin", ": dims ", outer,
               " x ", n, " x ", inner, " (the reduced one must be at least 1)");
  HI_RETURN_IF(!arg_reduce_supports(dtype), kUnsupported, "GPU ArgMax/ArgMin: no kernel for ", dtype_name(dtype));
  const int64_t lines = outer * inner;
  if (lines == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU ArgMax/ArgMin: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case DType::kFloat32: launch<float>(x, y, lines, n, inner, max, select_last, s); break;
    case DType::kFloat16: launch<__half>(x, y, lines, n, inner, max, select_last, s); break;
    case DType::kInt64: launch<int64_t>(x, y, lines, n, inner, max, select_last, s); break;
    default: launch<int32_t>(x, y, lines, n, inner, max, select_last, s); break;
  }
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
