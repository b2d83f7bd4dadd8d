// Reductions (kernels/reduce.cu): the ONNX Reduce* family over x viewed as [outer, r, inner],
// giving y [outer, inner]; float32 and float16 storage, float32 accumulation. Reducing several
// axes at once is one call when they are adjacent, else one call per axis. Over an empty range
// (r == 0) each gives its identity (0, 1, -inf, +inf), Mean gives NaN.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kSumSquare, kL1, kL2, kLogSum, kLogSumExp };

Status reduce(ReduceKind kind, DType dtype, const void* x, void* y, int64_t outer, int64_t r, int64_t inner,
              Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
