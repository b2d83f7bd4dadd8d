// HI_HOST_DEVICE marks the per-element index arithmetic of a kernel (Pad's source index, Resize's
// taps) that is written once for the device and the host: the kernels call it, and the tests run
// the same code on the host in every build, GPU or not, against the CPU reference ops. Headers
// using it stay plain C++ for the host compiler (no runtime headers, no device intrinsics).
#pragma once

#if defined(__CUDACC__) || defined(__HIP__)  // nvcc, or clang in HIP mode (hipcc)
#define HI_HOST_DEVICE __host__ __device__
#else
#define HI_HOST_DEVICE
#endif
