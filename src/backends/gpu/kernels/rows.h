// Row kernels: softmax and LayerNorm over the last axis of a [rows, cols] view (kernels/softmax.cu,
// kernels/layer_norm.cu), softmax and Hardmax along any axis, float32 and float16 storage with
// float32 accumulation.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

// y[r, :] = softmax(x[r, :]) (or log-softmax), max-subtracted. x may equal y.
Status softmax_rows(DType dtype, const void* x, void* y, int64_t rows, int64_t cols, bool log, Stream stream);

// The same along the middle axis of an [outer, n, inner] view, one thread per (outer, inner)
// line (coalesced across inner), for an axis that is not the last; and Hardmax (1 at the first
// maximum of the line, 0 elsewhere, scanning from the first element as the CPU op does).
enum class SoftmaxMode { kSoftmax, kLogSoftmax, kHardmax };
Status softmax_axis(DType dtype, const void* x, void* y, int64_t outer, int64_t n, int64_t inner, SoftmaxMode mode,
                    Stream stream);

// y[r, :] = (x[r, :] - mean) / sqrt(var + epsilon) * scale + bias (bias may be null); scale and
// bias have `cols` elements of the same dtype. Variance is the mean squared deviation (two
// passes over the row, not E[x^2] - E[x]^2, which cancels badly). With rms (RMSNormalization)
// the mean is taken as 0: y = x / sqrt(mean(x^2) + epsilon) * scale (+ bias).
// mean and inv_std (float32, `rows` each, either may be null) receive each row's statistics.
struct RowStats {
  float* mean = nullptr;
  float* inv_std = nullptr;
};
Status layer_norm_rows(DType dtype, const void* x, const void* scale, const void* bias, void* y, int64_t rows,
                       int64_t cols, float epsilon, Stream stream, bool rms = false, RowStats stats = {});

}  // namespace hi::gpu::HI_GPU_NS
