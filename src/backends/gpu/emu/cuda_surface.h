// The emulated GPU's CUDA surface: what a kernel source and the backend's runtime files
// (runtime.cu, runtime_async.cu) need from <cuda_runtime.h>, <cuda_fp16.h> and <mma.h>, written
// for the host C++ compiler. vendor.h includes it instead of a vendor runtime when HI_GPU_EMU is
// set; nothing else includes it.
//
// Every name a kernel uses is a macro that maps the CUDA spelling onto hi::gpu::emu, as vendor.h
// maps it onto HIP's: the emulated backend can be linked into one binary with the real CUDA
// runtime (whose ::cudaMalloc, ::__half and ::dim3 are real), so none of its names may live in
// the global namespace.
//
// How kernels run (emu/scheduler.h): a launch runs its blocks on host threads; the threads of a
// block are fibers on one host thread, so __syncthreads() is a real barrier, and a `__shared__`
// variable is a static thread_local (each host thread runs one block at a time). Dynamic shared
// memory (HI_DYNAMIC_SHARED in vendor.h) comes from a per-block buffer filled with poison.
#pragma once

#include <math.h>  // expf, fmaxf, INFINITY & co. in the global namespace, as CUDA has them

#include <cmath>

#include "backends/gpu/emu/api.h"

// ---- Language ----------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(...)
#define __shared__ static thread_local

// warpSize is an object, not a macro, so that cudaDeviceProp::warpSize stays a plain field.
namespace hi::gpu::emu {
struct WarpSizeReader {
  operator int() const { return current_thread->warp_size; }
};
}  // namespace hi::gpu::emu
static constexpr ::hi::gpu::emu::WarpSizeReader warpSize{};

// ---- Name map --------------------------------------------------------------------------------
#define dim3 ::hi::gpu::emu::Dim3
#define threadIdx (::hi::gpu::emu::current_thread->thread_idx)
#define blockIdx (::hi::gpu::emu::current_thread->block_idx)
#define blockDim (::hi::gpu::emu::current_thread->block_dim)
#define gridDim (::hi::gpu::emu::current_thread->grid_dim)
#define __syncthreads ::hi::gpu::emu::syncthreads
#define __half ::hi::gpu::emu::Half
#define __half2float ::hi::gpu::emu::half_to_float
#define __float2half_rn ::hi::gpu::emu::float_to_half_rn
#define __ushort_as_half ::hi::gpu::emu::ushort_as_half
#define __half_as_ushort ::hi::gpu::emu::half_as_ushort

#define cudaError_t ::hi::gpu::emu::cudaError_t
#define cudaSuccess ::hi::gpu::emu::cudaSuccess
#define cudaErrorInvalidValue ::hi::gpu::emu::cudaErrorInvalidValue
#define cudaErrorMemoryAllocation ::hi::gpu::emu::cudaErrorMemoryAllocation
#define cudaErrorInitializationError ::hi::gpu::emu::cudaErrorInitializationError
#define cudaErrorInvalidDevice ::hi::gpu::emu::cudaErrorInvalidDevice
#define cudaErrorNotReady ::hi::gpu::emu::cudaErrorNotReady
#define cudaErrorInsufficientDriver ::hi::gpu::emu::cudaErrorInsufficientDriver
#define cudaErrorNoDevice ::hi::gpu::emu::cudaErrorNoDevice
#define cudaErrorNoKernelImageForDevice ::hi::gpu::emu::cudaErrorNoKernelImageForDevice
#define cudaStream_t ::hi::gpu::emu::cudaStream_t
#define cudaEvent_t ::hi::gpu::emu::cudaEvent_t
#define cudaGraph_t ::hi::gpu::emu::cudaGraph_t
#define cudaGraphExec_t ::hi::gpu::emu::cudaGraphExec_t
#define cudaStreamPerThread ::hi::gpu::emu::cudaStreamPerThread
#define cudaMemcpyKind ::hi::gpu::emu::cudaMemcpyKind
#define cudaMemcpyHostToDevice ::hi::gpu::emu::cudaMemcpyHostToDevice
#define cudaMemcpyDeviceToHost ::hi::gpu::emu::cudaMemcpyDeviceToHost
#define cudaMemcpyDeviceToDevice ::hi::gpu::emu::cudaMemcpyDeviceToDevice
#define cudaStreamCaptureMode ::hi::gpu::emu::cudaStreamCaptureMode
#define cudaStreamCaptureModeGlobal ::hi::gpu::emu::cudaStreamCaptureModeGlobal
#define cudaStreamCaptureModeThreadLocal ::hi::gpu::emu::cudaStreamCaptureModeThreadLocal
#define cudaStreamCaptureModeRelaxed ::hi::gpu::emu::cudaStreamCaptureModeRelaxed
#define cudaStreamCaptureStatus ::hi::gpu::emu::cudaStreamCaptureStatus
#define cudaStreamCaptureStatusNone ::hi::gpu::emu::cudaStreamCaptureStatusNone
#define cudaStreamCaptureStatusActive ::hi::gpu::emu::cudaStreamCaptureStatusActive
#define cudaStreamNonBlocking ::hi::gpu::emu::cudaStreamNonBlocking
#define cudaEventDefault ::hi::gpu::emu::cudaEventDefault
#define cudaEventDisableTiming ::hi::gpu::emu::cudaEventDisableTiming
#define cudaHostAllocDefault ::hi::gpu::emu::cudaHostAllocDefault
#define cudaDeviceProp ::hi::gpu::emu::cudaDeviceProp

