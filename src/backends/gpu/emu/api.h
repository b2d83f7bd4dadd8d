// The emulated GPU's API in its own names (hi::gpu::emu), without the CUDA spellings that
// cuda_surface.h maps onto it: what the emulator's own sources include.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

namespace hi::gpu::emu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr Dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct UInt3 {
  unsigned x = 0, y = 0, z = 0;
};

class BlockRun;

// What one emulated thread sees: its indices and the block it belongs to.
struct ThreadContext {
  UInt3 thread_idx;
  UInt3 block_idx;
  Dim3 block_dim;
  Dim3 grid_dim;
  int linear = 0;      // threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)
  int warp_size = 32;  // the device's: 32 (NVIDIA-like) or 64 (AMD-like)
  BlockRun* block = nullptr;
};

// The emulated thread running on this host thread (null outside a kernel).
extern thread_local ThreadContext* current_thread;

// Barriers (scheduler.cc). syncthreads: every thread of the block; warp_barrier: every thread of
// the caller's warp (the collectives of matrix cores use it).
void syncthreads();
void warp_barrier();
// The block's dynamic shared memory (the launch's byte count, poisoned at block start).
void* dynamic_shared();
// Scratch that the lanes of the caller's warp share, for collectives (64 lanes x 1 KiB).
void* warp_scratch();
inline int lane_id() { return current_thread->linear % current_thread->warp_size; }
// Ends the calling block with an error that names the kernel (a misuse of a collective, ...).
[[noreturn]] void kernel_fault(const char* what);

// ---- float16 ---------------------------------------------------------------------------------
// Storage is the IEEE binary16 bits; arithmetic goes through float as the kernels do.
struct Half {
  uint16_t bits = 0;
};
inline float half_to_float(Half h) { return static_cast<float>(__builtin_bit_cast(_Float16, h.bits)); }
inline Half float_to_half_rn(float f) { return Half{__builtin_bit_cast(uint16_t, static_cast<_Float16>(f))}; }
inline Half ushort_as_half(unsigned short bits) { return Half{bits}; }
inline unsigned short half_as_ushort(Half h) { return h.bits; }

// ---- Runtime API -----------------------------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
  cudaErrorStreamCaptureWrongThread = 908,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorNoKernelImageForDevice = 209,
};

struct StreamImpl;
struct EventImpl;
struct GraphImpl;
using cudaStream_t = StreamImpl*;
using cudaEvent_t = EventImpl*;
using cudaGraph_t = GraphImpl*;
using cudaGraphExec_t = GraphImpl*;
// The per-thread default stream, as CUDA spells it (a reserved handle value).
inline cudaStream_t const cudaStreamPerThread = reinterpret_cast<cudaStream_t>(uintptr_t{2});

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
constexpr unsigned cudaStreamNonBlocking = 1;
constexpr unsigned cudaEventDefault = 0;
constexpr unsigned cudaEventDisableTiming = 2;
constexpr unsigned cudaHostAllocDefault = 0;

// The fields runtime.cu reads, plus the launch limits the scheduler enforces.
struct cudaDeviceProp {
  char name[256] = {};
  char gcnArchName[256] = {};
  size_t totalGlobalMem = 0;
  size_t sharedMemPerBlock = 0;
  int multiProcessorCount = 0;
  int warpSize = 32;
  int major = 0, minor = 0;
  int maxThreadsPerBlock = 1024;
  int maxThreadsDim[3] = {1024, 1024, 64};
  int maxGridSize[3] = {2147483647, 65535, 65535};
};

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* props, int device);
cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int len, int device);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorName(cudaError_t e);
const char* cudaGetErrorString(cudaError_t e);

cudaError_t cudaMalloc(void** ptr, size_t bytes);
template <typename T>
cudaError_t cudaMalloc(T** ptr, size_t bytes) {
  return cudaMalloc(reinterpret_cast<void**>(ptr), bytes);
}
cudaError_t cudaFree(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaDeviceSynchronize();

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);

// Queues a kernel launch on `stream` (recorded instead while the stream captures). `body` runs
// the kernel for the calling emulated thread. Errors (launch limits, a barrier not every thread
// reaches, a fault) come back through cudaGetLastError() with a message naming the kernel.
void launch(const char* kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes, cudaStream_t stream,
            std::function<void()> body);

// The kernel's name from a function's __PRETTY_FUNCTION__ whose template argument is the kernel
// ("... [with auto Kernel = hi::gpu::emu_backend::{anonymous}::relu_kernel<float>]").
const char* kernel_name_from_signature(const char* pretty_function);
template <auto Kernel>
const char* kernel_name() {
  static const char* const name = kernel_name_from_signature(__PRETTY_FUNCTION__);
  return name;
}

// Kernel coverage: every kernel instantiation in the program registers its name at start-up
// (launch_kernel<K> odr-uses KernelRegistration<K>::registered), every launch notes its name.
// With HI_EMU_COVERAGE_DIR set, the process writes both lists there at exit
// (tests/gpu/check_kernel_coverage.py compares them over the whole suite).
void register_kernel(const char* name);
void note_launched(const char* name);
template <auto Kernel>
struct KernelRegistration {
  static const bool registered;
};
template <auto Kernel>
const bool KernelRegistration<Kernel>::registered = (register_kernel(kernel_name<Kernel>()), true);
// Called by every launch of Kernel: registers it (at start-up, through the odr-use) and notes its
// first launch; later launches pay one initialised-static check.
template <auto Kernel>
void note_kernel_launch() {
  (void)KernelRegistration<Kernel>::registered;
  static const bool noted = (note_launched(kernel_name<Kernel>()), true);
  (void)noted;
}

}  // namespace hi::gpu::emu
