// Reductions (see reduce.h). Two shapes of work: when inner == 1 (the reduced axis is the last),
// one block per output strides over its contiguous row and meets in shared memory; otherwise
// one thread per output walks r with a stride of inner, so neighbouring threads read
// neighbouring addresses.
// clang-format off
#include "backends/gpu/kernels/row_reduce.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/reduce.h"
// clang-format on

#include <algorithm>
#include <vector>

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
  for (int64_t j = threadIdx.x; j < r; j += kRowBlock)
    acc = Reducer<K>::combine(acc, Reducer<K>::take(load_f(x, base + j), shift));
  if constexpr (K == ReduceKind::kLogSumExp) acc = block_reduce(acc, scratch, SumOp{});
  else acc = block_reduce(acc, scratch, CombineOp<K>{});
  if (threadIdx.x == 0) store_f(y, blockIdx.x, Reducer<K>::finish(acc, r, shift));
}

// inner > 1: one thread per output (o, i).
template <ReduceKind K, typename T>
__global__ void reduce_strided_kernel(const T* __restrict__ x, T* __restrict__ y, int64_t outer, int64_t r,
                                      int64_t inner) {
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

// A plan's reduced element j of output o: x's offset, from o's base offset and j decomposed over
// the reduced dims (innermost first).
__device__ __forceinline__ int64_t reduced_offset(const ReducePlan& p, int64_t base, int64_t j) {
  for (int k = p.reduced_rank - 1; k >= 0; --k) {
    base += (j % p.reduced_dims[k]) * p.reduced_strides[k];
    j /= p.reduced_dims[k];
  }
  return base;
}
__device__ __forceinline__ int64_t kept_offset(const ReducePlan& p, int64_t o) {
  int64_t base = 0;
  for (int k = p.kept_rank - 1; k >= 0; --k) {
    base += (o % p.kept_dims[k]) * p.kept_strides[k];
    o /= p.kept_dims[k];
  }
  return base;
}

// Reduced dims that are not one run, long reductions: one block per output (grid-stride over
// the outputs), threads striding over its reduced elements.
template <ReduceKind K, typename T>
__global__ void reduce_plan_block_kernel(const T* __restrict__ x, T* __restrict__ y, ReducePlan p, int64_t n_out,
                                         int64_t r) {
  __shared__ float scratch[kRowBlock];
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const int64_t base = kept_offset(p, o);
    float shift = 0.f;
    if constexpr (K == ReduceKind::kLogSumExp) {
      float m = -INFINITY;
      for (int64_t j = threadIdx.x; j < r; j += kRowBlock) m = fmaxf(m, load_f(x, reduced_offset(p, base, j)));
      shift = block_reduce(m, scratch, MaxOp{});
      if (shift == -INFINITY || shift == INFINITY) shift = 0.f;
    }
    float acc = K == ReduceKind::kLogSumExp ? 0.f : Reducer<K>::identity();
    for (int64_t j = threadIdx.x; j < r; j += kRowBlock)
      acc = Reducer<K>::combine(acc, Reducer<K>::take(load_f(x, reduced_offset(p, base, j)), shift));
    if constexpr (K == ReduceKind::kLogSumExp) acc = block_reduce(acc, scratch, SumOp{});
    else acc = block_reduce(acc, scratch, CombineOp<K>{});
    if (threadIdx.x == 0) store_f(y, o, Reducer<K>::finish(acc, r, shift));
  }
}

