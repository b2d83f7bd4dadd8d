// The one place that knows which GPU vendor is being compiled for: includes exactly one vendor
// runtime, maps CUDA runtime names onto HIP, and turns compiler targets into capability macros.
//
// Every GPU source (*.cu) is written once in CUDA C++ and compiled three times: by nvcc for
// NVIDIA, by hipcc (clang -x hip) for AMD with -DHI_GPU_HIP=1 (see cmake/HiHip.cmake), and by the
// host C++ compiler for the emulated GPU with -DHI_GPU_EMU=1 (emu/cuda_surface.h: the kernels run
// on the CPU as fibers, at warp size 32 or 64). Kernels are launched through launch_kernel<K>()
// below, never with <<<...>>>, which only the GPU compilers parse; dynamic shared memory is
// declared with HI_DYNAMIC_SHARED. No file other than this one may test HI_GPU_HIP, HI_GPU_EMU,
// __HIP_PLATFORM_AMD__, __CUDA_ARCH__ or a gfx target macro,
// with one exception: the "vendor diagnosis" block of runtime.cu, host code that explains a
// missing driver in each vendor's terms. Kernels test the HI_* capability macros below.
//
// Why CUDA names and not a prefix of our own (gpuMalloc): the kernels read as ordinary CUDA, so
// CUDA documentation, examples and tools apply to them unchanged; the nvcc build has no
// indirection at all; and HIP's API is a near one-to-one copy of CUDA's, so the map is one line
// a name. The map holds only the names hipinfer uses: a name missing from it is a compile error
// in the HIP build, which CI builds. Only names are mapped; nothing here redefines a compiler
// macro such as __CUDA_ARCH__ (ggml's HIP header does, after which no reader can trust it).
#pragma once

#include "backends/gpu/device_counters.h"

#if defined(HI_GPU_HIP)
#if !defined(__HIP__)
#error "HI_GPU_HIP is set but this is not a HIP compiler: compile *.cu through hipcc -x hip"
#endif
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#elif defined(HI_GPU_EMU)
#include "backends/gpu/emu/cuda_surface.h"
#else
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#endif

// ---- Backend identity -----------------------------------------------------------------------
// Both backends can be linked into one binary, so every symbol a GPU source defines lives in a
// namespace named after its backend: hi::gpu::cuda_backend or hi::gpu::hip_backend.
// (Not hi::gpu::cuda: that would shadow libcu++'s ::cuda namespace inside hi::gpu.)
#if defined(HI_GPU_HIP)
#define HI_GPU_NS hip_backend
#define HI_GPU_BACKEND_NAME "hip"  // DeviceInfo::backend
#define HI_GPU_RUNTIME_NAME "HIP"  // in messages: "HIP call hipMalloc(...) failed"
#elif defined(HI_GPU_EMU)
#define HI_GPU_NS emu_backend
#define HI_GPU_BACKEND_NAME "emu"
#define HI_GPU_RUNTIME_NAME "emulated GPU"
#else
#define HI_GPU_NS cuda_backend
#define HI_GPU_BACKEND_NAME "cuda"
#define HI_GPU_RUNTIME_NAME "CUDA"
#endif

