// Which devices get the matrix-core kernels (kernels/mma_tile.cuh): the host side of the
// capability macros HI_NVIDIA_WMMA_AVAILABLE, HI_AMD_MFMA_AVAILABLE and HI_F16_MATRIX_LANES in
// vendor.h. The decision is by architecture name, never by vendor or backend, and the arch list
// here must match the device targets that vendor.h gives the macros to (the probe kernel reports
// what the device code saw; tests/gpu/matmul_test.cc compares the two on a GPU).
#pragma once

#include <string_view>

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

// The lanes that compute one 16x16x16 fp16 x fp16 -> fp32 matrix-core tile on `arch` (as
// DeviceInfo::arch spells it), or 0 where the kernels have none to use:
//   32  NVIDIA sm_70 and later (tensor cores through nvcuda::wmma, one warp a tile)
//   64  AMD CDNA gfx908, gfx90a, gfx940, gfx941, gfx942 (MFMA, one wavefront a tile)
//   0   everything else: RDNA (gfx10xx, gfx11xx; RDNA3's WMMA is not used), older GPUs, and
//       names that do not parse. A target suffix (gfx90a:sramecc+) is ignored.
int f16_matrix_lanes(std::string_view arch);

// f16_matrix_lanes(arch) != 0.
bool arch_has_f16_matrix_cores(std::string_view arch);

// Whether this backend's `device` has them: its arch has matrix-core tiles and its warp size is
// the tile's lane count (a wavefront of 64 on CDNA). Read from device_properties() once per
// device and cached; false when the device cannot be queried. Thread-safe.
bool has_f16_matrix_cores(int device);

}  // namespace hi::gpu::HI_GPU_NS