// Short ones: one thread per output.
template <ReduceKind K, typename T>
__global__ void reduce_plan_thread_kernel(const T* __restrict__ x, T* __restrict__ y, ReducePlan p, int64_t n_out,
                                          int64_t r) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t o = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < n_out; o += stride) {
    const int64_t base = kept_offset(p, o);
    float shift = 0.f;
    if constexpr (K == ReduceKind::kLogSumExp) {
      float m = -INFINITY;
      for (int64_t j = 0; j < r; ++j) m = fmaxf(m, load_f(x, reduced_offset(p, base, j)));
      shift = (m == -INFINITY || m == INFINITY) ? 0.f : m;
    }
    float acc = K == ReduceKind::kLogSumExp ? 0.f : Reducer<K>::identity();
    for (int64_t j = 0; j < r; ++j)
      acc = Reducer<K>::combine(acc, Reducer<K>::take(load_f(x, reduced_offset(p, base, j)), shift));
    store_f(y, o, Reducer<K>::finish(acc, r, shift));
  }
}

template <ReduceKind K, typename T>
void launch_plan(const void* x, void* y, const ReducePlan& p, cudaStream_t s) {
  const T* px = static_cast<const T*>(x);
  T* py = static_cast<T*>(y);
  const int64_t n_out = p.outputs(), r = p.reduced();
  if (r >= kRowBlock)
    launch_kernel<reduce_plan_block_kernel<K, T>>(static_cast<unsigned>(std::min<int64_t>(n_out, 65535)), kRowBlock, 0,
                                                  s, px, py, p, n_out, r);
  else
    launch_kernel<reduce_plan_thread_kernel<K, T>>(elementwise_blocks(n_out), kElementwiseBlock, 0, s, px, py, p, n_out,
                                                   r);
}

template <ReduceKind K, typename T>
void launch(const void* x, void* y, int64_t outer, int64_t r, int64_t inner, cudaStream_t s) {
  const T* px = static_cast<const T*>(x);
  T* py = static_cast<T*>(y);
  if (inner == 1) launch_kernel<reduce_rows_kernel<K, T>>(static_cast<unsigned>(outer), kRowBlock, 0, s, px, py, r);
  else
    launch_kernel<reduce_strided_kernel<K, T>>(elementwise_blocks(outer * inner), kElementwiseBlock, 0, s, px, py,
                                               outer, r, inner);
}

template <typename T>
void dispatch(ReduceKind kind, const void* x, void* y, int64_t outer, int64_t r, int64_t inner, cudaStream_t s) {
  switch (kind) {
// clang-format off
#define HI_REDUCE_CASE(K) \
  case ReduceKind::K: launch<ReduceKind::K, T>(x, y, outer, r, inner, s); break;
    HI_REDUCE_CASE(kSum) HI_REDUCE_CASE(kMean) HI_REDUCE_CASE(kMax) HI_REDUCE_CASE(kMin) HI_REDUCE_CASE(kProd)
    HI_REDUCE_CASE(kSumSquare) HI_REDUCE_CASE(kL1) HI_REDUCE_CASE(kL2) HI_REDUCE_CASE(kLogSum) HI_REDUCE_CASE(kLogSumExp)
#undef HI_REDUCE_CASE
    // clang-format on
  }
}

