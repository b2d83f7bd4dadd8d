// Kernels that work with element positions: ArgMax / ArgMin over one axis of an [outer, n, inner]
// view (kernels/arg_reduce.cu, int64 results) and Trilu (kernels/trilu.cu).
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/host_device.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

// y[o, i] = the index along n of the largest (max) or smallest element of line (o, i): the first
// such, or the last with select_last; x float32, float16, int64 or int32; n >= 1.
bool arg_reduce_supports(DType t);
Status arg_reduce(DType dtype, const void* x, int64_t* y, int64_t outer, int64_t n, int64_t inner, bool max,
                  bool select_last, Stream stream);

// Trilu keeps element (r, c) of each matrix when c - r >= k (upper) or c - r <= k (lower).
HI_HOST_DEVICE inline bool trilu_keeps(int64_t r, int64_t c, int64_t k, bool upper) {
  return upper ? c - r >= k : c - r <= k;
}
// y = x with the other elements zeroed, over n elements that are matrices of rows x cols;
// elements of elem_size bytes (1, 2, 4 or 8).
Status trilu(int elem_size, const void* x, void* y, int64_t n, int64_t rows, int64_t cols, int64_t k, bool upper,
             Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
