// The emulated GPU's device, errors and queued work (runtime_state.h): one device, described by
// the profile (device_profile.h); errors keep their message for cudaGetErrorString(); a memory
// fault inside a kernel names the kernel, block and thread.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "backends/gpu/emu/runtime_state.h"

namespace hi::gpu::emu {
namespace {

thread_local cudaError_t last_error = cudaSuccess;
thread_local cudaError_t detail_code = cudaSuccess;
thread_local std::string detail;
thread_local StreamImpl per_thread_stream;

cudaError_t run_op(const Op& op) {
  switch (op.kind) {
    case Op::kKernel: {
      std::string message;
      const cudaError_t e = run_kernel(op.kernel, device_profile(), &message);
      return e == cudaSuccess ? e : fail(e, message);
    }
    case Op::kCopy: std::memmove(op.dst, op.src, op.bytes); return cudaSuccess;
    case Op::kMemset: std::memset(op.dst, op.value, op.bytes); return cudaSuccess;
  }
  return cudaSuccess;
}

void on_fault(int sig, siginfo_t* info, void*) {
  char where[512];
  describe_current_thread(where, sizeof where);
  char line[768];
  // The handler sees every fault of the process; only one inside a kernel is surely the device's.
  const int n = where[0]
                    ? std::snprintf(line, sizeof line,
                                    "emulated GPU: invalid memory access at %p in %s (past a device allocation, into "
                                    "a guard page, or a fiber's stack overflowed)\n",
                                    info->si_addr, where)
                    : std::snprintf(line, sizeof line,
                                    "invalid memory access at %p outside any emulated GPU kernel (a host-side bug, "
                                    "or a copy past an emulated device allocation)\n",
                                    info->si_addr);
  if (n > 0) (void)!write(2, line, static_cast<size_t>(std::min<int>(n, sizeof line - 1)));
  signal(sig, SIG_DFL);  // returning re-runs the access, which now ends the process as usual
}

}  // namespace

State& state() {
  static State* s = new State();  // never destroyed: work may still be queued at exit
  return *s;
}

cudaError_t fail(cudaError_t code, std::string message) {
  last_error = code;
  detail_code = code;
  detail = std::move(message);
  return code;
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

bool capture_forbids(State& s, const char* call) {
  for (StreamImpl* stream : s.streams) {
    if (!stream->capturing) continue;
    const bool applies =
        stream->mode == cudaStreamCaptureModeGlobal ||
        (stream->mode == cudaStreamCaptureModeThreadLocal && stream->capture_thread == std::this_thread::get_id());
    if (!applies) continue;
    if (stream->invalidated.empty()) stream->invalidated = std::string(call) + " was called during the capture";
    fail(cudaErrorStreamCaptureUnsupported,
         std::string(call) + " is not allowed while a stream captures a graph (" +
             (stream->mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local") +
             " capture mode); the capture is invalidated");
    return true;
  }
  return false;
}

cudaError_t resolve_stream(cudaStream_t handle, StreamImpl** out) {
  State& s = state();
  if (handle == nullptr) *out = &s.legacy_stream;
  else if (handle == cudaStreamPerThread) *out = &per_thread_stream;
  else {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.streams.count(handle))
      return fail(cudaErrorInvalidResourceHandle, "not a stream of the emulated device: " + hex(handle));
    *out = handle;
  }
  return cudaSuccess;
}

cudaError_t enqueue(cudaStream_t handle, Op op) {
  StreamImpl* stream = nullptr;
  if (const cudaError_t e = resolve_stream(handle, &stream); e != cudaSuccess) return e;
  if (stream->capturing) {
    std::lock_guard<std::mutex> lock(state().mutex);
    stream->recorded.push_back(std::move(op));
    return cudaSuccess;
  }
  return run_op(op);
}

void install_fault_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_sigaction = &on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
  });
}

// ---- Device -------------------------------------------------------------------------------------

cudaError_t cudaGetDeviceCount(int* count) {
  const DeviceProfile& p = device_profile();
  if (!p.error.empty()) {
    *count = 0;
    return fail(cudaErrorInitializationError, "the emulated GPU is not offered: " + p.error);
  }
  install_fault_handler();
  *count = 1;
  return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
  install_fault_handler();
  if (device == 0 && device_profile().error.empty()) return cudaSuccess;
  return fail(cudaErrorInvalidDevice, "the emulated GPU has one device, 0; asked for " + std::to_string(device));
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* props, int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return e;
  const DeviceProfile& p = device_profile();
  *props = cudaDeviceProp{};
  std::snprintf(props->name, sizeof props->name, "%s", p.name.c_str());
  if (p.arch.rfind("gfx", 0) == 0) std::snprintf(props->gcnArchName, sizeof props->gcnArchName, "%s", p.arch.c_str());
  props->totalGlobalMem = p.memory_bytes;
  props->sharedMemPerBlock = p.shared_bytes_per_block;
  props->multiProcessorCount = p.host_threads;
  props->warpSize = p.warp_size;
  props->major = p.compute_major;
  props->minor = p.compute_minor;
  props->maxThreadsPerBlock = p.max_threads_per_block;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetPCIBusId(char* bus_id, int len, int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) return e;
  std::snprintf(bus_id, static_cast<size_t>(len), "emulated");
  return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = 1;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
  *version = 1;
  return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *total_bytes = device_profile().memory_bytes;
  *free_bytes = *total_bytes - std::min(s.used, *total_bytes);
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  const cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() { return last_error; }

const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorStreamCaptureUnsupported: return "cudaErrorStreamCaptureUnsupported";
    case cudaErrorStreamCaptureInvalidated: return "cudaErrorStreamCaptureInvalidated";
    case cudaErrorStreamCaptureWrongThread: return "cudaErrorStreamCaptureWrongThread";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorNoKernelImageForDevice: return "cudaErrorNoKernelImageForDevice";
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t e) {
  // The detailed message of this thread's latest error of that code (it names the kernel, the
  // call or the allocation), else the code's name.
  if (e == detail_code && !detail.empty()) return detail.c_str();
  return cudaGetErrorName(e);
}

}  // namespace hi::gpu::emu
