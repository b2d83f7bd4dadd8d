// Binary elementwise kernels with numpy broadcasting (see elementwise.h). Same-shape inputs take
// a flat loop; otherwise each output index is decomposed over the output dims (innermost first)
// into the two input offsets with the strides from make_broadcast_index().
#include <string>
#include <type_traits>

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
  else if constexpr (K == BinaryKind::kPRelu) return a < 0.f ? a * b : a;
  else if constexpr (K == BinaryKind::kFmod) return fmodf(a, b);
  else return powf(a, b);
}

// Integers: Add, Sub and Mul wrap (computed unsigned, where overflow is defined).
template <BinaryKind K, typename T>
__device__ __forceinline__ T apply_int(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if constexpr (K == BinaryKind::kAdd) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  else if constexpr (K == BinaryKind::kSub) return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
  else if constexpr (K == BinaryKind::kMul) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  else if constexpr (K == BinaryKind::kMax) return a > b ? a : b;
  else return a < b ? a : b;  // kMin
}

template <BinaryKind K, typename T>
__device__ __forceinline__ void apply_at(const T* a, const T* b, T* y, int64_t i, int64_t ai, int64_t bi) {
  if constexpr (std::is_integral_v<T>) y[i] = apply_int<K>(a[ai], b[bi]);
  else store_f(y, i, apply<K>(load_f(a, ai), load_f(b, bi)));
}

// The index is passed by value: a few hundred bytes of kernel parameters. a and y may be one
// buffer (each element is read before its own index is written), so neither is __restrict__.
template <BinaryKind K, typename T>
__global__ void binary_kernel(const T* a, const T* __restrict__ b, T* y, BroadcastIndex index) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < index.numel; i += stride) {
    int64_t ai, bi;
    broadcast_offsets(index, i, &ai, &bi);
    apply_at<K>(a, b, y, i, ai, bi);
  }
}

template <BinaryKind K, typename T>
void launch(const void* a, const void* b, void* y, const BroadcastIndex& index, cudaStream_t s) {
  launch_kernel<binary_kernel<K, T>>(elementwise_blocks(index.numel), kElementwiseBlock, 0, s, static_cast<const T*>(a),
                                     static_cast<const T*>(b), static_cast<T*>(y), index);
}

template <typename T>
void dispatch_float(BinaryKind kind, const void* a, const void* b, void* y, const BroadcastIndex& index,
                    cudaStream_t s) {
  switch (kind) {
// clang-format off
#define HI_BINARY_CASE(K) \
  case BinaryKind::K: launch<BinaryKind::K, T>(a, b, y, index, s); break;
    HI_BINARY_CASE(kAdd) HI_BINARY_CASE(kSub) HI_BINARY_CASE(kMul) HI_BINARY_CASE(kDiv)
    HI_BINARY_CASE(kMax) HI_BINARY_CASE(kMin) HI_BINARY_CASE(kPow) HI_BINARY_CASE(kPRelu) HI_BINARY_CASE(kFmod)
#undef HI_BINARY_CASE
    // clang-format on
  }
}

// false for the kinds integers have no kernel for.
template <typename T>
bool dispatch_int(BinaryKind kind, const void* a, const void* b, void* y, const BroadcastIndex& index, cudaStream_t s) {
  switch (kind) {
    case BinaryKind::kAdd: launch<BinaryKind::kAdd, T>(a, b, y, index, s); return true;
    case BinaryKind::kSub: launch<BinaryKind::kSub, T>(a, b, y, index, s); return true;
    case BinaryKind::kMul: launch<BinaryKind::kMul, T>(a, b, y, index, s); return true;
    case BinaryKind::kMax: launch<BinaryKind::kMax, T>(a, b, y, index, s); return true;
    case BinaryKind::kMin: launch<BinaryKind::kMin, T>(a, b, y, index, s); return true;
    default: return false;
  }
}

}  // namespace

Result<BroadcastIndex> make_broadcast_index(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    HI_RETURN_IF(da != db && da != 1 && db != 1, kInvalidArgument, "shapes ", shape_to_string(a), " and ",
                 shape_to_string(b), " do not broadcast: dim ", rank - 1 - k, " is ", da, " against ", db);
    out[rank - 1 - k] = da == 1 ? db : da;
  }
  return make_broadcast_index_to(out, a, b);
}

Result<BroadcastIndex> make_broadcast_index_to(const Shape& out, const Shape& a, const Shape& b) {
  const size_t rank = out.size();
  HI_RETURN_IF(rank > static_cast<size_t>(kMaxBroadcastRank), kUnsupported, "GPU binary kernel: rank ", rank,
               " is above the kernels' ", kMaxBroadcastRank, " (shapes ", shape_to_string(a), " and ",
               shape_to_string(b), ")");
  HI_RETURN_IF(a.size() > rank || b.size() > rank, kInvalidArgument, "shapes ", shape_to_string(a), " and ",
               shape_to_string(b), " do not broadcast to ", shape_to_string(out));
  BroadcastIndex index;
  index.rank = static_cast<int>(rank);
  index.same_shape = a == out && b == out;
  int64_t a_stride = 1, b_stride = 1;
  index.numel = 1;
  for (size_t k = 0; k < rank; ++k) {  // k counts from the innermost dim
    const size_t d = rank - 1 - k;
    const int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    HI_RETURN_IF((da != out[d] && da != 1) || (db != out[d] && db != 1), kInvalidArgument, "shapes ",
                 shape_to_string(a), " and ", shape_to_string(b), " do not broadcast to ", shape_to_string(out),
                 ": dim ", d, " is ", da, " and ", db, " against ", out[d]);
    index.dims[d] = out[d];
    index.a_strides[d] = da == 1 ? 0 : a_stride;
    index.b_strides[d] = db == 1 ? 0 : b_stride;
    a_stride *= da;
    b_stride *= db;
    index.numel *= out[d];
  }
  return index;
}

Status binary(BinaryKind kind, DType dtype, const void* a, const void* b, void* y, const BroadcastIndex& index,
              Stream stream) {
  if (index.numel == 0) return Status::ok();
  HI_RETURN_IF(a == nullptr || b == nullptr || y == nullptr, kInvalidArgument, "GPU binary kernel: null buffer for ",
               index.numel, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  bool launched = true;
  if (dtype == DType::kFloat32) dispatch_float<float>(kind, a, b, y, index, s);
  else if (dtype == DType::kFloat16) dispatch_float<__half>(kind, a, b, y, index, s);
  else if (dtype == DType::kInt64) launched = dispatch_int<int64_t>(kind, a, b, y, index, s);
  else if (dtype == DType::kInt32) launched = dispatch_int<int32_t>(kind, a, b, y, index, s);
  else launched = false;
  HI_RETURN_IF(!launched, kUnsupported, "GPU binary kernel: no kernel for this op on ", dtype_name(dtype),
               " (float32, float16; int32 and int64 for Add, Sub, Mul, Max, Min)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
