// vendor_libs.h for each backend. The CUDA target compiles its host sources with
// HI_GPU_CUDA_HOST=1 (src/backends/gpu/CMakeLists.txt), the emulated one with HI_GPU_EMU_HOST=1;
// the HIP target with neither.
#include "backends/gpu/vendor_libs.h"

#include <cstdlib>
#include <cstring>

#if defined(HI_GPU_CUDA_HOST)
#include "backends/gpu/cuda_libs/cublaslt.h"
#include "backends/gpu/cuda_libs/cudnn.h"
#endif

namespace hi::gpu::HI_GPU_NS {

#if defined(HI_GPU_CUDA_HOST)

namespace {
// HI_GPU_VENDOR_LIBS=0 runs every op on the own kernels: to compare the two, or to rule a
// vendor library out when hunting a wrong result.
bool turned_off() {
  static const bool off = [] {
    const char* v = std::getenv("HI_GPU_VENDOR_LIBS");
    return v && std::strcmp(v, "0") == 0;
  }();
  return off;
}
constexpr const char* kOff = "vendor libraries turned off (HI_GPU_VENDOR_LIBS=0)";
}  // namespace

Result<size_t> vendor_conv2d_workspace(DType dtype, const Conv2dDesc& desc) {
  HI_RETURN_IF(turned_off(), kUnsupported, kOff);
  return cudnn_conv2d_workspace(dtype, desc);
}

Status vendor_conv2d(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias,
                     const void* residual, void* y, void* workspace, size_t workspace_bytes, Stream stream) {
  HI_RETURN_IF(turned_off(), kUnsupported, kOff);
  return cudnn_conv2d(dtype, desc, x, w, bias, residual, y, workspace, workspace_bytes, stream);
}

Status vendor_matmul(DType dtype, const MatMulDesc& desc, const void* a, const void* b, const void* c, void* y,
                     Stream stream) {
  HI_RETURN_IF(turned_off(), kUnsupported, kOff);
  return cublaslt_matmul(dtype, desc, a, b, c, y, stream);
}

std::vector<VendorLibraryInfo> vendor_libraries() {
  std::vector<VendorLibraryInfo> out;
  for (const auto& [name, lib] : {std::pair<const char*, const VendorLibrary*>{"cuDNN", &cudnn_library()},
                                  std::pair<const char*, const VendorLibrary*>{"cuBLASLt", &cublaslt_library()}})
    out.push_back({name, lib->available && !turned_off(), lib->version, turned_off() ? kOff : lib->reason});
  return out;
}

#else  // the HIP backend and the emulated GPU

namespace {
#if defined(HI_GPU_EMU_HOST)
constexpr const char* kNone = "the emulated GPU has no vendor libraries";
#else
constexpr const char* kNone = "no MIOpen/hipBLASLt in this build";
#endif
}  // namespace

Result<size_t> vendor_conv2d_workspace(DType, const Conv2dDesc&) {
  return error(StatusCode::kUnsupported, kNone, ": convolutions run on the own kernel");
}

Status vendor_conv2d(DType, const Conv2dDesc&, const void*, const void*, const void*, const void*, void*, void*, size_t,
                     Stream) {
  return error(StatusCode::kUnsupported, kNone, ": convolutions run on the own kernel");
}

Status vendor_matmul(DType, const MatMulDesc&, const void*, const void*, const void*, void*, Stream) {
  return error(StatusCode::kUnsupported, kNone, ": matrix products run on the own kernel");
}

std::vector<VendorLibraryInfo> vendor_libraries() {
#if defined(HI_GPU_EMU_HOST)
  // The emulated GPU runs the CUDA backend's own kernels in their place.
  const std::string reason = "not emulated: the own kernels run in its place";
  return {{"cuDNN", false, "", reason}, {"cuBLASLt", false, "", reason}};
#else
  const std::string reason = "not in this build (Debian 12 has no ROCm math libraries)";
  return {{"MIOpen", false, "", reason}, {"hipBLASLt", false, "", reason}};
#endif
}

#endif

}  // namespace hi::gpu::HI_GPU_NS
