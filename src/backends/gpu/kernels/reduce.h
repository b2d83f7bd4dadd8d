// Reductions (kernels/reduce.cu): the ONNX Reduce* family over x viewed as [outer, r, inner],
// giving y [outer, inner]; float32 and float16 storage, float32 accumulation. Several axes at
// once are one call when they are adjacent, and any others a ReducePlan (below). Over an empty
// range (r == 0) each gives its identity (0, 1, -inf, +inf), Mean gives NaN.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"
#include "hipinfer/tensor.h"

namespace hi::gpu::HI_GPU_NS {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, int64_t outer, int64_t r, int64_t inner,
              Stream stream);

// Any set of axes at once: x's dims split into the kept ones (whose order is y's layout) and the
// reduced ones, after merging neighbours of the same kind and dropping dims of 1. When the
// reduced dims are then one run, the plan is one [outer, r, inner] call above; otherwise a kernel
// walks the reduced dims with x's strides, a block per output for long reductions and a thread
// per output for short ones. Reducing no axis (ONNX noop_with_empty_axes) maps each element alone
// (r == 1), as the CPU ops do.
constexpr int kMaxReduceRank = 8;
struct ReducePlan {
  bool contiguous = true;
  int64_t outer = 1, r = 1, inner = 1;  // contiguous: the [outer, r, inner] view
  int kept_rank = 0, reduced_rank = 0;  // otherwise: the dims and x's element strides
  int64_t kept_dims[kMaxReduceRank] = {}, kept_strides[kMaxReduceRank] = {};
  int64_t reduced_dims[kMaxReduceRank] = {}, reduced_strides[kMaxReduceRank] = {};
  int64_t outputs() const;
  int64_t reduced() const;  // elements folded into each output
};
// mask[d]: dim d of x is reduced. Errors: a mask of another length (kInvalidArgument), rank above
// kMaxReduceRank (kUnsupported).
Result<ReducePlan> plan_reduce(const Shape& x, const std::vector<bool>& mask);
Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, const ReducePlan& plan, Stream stream);

// Running sums and products along the middle axis of [outer, n, inner] (kernels/cumulative.cu):
// CumSum / CumProd with exclusive and reverse; float32, float16 (accumulated in double, as the
// CPU op), int64, int32 (wrapping). y may not be x.
struct CumulativeOp {
  bool product = false, exclusive = false, reverse = false;
};
bool cumulative_supports(DType t);
Status cumulative(const CumulativeOp& op, DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner,
                  Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
