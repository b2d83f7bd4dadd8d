// Vendor libraries behind one backend-neutral interface, so that the executor asks "can a vendor
// library do this?" without knowing which backend it drives. The CUDA backend forwards to cuDNN
// (convolution, cuda_libs/cudnn.h) and cuBLASLt (matrix products, cuda_libs/cublaslt.h), both
// loaded at run time; the HIP backend has none (MIOpen and hipBLASLt are not in Debian 12) and
// answers kUnsupported. On kUnsupported the caller runs its own kernel (conv2d(), matmul()); any
// other error is a real failure. vendor_libs.cc is host C++ compiled once per backend.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/conv.h"
#include "backends/gpu/kernels/matmul.h"

namespace hi::gpu::HI_GPU_NS {

// Workspace bytes vendor_conv2d needs for `desc` on the current device. Call it before
// vendor_conv2d and outside any graph capture (it sets the library up for the device and picks
// the algorithm), then allocate that much and pass it in: vendor_conv2d allocates nothing.
Result<size_t> vendor_conv2d_workspace(DType dtype, const Conv2dDesc& desc);

// conv2d()'s contract (conv.h) through the vendor library, with `workspace` of `workspace_bytes`.
// kUnsupported, with nothing queued, for whatever the library cannot do or when it is absent.
Status vendor_conv2d(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias,
                     const void* residual, void* y, void* workspace, size_t workspace_bytes, Stream stream);

// matmul()'s contract (matmul.h) through the vendor library; kUnsupported as above (cuBLASLt
// takes C absent, a full [m, n] matrix or a bias row).
Status vendor_matmul(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y,
                     Stream stream);

struct VendorLibraryInfo {
  std::string name;  // "cuDNN", "cuBLASLt", "MIOpen", "hipBLASLt"
  bool available = false;
  std::string version;  // "cuDNN 9.19.0"; empty when not loaded
  std::string reason;   // why it is not available
};
// The libraries this backend can use, loading them if not done yet; never fails.
std::vector<VendorLibraryInfo> vendor_libraries();

}  // namespace hi::gpu::HI_GPU_NS
