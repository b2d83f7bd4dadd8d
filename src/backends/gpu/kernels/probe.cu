// The probe kernel (see probe.h). One thread writes five ints; no memory layout to speak of.
#include "backends/gpu/common.cuh"
#include "backends/gpu/kernels/probe.h"

namespace hi::gpu::HI_GPU_NS {

namespace {

__global__ void probe_kernel(int* out) {
  out[0] = warp_size();
  out[1] = warpSize;
#if defined(HI_FP16_AVAILABLE)
  out[2] = 1;
#else
  out[2] = 0;
#endif
#if defined(HI_NVIDIA_MMA_AVAILABLE)
  out[3] = 1;
#else
  out[3] = 0;
#endif
#if defined(HI_AMD_MFMA_AVAILABLE)
  out[4] = 1;
#else
  out[4] = 0;
#endif
#if defined(HI_F16_MATRIX_LANES)
  out[5] = HI_F16_MATRIX_LANES;
#else
  out[5] = 0;
#endif
}

}  // namespace

Result<DeviceProbe> probe_device() {
  constexpr int kCount = 6;
  int* out = nullptr;
  HI_GPU_RETURN_IF_ERROR(cudaMalloc(&out, kCount * sizeof(int)));
  launch_kernel<probe_kernel>(1, 1, 0, nullptr, out);
  int host[kCount] = {};
  const Status launched = HI_GPU_CHECK(cudaGetLastError());
  const Status copied =
      launched.is_ok() ? HI_GPU_CHECK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost)) : launched;
  const Status freed = HI_GPU_CHECK(cudaFree(out));  // free even when the kernel failed
  HI_RETURN_IF_ERROR(copied);
  HI_RETURN_IF_ERROR(freed);
  DeviceProbe probe;
  probe.warp_size = host[0];
  probe.runtime_warp_size = host[1];
  probe.fp16 = host[2] != 0;
  probe.nvidia_mma = host[3] != 0;
  probe.amd_mfma = host[4] != 0;
  probe.f16_matrix_lanes = host[5];
  return probe;
}

}  // namespace hi::gpu::HI_GPU_NS