// ---- Runtime name map (HIP only) ------------------------------------------------------------
#if defined(HI_GPU_HIP)
// Types and constants.
#define cudaDeviceProp hipDeviceProp_t
#define cudaError_t hipError_t
#define cudaEvent_t hipEvent_t
#define cudaGraph_t hipGraph_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaMemcpyKind hipMemcpyKind
#define cudaStream_t hipStream_t
#define cudaStreamCaptureMode hipStreamCaptureMode
#define cudaStreamCaptureStatus hipStreamCaptureStatus
#define cudaSuccess hipSuccess
#define cudaErrorInsufficientDriver hipErrorInsufficientDriver
#define cudaErrorInitializationError hipErrorNotInitialized
#define cudaErrorInvalidDevice hipErrorInvalidDevice
#define cudaErrorInvalidValue hipErrorInvalidValue
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorNoDevice hipErrorNoDevice
#define cudaErrorNoKernelImageForDevice hipErrorNoBinaryForGpu
#define cudaErrorNotReady hipErrorNotReady
#define cudaEventDefault hipEventDefault
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaStreamCaptureModeGlobal hipStreamCaptureModeGlobal
#define cudaStreamCaptureModeRelaxed hipStreamCaptureModeRelaxed
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaStreamCaptureStatusActive hipStreamCaptureStatusActive
#define cudaStreamCaptureStatusNone hipStreamCaptureStatusNone
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamPerThread hipStreamPerThread
// Functions.
#define cudaDeviceGetPCIBusId hipDeviceGetPCIBusId
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaDriverGetVersion hipDriverGetVersion
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventQuery hipEventQuery
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaGetDevice hipGetDevice
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaGraphDestroy hipGraphDestroy
#define cudaGraphExecDestroy hipGraphExecDestroy
#define cudaGraphInstantiateWithFlags hipGraphInstantiateWithFlags  // same arguments in both
#define cudaGraphLaunch hipGraphLaunch
#define cudaHostAlloc hipHostMalloc  // (ptr, bytes, flags) in both; hipHostAlloc is deprecated
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemsetAsync hipMemsetAsync
#define cudaPeekAtLastError hipPeekAtLastError
#define cudaRuntimeGetVersion hipRuntimeGetVersion
#define cudaSetDevice hipSetDevice
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamIsCapturing hipStreamIsCapturing
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStreamWaitEvent hipStreamWaitEvent
#endif

// ---- Capability macros (device compilation pass only) ---------------------------------------
// HI_DEVICE_COMPILE        this pass generates device code (nvcc and clang compile a .cu once
//                          for the host and once per GPU target)
// HI_FP16_AVAILABLE        native half-precision arithmetic (sm_53+, every AMD target)
// HI_BF16_AVAILABLE        native bfloat16 arithmetic and conversions (sm_80+; not yet set on AMD)
// HI_NVIDIA_MMA_AVAILABLE  NVIDIA tensor cores through mma.sync, fp16/bf16 inputs (sm_80+)
// HI_AMD_MFMA_AVAILABLE    AMD matrix cores (MFMA) on CDNA: gfx908, gfx90a, gfx94x; one
//                          wavefront (64 lanes) computes a tile (__builtin_amdgcn_mfma_*)
// HI_NVIDIA_WMMA_AVAILABLE NVIDIA tensor cores through nvcuda::wmma (mma.h): 16x16x16 fp16
//                          tiles with float accumulators, one warp (32 lanes) a tile (sm_70+)
// HI_F16_MATRIX_LANES      set where one of the two above gives 16x16x16 fp16 x fp16 -> fp32
//                          matrix-core tiles: the lanes that compute one tile together, 32 (an
//                          NVIDIA warp) or 64 (a CDNA wavefront). The host decides whether to
//                          launch such a kernel with has_f16_matrix_cores() (matrix_cores.h),
//                          whose arch list must match the targets listed here.
// A kernel that uses one of them keeps a plain path under #else, so every target compiles.
// The emulated GPU compiles once for both of its profiles: it has float16 and both kinds of
// matrix cores, and HI_F16_MATRIX_LANES is its warp size, known at run time (the kernels pick the
// wmma path at 32 and the MFMA path at 64).
#if defined(HI_GPU_EMU)
#define HI_DEVICE_COMPILE 1
#define HI_FP16_AVAILABLE 1
#define HI_NVIDIA_WMMA_AVAILABLE 1
#define HI_AMD_MFMA_AVAILABLE 1
#define HI_F16_MATRIX_LANES (warp_size())
#elif defined(HI_GPU_HIP)
#if defined(__HIP_DEVICE_COMPILE__)
#define HI_DEVICE_COMPILE 1
#define HI_FP16_AVAILABLE 1
#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define HI_AMD_MFMA_AVAILABLE 1
#define HI_F16_MATRIX_LANES 64
#endif
#endif
#else  // CUDA
#if defined(__CUDA_ARCH__)
#define HI_DEVICE_COMPILE 1
#if __CUDA_ARCH__ >= 530
#define HI_FP16_AVAILABLE 1
#endif
#if __CUDA_ARCH__ >= 700
#define HI_NVIDIA_WMMA_AVAILABLE 1
#define HI_F16_MATRIX_LANES 32
#include <mma.h>
#endif
#if __CUDA_ARCH__ >= 800
#define HI_BF16_AVAILABLE 1
#define HI_NVIDIA_MMA_AVAILABLE 1
#endif
#endif
#endif

