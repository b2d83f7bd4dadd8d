// Matrix products (kernels/matmul.cu): Y[b] = alpha * op(A[b]) op(B[b]) + beta * C, with op a
// transpose or not, a batch that either operand may broadcast (stride 0), and C any broadcast of
// [m, n] through its two strides (Gemm's C, or a bias row). float32 and float16 storage, float32
// accumulation. matmul() runs float16 on matrix cores where the device has them (NVIDIA tensor
// cores, AMD CDNA MFMA: matrix_cores.h), everything else on the portable tiled kernel every
// target runs; vendor libraries plug in beside them and are checked against them.
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"
#include "hipinfer/dtype.h"

namespace hi::gpu::HI_GPU_NS {

struct MatMulDesc {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  bool trans_a = false;  // A is stored [k, m] (row-major) instead of [m, k]
  bool trans_b = false;  // B is stored [n, k] instead of [k, n]
  int64_t a_batch_stride = 0, b_batch_stride = 0, y_batch_stride = 0;  // elements; 0 broadcasts
  float alpha = 1.f;
  float beta = 0.f;                            // with c == nullptr, ignored
  int64_t c_row_stride = 0, c_col_stride = 0;  // C(i, j) = c[i * row + j * col]; 0 broadcasts
};

Status matmul(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y, Stream stream);

// The two kernels matmul() chooses between, callable directly so tests can compare them.
// The portable tiled kernel (kernels/matmul.cu): float32 and float16, on any device.
Status matmul_tiled(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y,
                    Stream stream);
// float16 on matrix cores (kernels/matmul_mma.cu), float32 accumulation and one rounding per
// element, as the tiled kernel. kUnsupported for other dtypes and on a current device without
// them (has_f16_matrix_cores).
Status matmul_matrix_cores(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y,
                           Stream stream);

// The argument checks all three share (negative extents, grid limits, null buffers); ok for an
// empty product, which then needs no launch.
Status validate_matmul(const MatMulDesc& desc, const void* a, const void* b, const void* y);

}  // namespace hi::gpu::HI_GPU_NS
