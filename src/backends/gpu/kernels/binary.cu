// Binary elementwise kernels with numpy broadcasting (see elementwise.h). Same-shape inputs take
// a flat loop; otherwise each output index is decomposed over the output dims (innermost first)
// into the two input offsets with the strides from make_broadcast_index().
#include <string>

// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <BinaryKind K>
__device__ __forceinline__ float apply(float a, float b) {
  if constexpr (K == BinaryKind::kAdd) return a + b;
  else if constexpr (K == BinaryKind::kSub) return a - b;
  else if constexpr (K == BinaryKind::kMul) return a * b;
  else if constexpr (K == BinaryKind::kDiv) return a / b;
  // ONNX Max/Min propagate NaN, like the CPU reference (std::max would drop a NaN in a).
  else if constexpr (K == BinaryKind::kMax) return (a != a || b != b) ? a + b : fmaxf(a, b);
  else if constexpr (K == BinaryKind::kMin) return (a != a || b != b) ? a + b : fminf(a, b);
  else return powf(a, b);
}

// The index is passed by value: a few hundred bytes of kernel parameters.
template <BinaryKind K, typename T>
__global__ void binary_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ y, BroadcastIndex index) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < index.numel; i += stride) {
    int64_t ai = i, bi = i;
    if (!index.same_shape) {
      ai = 0;
      bi = 0;
      int64_t rest = i;
      for (int d = index.rank - 1; d >= 0; --d) {
        const int64_t coord = rest % index.dims[d];
        rest /= index.dims[d];
        ai += coord * index.a_strides[d];
        bi += coord * index.b_strides[d];
      }
    }
    store_f(y, i, apply<K>(load_f(a, ai), load_f(b, bi)));
  }
}

template <typename T>
void dispatch(BinaryKind kind, const void* a, const void* b, void* y, const BroadcastIndex& index, cudaStream_t s) {
  const auto blocks = elementwise_blocks(index.numel);
  const T* pa = static_cast<const T*>(a);
  const T* pb = static_cast<const T*>(b);
  T* py = static_cast<T*>(y);
  switch (kind) {
#define HI_BINARY_CASE(K) \
  case BinaryKind::K: binary_kernel<BinaryKind::K, T><<<blocks, kElementwiseBlock, 0, s>>>(pa, pb, py, index); break;
    HI_BINARY_CASE(kAdd) HI_BINARY_CASE(kSub) HI_BINARY_CASE(kMul) HI_BINARY_CASE(kDiv)
    HI_BINARY_CASE(kMax) HI_BINARY_CASE(kMin) HI_BINARY_CASE(kPow)
#undef HI_BINARY_CASE
  }
}

}  // namespace

Result<BroadcastIndex> make_broadcast_index(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  HI_RETURN_IF(rank > static_cast<size_t>(kMaxBroadcastRank), kUnsupported, "GPU binary kernel: rank ", rank,
               " is above the kernels' ", kMaxBroadcastRank, " (shapes ", shape_to_string(a), " and ", shape_to_string(b), ")");
  BroadcastIndex index;
  index.rank = static_cast<int>(rank);
  index.same_shape = a == b;
  int64_t a_stride = 1, b_stride = 1;
  index.numel = 1;
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    const size_t d = rank - 1 - k;
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    HI_RETURN_IF(da != db && da != 1 && db != 1, kInvalidArgument, "shapes ", shape_to_string(a), " and ", shape_to_string(b),
                 " do not broadcast: dim ", d, " is ", da, " against ", db);
    const int64_t out = da == 1 ? db : da;
    index.dims[d] = out;
    index.a_strides[d] = da == 1 ? 0 : a_stride;
    index.b_strides[d] = db == 1 ? 0 : b_stride;
    a_stride *= da;
    b_stride *= db;
    index.numel *= out;
  }
  return index;
}

Status binary(BinaryKind kind, DType dtype, const void* a, const void* b, void* y, const BroadcastIndex& index,
              Stream stream) {
  if (index.numel == 0) return Status::ok();
  HI_RETURN_IF(a == nullptr || b == nullptr || y == nullptr, kInvalidArgument, "GPU binary kernel: null buffer for ",
               index.numel, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch<float>(kind, a, b, y, index, s);
  else if (dtype == DType::kFloat16) dispatch<__half>(kind, a, b, y, index, s);
  else return error(StatusCode::kUnsupported, "GPU binary kernel: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