#define cudaGetDeviceCount ::hi::gpu::emu::cudaGetDeviceCount
#define cudaGetDevice ::hi::gpu::emu::cudaGetDevice
#define cudaSetDevice ::hi::gpu::emu::cudaSetDevice
#define cudaGetDeviceProperties ::hi::gpu::emu::cudaGetDeviceProperties
#define cudaDeviceGetPCIBusId ::hi::gpu::emu::cudaDeviceGetPCIBusId
#define cudaRuntimeGetVersion ::hi::gpu::emu::cudaRuntimeGetVersion
#define cudaDriverGetVersion ::hi::gpu::emu::cudaDriverGetVersion
#define cudaMemGetInfo ::hi::gpu::emu::cudaMemGetInfo
#define cudaGetLastError ::hi::gpu::emu::cudaGetLastError
#define cudaPeekAtLastError ::hi::gpu::emu::cudaPeekAtLastError
#define cudaGetErrorName ::hi::gpu::emu::cudaGetErrorName
#define cudaGetErrorString ::hi::gpu::emu::cudaGetErrorString
#define cudaMalloc ::hi::gpu::emu::cudaMalloc
#define cudaFree ::hi::gpu::emu::cudaFree
#define cudaHostAlloc ::hi::gpu::emu::cudaHostAlloc
#define cudaFreeHost ::hi::gpu::emu::cudaFreeHost
#define cudaMemcpy ::hi::gpu::emu::cudaMemcpy
#define cudaMemcpyAsync ::hi::gpu::emu::cudaMemcpyAsync
#define cudaMemsetAsync ::hi::gpu::emu::cudaMemsetAsync
#define cudaDeviceSynchronize ::hi::gpu::emu::cudaDeviceSynchronize
#define cudaStreamCreateWithFlags ::hi::gpu::emu::cudaStreamCreateWithFlags
#define cudaStreamDestroy ::hi::gpu::emu::cudaStreamDestroy
#define cudaStreamSynchronize ::hi::gpu::emu::cudaStreamSynchronize
#define cudaStreamWaitEvent ::hi::gpu::emu::cudaStreamWaitEvent
#define cudaEventCreateWithFlags ::hi::gpu::emu::cudaEventCreateWithFlags
#define cudaEventDestroy ::hi::gpu::emu::cudaEventDestroy
#define cudaEventRecord ::hi::gpu::emu::cudaEventRecord
#define cudaEventQuery ::hi::gpu::emu::cudaEventQuery
#define cudaEventSynchronize ::hi::gpu::emu::cudaEventSynchronize
#define cudaEventElapsedTime ::hi::gpu::emu::cudaEventElapsedTime
#define cudaStreamBeginCapture ::hi::gpu::emu::cudaStreamBeginCapture
#define cudaStreamEndCapture ::hi::gpu::emu::cudaStreamEndCapture
#define cudaStreamIsCapturing ::hi::gpu::emu::cudaStreamIsCapturing
#define cudaGraphInstantiateWithFlags ::hi::gpu::emu::cudaGraphInstantiateWithFlags
#define cudaGraphLaunch ::hi::gpu::emu::cudaGraphLaunch
#define cudaGraphDestroy ::hi::gpu::emu::cudaGraphDestroy
#define cudaGraphExecDestroy ::hi::gpu::emu::cudaGraphExecDestroy

#include "backends/gpu/emu/matrix_units.h"  // nvcuda::wmma and the MFMA builtin
