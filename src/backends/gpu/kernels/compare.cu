// Comparisons, logic and one-element tests (see elementwise.h): bool results, one element per
// thread; broadcast offsets as in the binary kernels. Comparisons of float16 go through float32,
// which is exact.
// clang-format off
#include "backends/gpu/kernels/elementwise_util.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/elementwise.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <CompareKind K, typename V>
__device__ __forceinline__ bool apply(V a, V b) {
  if constexpr (K == CompareKind::kEqual) return a == b;
  else if constexpr (K == CompareKind::kLess) return a < b;
  else if constexpr (K == CompareKind::kGreater) return a > b;
  else if constexpr (K == CompareKind::kLessOrEqual) return a <= b;
  else if constexpr (K == CompareKind::kGreaterOrEqual) return a >= b;
  else if constexpr (K == CompareKind::kAnd) return a && b;
  else if constexpr (K == CompareKind::kOr) return a || b;
  else return a != b;  // kXor, on bool
}

template <CompareKind K, typename T>
__global__ void compare_kernel(const T* __restrict__ a, const T* __restrict__ b, bool* __restrict__ y,
                               BroadcastIndex index) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < index.numel; i += stride) {
    int64_t ai, bi;
    broadcast_offsets(index, i, &ai, &bi);
    y[i] = apply<K>(load_value(a, ai), load_value(b, bi));
  }
}

template <CompareKind K, typename T>
void launch(const void* a, const void* b, bool* y, const BroadcastIndex& index, cudaStream_t s) {
  launch_kernel<compare_kernel<K, T>>(elementwise_blocks(index.numel), kElementwiseBlock, 0, s,
                                      static_cast<const T*>(a), static_cast<const T*>(b), y, index);
}

template <typename T>
void dispatch(CompareKind kind, const void* a, const void* b, bool* y, const BroadcastIndex& index, cudaStream_t s) {
  switch (kind) {
    case CompareKind::kEqual: launch<CompareKind::kEqual, T>(a, b, y, index, s); break;
    case CompareKind::kLess: launch<CompareKind::kLess, T>(a, b, y, index, s); break;
    case CompareKind::kGreater: launch<CompareKind::kGreater, T>(a, b, y, index, s); break;
    case CompareKind::kLessOrEqual: launch<CompareKind::kLessOrEqual, T>(a, b, y, index, s); break;
    case CompareKind::kGreaterOrEqual: launch<CompareKind::kGreaterOrEqual, T>(a, b, y, index, s); break;
    default: break;  // the logical kinds: bool only (compare_supports)
  }
}

void dispatch_logic(CompareKind kind, const void* a, const void* b, bool* y, const BroadcastIndex& index,
                    cudaStream_t s) {
  switch (kind) {
    case CompareKind::kAnd: launch<CompareKind::kAnd, bool>(a, b, y, index, s); break;
    case CompareKind::kOr: launch<CompareKind::kOr, bool>(a, b, y, index, s); break;
    case CompareKind::kXor: launch<CompareKind::kXor, bool>(a, b, y, index, s); break;
    default: launch<CompareKind::kEqual, bool>(a, b, y, index, s); break;  // Equal on bool
  }
}

template <PredicateKind K, typename T>
__global__ void predicate_kernel(const T* __restrict__ x, bool* __restrict__ y, int64_t n, bool pos, bool neg) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if constexpr (K == PredicateKind::kNot) {
      y[i] = !x[i];
    } else {
      const float v = load_f(x, i);
      if constexpr (K == PredicateKind::kIsNaN) y[i] = v != v;
      else y[i] = (pos && v == INFINITY) || (neg && v == -INFINITY);
    }
  }
}

template <PredicateKind K, typename T>
void launch_predicate(const PredicateOp& op, const void* x, bool* y, int64_t n, cudaStream_t s) {
  launch_kernel<predicate_kernel<K, T>>(elementwise_blocks(n), kElementwiseBlock, 0, s, static_cast<const T*>(x), y, n,
                                        op.detect_positive, op.detect_negative);
}

}  // namespace

bool compare_supports(CompareKind kind, DType dtype) {
  switch (kind) {
    case CompareKind::kAnd:
    case CompareKind::kOr:
    case CompareKind::kXor: return dtype == DType::kBool;
    case CompareKind::kEqual:
      if (dtype == DType::kBool) return true;
      [[fallthrough]];
    default:
      return dtype == DType::kFloat32 || dtype == DType::kFloat16 || dtype == DType::kInt64 || dtype == DType::kInt32 ||
             dtype == DType::kInt8 || dtype == DType::kUInt8;
  }
}

Status compare(CompareKind kind, DType dtype, const void* a, const void* b, bool* y, const BroadcastIndex& index,
               Stream stream) {
  HI_RETURN_IF(!compare_supports(kind, dtype), kUnsupported, "GPU comparison: no kernel for ", dtype_name(dtype));
  if (index.numel == 0) return Status::ok();
  HI_RETURN_IF(a == nullptr || b == nullptr || y == nullptr, kInvalidArgument, "GPU comparison: null buffer for ",
               index.numel, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  switch (dtype) {
    case DType::kFloat32: dispatch<float>(kind, a, b, y, index, s); break;
    case DType::kFloat16: dispatch<__half>(kind, a, b, y, index, s); break;
    case DType::kInt64: dispatch<int64_t>(kind, a, b, y, index, s); break;
    case DType::kInt32: dispatch<int32_t>(kind, a, b, y, index, s); break;
    case DType::kInt8: dispatch<int8_t>(kind, a, b, y, index, s); break;
    case DType::kUInt8: dispatch<uint8_t>(kind, a, b, y, index, s); break;
    default: dispatch_logic(kind, a, b, y, index, s); break;  // bool
  }
  return HI_GPU_CHECK(cudaGetLastError());
}

Status predicate(const PredicateOp& op, DType dtype, const void* x, bool* y, int64_t n, Stream stream) {
  HI_RETURN_IF(n < 0, kInvalidArgument, "GPU predicate: element count must be >= 0, got ", n);
  const bool ok =
      op.kind == PredicateKind::kNot ? dtype == DType::kBool : dtype == DType::kFloat32 || dtype == DType::kFloat16;
  HI_RETURN_IF(!ok, kUnsupported, "GPU predicate: no kernel for ", dtype_name(dtype));
  if (n == 0) return Status::ok();
  HI_RETURN_IF(x == nullptr || y == nullptr, kInvalidArgument, "GPU predicate: null buffer for ", n, " elements");
  const auto s = static_cast<cudaStream_t>(stream);
  if (op.kind == PredicateKind::kNot) launch_predicate<PredicateKind::kNot, bool>(op, x, y, n, s);
  else if (op.kind == PredicateKind::kIsNaN && dtype == DType::kFloat32)
    launch_predicate<PredicateKind::kIsNaN, float>(op, x, y, n, s);
  else if (op.kind == PredicateKind::kIsNaN) launch_predicate<PredicateKind::kIsNaN, __half>(op, x, y, n, s);
  else if (dtype == DType::kFloat32) launch_predicate<PredicateKind::kIsInf, float>(op, x, y, n, s);
  else launch_predicate<PredicateKind::kIsInf, __half>(op, x, y, n, s);
  return HI_GPU_CHECK(cudaGetLastError());
}

}  // namespace hi::gpu::HI_GPU_NS
