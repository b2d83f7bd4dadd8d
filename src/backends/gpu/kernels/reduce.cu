// Reductions (see reduce.h). Two shapes of work: when inner == 1 (the reduced axis is the last),
// one block per output strides over its contiguous row and meets in shared memory; otherwise
// one thread per output walks r with a stride of inner, so neighbouring threads read
// neighbouring addresses.
// clang-format off
#include "backends/gpu/kernels/row_reduce.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/reduce.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

// How each kind starts, takes an element and combines partial results; finish() maps the
// combined value (for Mean, L2, LogSum). LogSumExp runs as max, then this with the max known.
template <ReduceKind K>
struct Reducer {
  __device__ static float identity() {
    if constexpr (K == ReduceKind::kMax || K == ReduceKind::kLogSumExp) return -INFINITY;
    else if constexpr (K == ReduceKind::kMin) return INFINITY;
    else if constexpr (K == ReduceKind::kProd) return 1.f;
    else return 0.f;
  }
  __device__ static float take(float v, float shift) {
    if constexpr (K == ReduceKind::kSumSquare || K == ReduceKind::kL2) return v * v;
    else if constexpr (K == ReduceKind::kL1) return fabsf(v);
    else if constexpr (K == ReduceKind::kLogSumExp) return expf(v - shift);
    else return v;
  }
  __device__ static float combine(float a, float b) {
    if constexpr (K == ReduceKind::kMax) return (a != a || b != b) ? a + b : fmaxf(a, b);  // NaN propagates
    else if constexpr (K == ReduceKind::kMin) return (a != a || b != b) ? a + b : fminf(a, b);
    else if constexpr (K == ReduceKind::kProd) return a * b;
    else return a + b;
  }
  __device__ static float finish(float acc, int64_t r, float shift) {
    if constexpr (K == ReduceKind::kMean) return acc / static_cast<float>(r);
    else if constexpr (K == ReduceKind::kL2) return sqrtf(acc);
    else if constexpr (K == ReduceKind::kLogSum) return logf(acc);
    else if constexpr (K == ReduceKind::kLogSumExp) return r == 0 ? -INFINITY : logf(acc) + shift;
    else return acc;
  }
};

template <ReduceKind K>
struct CombineOp {
  __device__ float operator()(float a, float b) const { return Reducer<K>::combine(a, b); }
};

// inner == 1: one block per output row.
template <ReduceKind K, typename T>
__global__ void reduce_rows_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t r) {
  __shared__ float scratch[kRowBlock];
  const int64_t base = static_cast<int64_t>(blockIdx.x) * r;
  float shift = 0.f;
  if constexpr (K == ReduceKind::kLogSumExp) {
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < r; j += kRowBlock) m = fmaxf(m, load_f(x, base + j));
    shift = block_reduce(m, scratch, MaxOp{});
    if (shift == -INFINITY || shift == INFINITY) shift = 0.f;  // all -inf, or an inf: no shift
  }
  float acc = Reducer<K>::identity();
  if constexpr (K == ReduceKind::kLogSumExp) acc = 0.f;
  for (int64_t j = threadIdx.x; j < r; j += kRowBlock) acc = Reducer<K>::combine(acc, Reducer<K>::take(load_f(x, base + j), shift));
  if constexpr (K == ReduceKind::kLogSumExp) acc = block_reduce(acc, scratch, SumOp{});
  else acc = block_reduce(acc, scratch, CombineOp<K>{});
  if (threadIdx.x == 0) store_f(y, blockIdx.x, Reducer<K>::finish(acc, r, shift));
}

// inner > 1: one thread per output (o, i).
template <ReduceKind K, typename T>
__global__ void reduce_strided_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t r, int64_t inner) {
  const int64_t n = outer * inner;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride) {
    const int64_t o = e / inner, i = e % inner;
    const T* p = x + o * r * inner + i;
    float shift = 0.f;
    if constexpr (K == ReduceKind::kLogSumExp) {
      float m = -INFINITY;
      for (int64_t j = 0; j < r; ++j) m = fmaxf(m, load_f(p, j * inner));
      shift = (m == -INFINITY || m == INFINITY) ? 0.f : m;
    }
    float acc = K == ReduceKind::kLogSumExp ? 0.f : Reducer<K>::identity();
    for (int64_t j = 0; j < r; ++j) acc = Reducer<K>::combine(acc, Reducer<K>::take(load_f(p, j * inner), shift));
    store_f(y, e, Reducer<K>::finish(acc, r, shift));
  }
}

template <ReduceKind K, typename T>
void launch(const void* x, void* y, int64_t outer, int64_t r, int64_t inner, cudaStream_t s) {
  const T* px = static_cast<const T*>(x);
  T* py = static_cast<T*>(y);
  if (inner == 1) reduce_rows_kernel<K, T><<<static_cast<unsigned>(outer), kRowBlock, 0, s>>>(px, py, r);
  else reduce_strided_kernel<K, T><<<elementwise_blocks(outer * inner), kElementwiseBlock, 0, s>>>(px, py, outer, r, inner);
}

template <typename T>
void dispatch(ReduceKind kind, const void* x, void* y, int64_t outer, int64_t r, int64_t inner, cudaStream_t s) {
  switch (kind) {
#define HI_REDUCE_CASE(K) \
  case ReduceKind::K: launch<ReduceKind::K, T>(x, y, outer, r, inner, s); break;
    HI_REDUCE_CASE(kSum) HI_REDUCE_CASE(kMean) HI_REDUCE_CASE(kMax) HI_REDUCE_CASE(kMin) HI_REDUCE_CASE(kProd)
    HI_REDUCE_CASE(kSumSquare) HI_REDUCE_CASE(kL1) HI_REDUCE_CASE(kL2) HI_REDUCE_CASE(kLogSum) HI_REDUCE_CASE(kLogSumExp)
#undef HI_REDUCE_CASE
  }
}

}  // namespace

Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, int64_t outer, int64_t r, int64_t inner,
              Stream stream) {
  HI_RETURN_IF(outer < 0 || r < 0 || inner < 0, kInvalidArgument, "GPU reduce: negative extent (outer ", outer, ", r ", r,
               ", inner ", inner, ")");
  if (outer == 0 || inner == 0) return Status::ok();
  HI_RETURN_IF(inner == 1 && outer > 0x7fffffff, kUnsupported, "GPU reduce: ", outer, " rows is above the grid limit");
  HI_RETURN_IF((r > 0 && x == nullptr) || y == nullptr, kInvalidArgument, "GPU reduce: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch<float>(kind, x, y, outer, r, inner, s);
  else if (dtype == DType::kFloat16) dispatch<__half>(kind, x, y, outer, r, inner, s);
  else return error(StatusCode::kUnsupported, "GPU reduce: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