template <typename T>
void dispatch_plan(ReduceKind kind, const void* x, void* y, const ReducePlan& p, cudaStream_t s) {
  switch (kind) {
// clang-format off
#define HI_REDUCE_CASE(K) \
  case ReduceKind::K: launch_plan<ReduceKind::K, T>(x, y, p, s); break;
    HI_REDUCE_CASE(kSum) HI_REDUCE_CASE(kMean) HI_REDUCE_CASE(kMax) HI_REDUCE_CASE(kMin) HI_REDUCE_CASE(kProd)
    HI_REDUCE_CASE(kSumSquare) HI_REDUCE_CASE(kL1) HI_REDUCE_CASE(kL2) HI_REDUCE_CASE(kLogSum) HI_REDUCE_CASE(kLogSumExp)
#undef HI_REDUCE_CASE
    // clang-format on
  }
}

}  // namespace

Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, int64_t outer, int64_t r, int64_t inner,
              Stream stream) {
  HI_RETURN_IF(outer < 0 || r < 0 || inner < 0, kInvalidArgument, "GPU reduce: negative extent (outer ", outer, ", r ",
               r, ", inner ", inner, ")");
  if (outer == 0 || inner == 0) return Status::ok();
  HI_RETURN_IF(inner == 1 && outer > 0x7fffffff, kUnsupported, "GPU reduce: ", outer, " rows is above the grid limit");
  HI_RETURN_IF((r > 0 && x == nullptr) || y == nullptr, kInvalidArgument, "GPU reduce: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch<float>(kind, x, y, outer, r, inner, s);
  else if (dtype == DType::kFloat16) dispatch<__half>(kind, x, y, outer, r, inner, s);
  else return error(StatusCode::kUnsupported, "GPU reduce: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

int64_t ReducePlan::outputs() const {
  if (contiguous) return outer * inner;
  int64_t n = 1;
  for (int k = 0; k < kept_rank; ++k) n *= kept_dims[k];
  return n;
}

int64_t ReducePlan::reduced() const {
  if (contiguous) return r;
  int64_t n = 1;
  for (int k = 0; k < reduced_rank; ++k) n *= reduced_dims[k];
  return n;
}

Result<ReducePlan> plan_reduce(const Shape& x, const std::vector<bool>& mask) {
  HI_RETURN_IF(mask.size() != x.size(), kInvalidArgument, "GPU reduce: a mask of ", mask.size(), " dims for ",
               shape_to_string(x));
  HI_RETURN_IF(x.size() > static_cast<size_t>(kMaxReduceRank), kUnsupported, "GPU reduce: rank ", x.size(),
               " is above ", kMaxReduceRank);
  ReducePlan p;
  int64_t kept = 1, reduced = 1;
  for (size_t d = 0; d < x.size(); ++d) (mask[d] ? reduced : kept) *= x[d];
  if (kept == 0 || reduced == 0 || reduced == 1) {  // nothing to walk: every output alone, or empty
    p.outer = 1;
    p.r = reduced;
    p.inner = kept;
    return p;
  }
  // Groups of neighbouring dims of one kind, dims of 1 dropped (they change no offset).
  struct Group {
    bool reduced;
    int64_t dim, stride;
  };
  std::vector<Group> groups;
  int64_t stride = 1;
  for (size_t d = x.size(); d-- > 0;) {
    if (x[d] != 1) {
      if (!groups.empty() && groups.back().reduced == mask[d] && groups.back().stride * groups.back().dim == stride)
        groups.back().dim *= x[d];
      else groups.push_back({mask[d], x[d], stride});
    }
    stride *= x[d];
  }
  std::reverse(groups.begin(), groups.end());
  int runs = 0;
  for (size_t g = 0; g < groups.size(); ++g) runs += groups[g].reduced && (g == 0 || !groups[g - 1].reduced);
  if (runs == 1) {  // [outer, r, inner]
    bool seen = false;
    for (const Group& g : groups) {
      if (g.reduced) seen = true, p.r = g.dim;
      else (seen ? p.inner : p.outer) *= g.dim;
    }
    return p;
  }
  p.contiguous = false;
  for (const Group& g : groups) {
    if (g.reduced) {
      p.reduced_dims[p.reduced_rank] = g.dim;
      p.reduced_strides[p.reduced_rank++] = g.stride;
    } else {
      p.kept_dims[p.kept_rank] = g.dim;
      p.kept_strides[p.kept_rank++] = g.stride;
    }
  }
  return p;
}

Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, const ReducePlan& p, Stream stream) {
  if (p.contiguous) return reduce(kind, dtype, x, y, p.outer, p.r, p.inner, stream);
  if (p.outputs() == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU reduce: null buffer");
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) dispatch_plan<float>(kind, x, y, p, s);
  else if (dtype == DType::kFloat16) dispatch_plan<__half>(kind, x, y, p, s);
  else return error(StatusCode::kUnsupported, "GPU reduce: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