namespace hi::gpu::HI_GPU_NS {

// The number of threads in a warp (wavefront) of the GPU this device pass compiles for: 64 on
// GCN/CDNA (gfx8, gfx9: MI100, MI200, MI300), 32 on NVIDIA and on RDNA (gfx10+, which HIP
// compiles for wave32). Device code only: in the host pass it answers 32 whatever the GPU is, so
// host code (launch configuration) must use DeviceInfo::warp_size / cudaDeviceProp::warpSize.
// kernels/probe.cu checks on a real GPU that this agrees with the runtime's warpSize. On the
// emulated GPU it is the running device profile's (32 or 64), a run-time value.
#if defined(HI_GPU_EMU)
inline int warp_size() { return warpSize; }
// Checked by the emulated instructions themselves at run time.
#define HI_ASSERT_WARP_SIZE(lanes) static_assert(true)
#else
__device__ constexpr int warp_size() {
#if defined(HI_GPU_HIP) && (defined(__GFX9__) || defined(__GFX8__))
  return 64;
#else
  return 32;
#endif
}
#define HI_ASSERT_WARP_SIZE(lanes) \
  static_assert((lanes) == warp_size(), "one warp (wavefront) computes a matrix-core unit")
#endif

// The 4-element vectors that __builtin_amdgcn_mfma_f32_16x16x16f16 takes and returns.
#if defined(HI_GPU_EMU)
using mfma_f16x4 = ::hi::gpu::emu::mfma_f16x4;
using mfma_f32x4 = ::hi::gpu::emu::mfma_f32x4;
#elif defined(HI_GPU_HIP)
using mfma_f16x4 = _Float16 __attribute__((ext_vector_type(4)));
using mfma_f32x4 = float __attribute__((ext_vector_type(4)));
#endif

// Launches Kernel on grid x block threads with `shared_bytes` of dynamic shared memory, queued on
// `stream`; errors are read with cudaGetLastError() as after <<<...>>>. The one launch form of
// every GPU source: the GPU compilers get <<<...>>>, the emulated GPU a launch that names the
// kernel in its errors.
template <auto Kernel, typename... Args>
inline void launch_kernel(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream, Args... args) {
  count(device_counters().kernel_launches);
#if defined(HI_GPU_EMU)
  ::hi::gpu::emu::note_kernel_launch<Kernel>();  // for the kernel coverage check
  ::hi::gpu::emu::launch(::hi::gpu::emu::kernel_name<Kernel>(), grid, block, shared_bytes, stream,
                         [=] { Kernel(args...); });
#else
  // A .h file is C++ to clang-format, which would split the CUDA launch's >>>.
  // clang-format off
  Kernel<<<grid, block, shared_bytes, stream>>>(args...);
  // clang-format on
#endif
}

}  // namespace hi::gpu::HI_GPU_NS

// HI_DYNAMIC_SHARED(float, buffer); declares `buffer` as the block's dynamic shared memory (the
// launch's shared_bytes), in place of `extern __shared__ float buffer[];`.
#if defined(HI_GPU_EMU)
#define HI_DYNAMIC_SHARED(type, name) type* name = static_cast<type*>(::hi::gpu::emu::dynamic_shared())
#else
#define HI_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#endif
