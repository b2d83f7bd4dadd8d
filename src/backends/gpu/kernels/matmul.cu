// The tiled matrix product, and matmul()'s choice between it and the matrix-core kernel of
// matmul_mma.cu (see matmul.h). A block computes a 64 x 64 tile of Y with 256 threads, each a
// 4 x 4 patch, stepping through k 16 at a time: both operand tiles are staged in shared memory
// (converted to float32 on the way in), so each loaded element is reused 64 times. Every load is
// bounds-checked: odd sizes need no padding. The batch index is blockIdx.z.
// clang-format off
#include "backends/gpu/kernels/tile_gemm.cuh"  // first: the vendor header names HI_GPU_NS
#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/matrix_cores.h"
// clang-format on

namespace hi::gpu::HI_GPU_NS {
namespace {

template <typename T>
__global__ void __launch_bounds__(kThreads) matmul_kernel(const T* __restrict__ a, const T* __restrict__ b,
                                                          const T* __restrict__ c, T* __restrict__ y, MatMulDesc d) {
  __shared__ TileA as;
  __shared__ TileB bs;
  const int64_t batch = blockIdx.z;
  const T* pa = a + batch * d.a_batch_stride;
  const T* pb = b + batch * d.b_batch_stride;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kTileM, col0 = static_cast<int64_t>(blockIdx.x) * kTileN;
  // A(i, kk) and B(kk, j) through strides, so both transposes are the same code.
  const int64_t a_row = d.trans_a ? 1 : d.k, a_col = d.trans_a ? d.m : 1;
  const int64_t b_row = d.trans_b ? 1 : d.n, b_col = d.trans_b ? d.k : 1;
  const int tx = threadIdx.x % (kTileN / kPatch), ty = threadIdx.x / (kTileN / kPatch);  // 16 x 16 threads
  float acc[kPatch][kPatch] = {};
  for (int64_t k0 = 0; k0 < d.k; k0 += kTileK) {
    // 64 x 16 elements of each operand, 4 per thread.
    for (int e = threadIdx.x; e < kTileM * kTileK; e += kThreads) {
      const int i = e / kTileK, kk = e % kTileK;
      const int64_t gi = row0 + i, gk = k0 + kk;
      as[kk][i] = (gi < d.m && gk < d.k) ? load_f(pa, gi * a_row + gk * a_col) : 0.f;
      const int j = e % kTileN, kb = e / kTileN;
      const int64_t gj = col0 + j, gkb = k0 + kb;
      bs[kb][j] = (gj < d.n && gkb < d.k) ? load_f(pb, gkb * b_row + gj * b_col) : 0.f;
    }
    __syncthreads();
    accumulate_tile(as, bs, tx, ty, acc);
    __syncthreads();
  }
  T* py = y + batch * d.y_batch_stride;
#pragma unroll
  for (int p = 0; p < kPatch; ++p) {
    const int64_t i = row0 + ty * kPatch + p;
    if (i >= d.m) continue;
#pragma unroll
    for (int q = 0; q < kPatch; ++q) {
      const int64_t j = col0 + tx * kPatch + q;
      if (j >= d.n) continue;
      float v = d.alpha * acc[p][q];
      if (c) v += d.beta * load_f(c, i * d.c_row_stride + j * d.c_col_stride);
      store_f(py, i * d.n + j, v);
    }
  }
}

template <typename T>
void launch(const MatMulDesc& d, const void* a, const void* b, const void* c, void* y, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((d.n + kTileN - 1) / kTileN),
                  static_cast<unsigned>((d.m + kTileM - 1) / kTileM), static_cast<unsigned>(d.batch));
  launch_kernel<matmul_kernel<T>>(grid, kThreads, 0, s, static_cast<const T*>(a), static_cast<const T*>(b),
                                  static_cast<const T*>(c), static_cast<T*>(y), d);
}

}  // namespace

Status validate_matmul(const MatMulDesc& d, const void* a, const void* b, const void* y) {
  HI_RETURN_IF(d.batch < 0 || d.m < 0 || d.n < 0 || d.k < 0, kInvalidArgument, "GPU MatMul: negative extent (batch ",
               d.batch, ", m ", d.m, ", n ", d.n, ", k ", d.k, ")");
  if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
  // Both kernels tile the rows by 64 and put the batch in gridDim.z (matmul_mma.cu asserts it).
  HI_RETURN_IF(d.batch > 65535 || (d.m + kTileM - 1) / kTileM > 65535, kUnsupported, "GPU MatMul: batch ", d.batch,
               " or ", d.m, " rows is above the grid limit (65535 batches, 65535 row tiles)");
  HI_RETURN_IF((d.k > 0 && (a == nullptr || b == nullptr)) || y == nullptr, kInvalidArgument,
               "GPU MatMul: null buffer");
  return Status::ok();
}

Status matmul_tiled(DType dtype, const MatMulDesc& d, const void* a, const void* b, const void* c, void* y,
                    Stream stream) {
  HI_RETURN_IF_ERROR(validate_matmul(d, a, b, y));
  if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
  const auto s = static_cast<cudaStream_t>(stream);
  if (dtype == DType::kFloat32) launch<float>(d, a, b, c, y, s);
  else if (dtype == DType::kFloat16) launch<__half>(d, a, b, c, y, s);
  else return error(StatusCode::kUnsupported, "GPU MatMul: no kernel for ", dtype_name(dtype), " (float32, float16)");
  return HI_GPU_CHECK(cudaGetLastError());
}

Status matmul(DType dtype, const MatMulDesc& d, const void* a, const void* b, const void* c, void* y, Stream stream) {
  // float16 goes to the matrix cores where the current device has them (float32 stays on the
  // tiled kernel: it must match the CPU at 1e-4, which TF32 would not).
  if (dtype == DType::kFloat16) {
    HI_RETURN_IF_ERROR(validate_matmul(d, a, b, y));
    if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
    const Result<int> device = current_device();
    if (device.is_ok() && has_f16_matrix_cores(device.value()))
      return matmul_matrix_cores(dtype, d, a, b, c, y, stream);
  }
  return matmul_tiled(dtype, d, a, b, c, y, stream);
}

}  // namespace hi::gpu::HI_GPU_NS
