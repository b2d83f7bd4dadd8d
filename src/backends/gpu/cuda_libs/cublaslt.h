// cuBLASLt for the CUDA backend's matrix products, loaded at run time with dlopen: a binary built
// with it still starts, and runs every product on its own kernel, where the library is absent.
// Compiled into the CUDA backend only (hipBLASLt and rocBLAS are not in Debian 12; the HIP build
// runs the own kernels).
#pragma once

#include "backends/gpu/cuda_libs/vendor_library.h"
#include "backends/gpu/kernels/matmul.h"

namespace hi::gpu::cuda_backend {

// Loads the library once per process; never fails.
const VendorLibrary& cublaslt_library();

// The contract of matmul() (matmul.h), through cublasLtMatmul with float32 compute (no TF32: the
// results must match the CPU at rtol 1e-4). C is supported as absent, a full [m, n] matrix or a
// bias row (c_row_stride 0, c_col_stride 1, beta 1); other broadcasts of C are kUnsupported, and
// so is anything when the library is absent: the caller then runs matmul().
Status cublaslt_matmul(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y,
                       Stream stream);

}  // namespace hi::gpu::cuda_backend
