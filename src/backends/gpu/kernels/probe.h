// The probe kernel: reports what the device code compiled for the current device sees, so a test
// (or a diagnosis) can check it against what the runtime says about the device (kernels/probe.cu).
#pragma once

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

struct DeviceProbe {
  int warp_size = 0;          // warp_size() from vendor.h, a compile-time constant
  int runtime_warp_size = 0;  // the warpSize built-in, read in device code at run time
  bool fp16 = false;          // HI_FP16_AVAILABLE was set for this device's code
  bool nvidia_mma = false;    // HI_NVIDIA_MMA_AVAILABLE
  bool amd_mfma = false;      // HI_AMD_MFMA_AVAILABLE
  int f16_matrix_lanes = 0;   // HI_F16_MATRIX_LANES, 0 where unset (matrix_cores.h must agree)
};

// Runs one thread on the current device and waits for it. Fails with the runtime's "no kernel
// image for this device" error (cudaErrorNoKernelImageForDevice / hipErrorNoBinaryForGpu) when
// this build has no code for the device's architecture.
Result<DeviceProbe> probe_device();

}  // namespace hi::gpu::HI_GPU_NS
