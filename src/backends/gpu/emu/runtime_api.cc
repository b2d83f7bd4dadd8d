// The emulated GPU's runtime API (cuda_surface.h): one device, memory, streams, events and graph
// capture. Work runs when it is queued, in queue order, on the calling host thread (kernels
// spread their blocks over the pool): a stream is a queue that is always drained, an event is
// done when recorded. What a GPU would reject is rejected, with a message that
// cudaGetErrorString() returns for the error:
//   - device memory comes from mmap with an inaccessible page after each allocation (its end
//     rounded to 256 bytes, as cudaMalloc aligns) and one before, the slack and the space before
//     the allocation filled with a canary checked at cudaFree; new memory is filled with 0xFF
//     (NaN in float32 and float16, -1 in integers), so reads of unwritten memory show;
//   - copies and memsets must lie inside one allocation on the device side;
//   - while a stream captures in global mode (any thread) or thread-local mode (this thread),
//     synchronous calls (cudaMalloc, cudaFree, cudaMemcpy, synchronisation) fail and invalidate
//     the capture, as CUDA's do; the graph records launches, copies and memsets and replays them.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/gpu/emu/scheduler.h"

#define HI_EMU_RETURN_IF_ERROR(expr)              \
  do {                                            \
    const cudaError_t hi_emu_e = (expr);          \
    if (hi_emu_e != cudaSuccess) return hi_emu_e; \
  } while (0)

namespace hi::gpu::emu {

// ---- Queued work ------------------------------------------------------------------------------
struct Op {
  enum Kind { kKernel, kCopy, kMemset } kind = kKernel;
  KernelLaunch kernel;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  int value = 0;
};

struct StreamImpl {
  bool capturing = false;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
  std::thread::id capture_thread;
  std::string invalidated;  // why the capture is invalid, "" while it is valid
  std::vector<Op> recorded;
};

struct EventImpl {
  bool timing = true;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
};

struct GraphImpl {
  std::vector<Op> ops;
};

namespace {

constexpr unsigned char kPoison = 0xFF, kCanary = 0xA5;
constexpr size_t kAlign = 256, kMinLead = 64;

struct Allocation {
  char* map = nullptr;
  size_t map_bytes = 0;
  size_t bytes = 0, rounded = 0;
};

struct State {
  std::mutex mutex;
  std::map<uintptr_t, Allocation> allocations;  // by user pointer
  std::set<void*> pinned;
  std::set<StreamImpl*> streams;
  std::set<EventImpl*> events;
  std::set<GraphImpl*> graphs;
  StreamImpl legacy_stream;
  size_t used = 0;
  int active_global_captures = 0;
};

State& state() {
  static State* s = new State();  // never destroyed: work may still be queued at exit
  return *s;
}

thread_local cudaError_t last_error = cudaSuccess;
thread_local cudaError_t detail_code = cudaSuccess;
thread_local std::string detail;
thread_local StreamImpl per_thread_stream;

size_t page_size() {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return page;
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

// A synchronous call made while a capture forbids it: fails and invalidates that capture.
bool capture_forbids(State& s, const char* call) {
  for (StreamImpl* stream : s.streams) {
    if (!stream->capturing) continue;
    const bool applies = stream->mode == cudaStreamCaptureModeGlobal ||
                         (stream->mode == cudaStreamCaptureModeThreadLocal && stream->capture_thread == std::this_thread::get_id());
    if (!applies) continue;
    if (stream->invalidated.empty()) stream->invalidated = std::string(call) + " was called during the capture";
    fail(cudaErrorStreamCaptureUnsupported, std::string(call) + " is not allowed while a stream captures a graph (" +
                                                (stream->mode == cudaStreamCaptureModeGlobal ? "global" : "thread-local") +
                                                " capture mode); the capture is invalidated");
    return true;
  }
  return false;
}

// The allocation that holds [p, p + bytes), or null.
const Allocation* find_device_range(State& s, const void* p, size_t bytes, uintptr_t* base) {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = s.allocations.upper_bound(at);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (at + bytes > it->first + it->second.bytes) return nullptr;
  *base = it->first;
  return &it->second;
}

cudaError_t check_device_range(State& s, const char* call, const char* which, const void* p, size_t bytes) {
  if (bytes == 0) return cudaSuccess;
  uintptr_t base = 0;
  if (find_device_range(s, p, bytes, &base)) return cudaSuccess;
  return fail(cudaErrorInvalidValue, std::string(call) + ": the " + which + " range [" + hex(p) + ", +" + std::to_string(bytes) +
                                         ") is not inside one allocation of the emulated device");
}

// Checks the canaries around an allocation: "" or what was overwritten.
std::string damaged_canary(uintptr_t user, const Allocation& a) {
  const char* p = reinterpret_cast<const char*>(user);
  const char* body = a.map + page_size();
  for (const char* q = body; q < p; ++q)
    if (static_cast<unsigned char>(*q) != kCanary)
      return std::to_string(p - q) + " bytes before the allocation of " + std::to_string(a.bytes) + " bytes at " + hex(p) +
             " were overwritten";
  for (size_t i = a.bytes; i < a.rounded; ++i)
    if (static_cast<unsigned char>(p[i]) != kCanary)
      return "byte " + std::to_string(i) + " of the allocation of " + std::to_string(a.bytes) + " bytes at " + hex(p) +
             " (past its end) was overwritten";
  return {};
}

cudaError_t run_op(const Op& op) {
  switch (op.kind) {
    case Op::kKernel: {
      std::string message;
      const cudaError_t e = run_kernel(op.kernel, device_profile(), &message);
      return e == cudaSuccess ? e : fail(e, message);
    }
    case Op::kCopy:
      std::memmove(op.dst, op.src, op.bytes);
      return cudaSuccess;
    case Op::kMemset:
      std::memset(op.dst, op.value, op.bytes);
      return cudaSuccess;
  }
  return cudaSuccess;
}

cudaError_t resolve_stream(cudaStream_t handle, StreamImpl** out) {
  State& s = state();
  if (handle == nullptr) *out = &s.legacy_stream;
  else if (handle == cudaStreamPerThread) *out = &per_thread_stream;
  else {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.streams.count(handle)) return fail(cudaErrorInvalidResourceHandle, "not a stream of the emulated device: " + hex(handle));
    *out = handle;
  }
  return cudaSuccess;
}

// Runs the op now, or records it when the stream captures.
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

void on_fault(int sig, siginfo_t* info, void*) {
  char where[512];
  describe_current_thread(where, sizeof where);
  char line[768];
  const int n = std::snprintf(line, sizeof line,
                              "emulated GPU: invalid memory access at %p%s%s (past a device allocation, into a guard page, "
                              "or a fiber's stack overflowed)\n",
                              info->si_addr, where[0] ? " in " : "", where);
  if (n > 0) (void)!write(2, line, static_cast<size_t>(std::min<int>(n, sizeof line - 1)));
  signal(sig, SIG_DFL);  // returning re-runs the access, which now ends the process as usual
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

}  // namespace

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

// ---- Memory -------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  *ptr = nullptr;
  if (capture_forbids(s, "cudaMalloc")) return cudaErrorStreamCaptureUnsupported;
  if (bytes == 0) return cudaSuccess;
  const size_t limit = device_profile().memory_bytes;
  const size_t rounded = (bytes + kAlign - 1) / kAlign * kAlign;
  if (rounded < bytes || rounded > limit - std::min(s.used, limit))
    return fail(cudaErrorMemoryAllocation, "out of memory on the emulated GPU: cudaMalloc of " + std::to_string(bytes) + " bytes with " +
                                               std::to_string(s.used) + " of " + std::to_string(limit) +
                                               " bytes in use (HI_EMU_MEMORY sets the size)");
  const size_t page = page_size();
  const size_t body = (rounded + kMinLead + page - 1) / page * page;
  Allocation a;
  a.map_bytes = body + 2 * page;
  a.bytes = bytes;
  a.rounded = rounded;
  void* m = mmap(nullptr, a.map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return fail(cudaErrorMemoryAllocation, "out of host memory for the emulated GPU's cudaMalloc of " + std::to_string(bytes) + " bytes");
  a.map = static_cast<char*>(m);
  mprotect(a.map + page, body, PROT_READ | PROT_WRITE);
  char* user = a.map + page + body - rounded;
  std::memset(a.map + page, kCanary, static_cast<size_t>(user - (a.map + page)));
  std::memset(user, kPoison, bytes);
  std::memset(user + bytes, kCanary, rounded - bytes);
  s.allocations[reinterpret_cast<uintptr_t>(user)] = a;
  s.used += rounded;
  *ptr = user;
  return cudaSuccess;
}

cudaError_t cudaFree(void* ptr) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (capture_forbids(s, "cudaFree")) return cudaErrorStreamCaptureUnsupported;
  if (!ptr) return cudaSuccess;
  const auto it = s.allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == s.allocations.end())
    return fail(cudaErrorInvalidValue, "cudaFree(" + hex(ptr) + "): not a pointer that cudaMalloc returned, or freed twice");
  const Allocation a = it->second;
  const std::string damage = damaged_canary(it->first, a);
  s.used -= a.rounded;
  s.allocations.erase(it);
  munmap(a.map, a.map_bytes);
  if (!damage.empty()) return fail(cudaErrorIllegalAddress, "emulated GPU: out-of-bounds write found at cudaFree: " + damage);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned) {
  *ptr = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  if (!*ptr) return fail(cudaErrorMemoryAllocation, "cudaHostAlloc of " + std::to_string(bytes) + " bytes failed");
  std::lock_guard<std::mutex> lock(state().mutex);
  state().pinned.insert(*ptr);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (ptr && !state().pinned.erase(ptr)) return fail(cudaErrorInvalidValue, "cudaFreeHost(" + hex(ptr) + "): not from cudaHostAlloc");
  }
  std::free(ptr);
  return cudaSuccess;
}

namespace {

cudaError_t check_copy(const char* call, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (dst_device) HI_EMU_RETURN_IF_ERROR(check_device_range(s, call, "destination", dst, bytes));
  if (src_device) HI_EMU_RETURN_IF_ERROR(check_device_range(s, call, "source", src, bytes));
  return cudaSuccess;
}

}  // namespace

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (capture_forbids(state(), "cudaMemcpy")) return cudaErrorStreamCaptureUnsupported;
  }
  HI_EMU_RETURN_IF_ERROR(check_copy("cudaMemcpy", dst, src, bytes, kind));
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  HI_EMU_RETURN_IF_ERROR(check_copy("cudaMemcpyAsync", dst, src, bytes, kind));
  Op op;
  op.kind = Op::kCopy;
  op.dst = dst;
  op.src = src;
  op.bytes = bytes;
  return enqueue(stream, std::move(op));
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
  {
    State& s = state();
    std::lock_guard<std::mutex> lock(s.mutex);
    HI_EMU_RETURN_IF_ERROR(check_device_range(s, "cudaMemsetAsync", "destination", dst, bytes));
  }
  Op op;
  op.kind = Op::kMemset;
  op.dst = dst;
  op.value = value;
  op.bytes = bytes;
  return enqueue(stream, std::move(op));
}

cudaError_t cudaDeviceSynchronize() {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (capture_forbids(state(), "cudaDeviceSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

// ---- Streams and events ---------------------------------------------------------------------------

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  auto* s = new StreamImpl();
  std::lock_guard<std::mutex> lock(state().mutex);
  state().streams.insert(s);
  *stream = s;
  return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().streams.erase(stream)) return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a stream: " + hex(stream));
  if (stream->capturing && stream->mode == cudaStreamCaptureModeGlobal) --state().active_global_captures;
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t handle) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream->capturing) {
    if (stream->invalidated.empty()) stream->invalidated = "cudaStreamSynchronize was called on the capturing stream";
    return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamSynchronize on a stream that is capturing a graph; the capture is invalidated");
  }
  if (capture_forbids(state(), "cudaStreamSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t handle, cudaEvent_t event, unsigned) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event)) return fail(cudaErrorInvalidResourceHandle, "cudaStreamWaitEvent: not an event: " + hex(event));
  return cudaSuccess;  // work runs in queue order when queued: the event is done already
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags) {
  auto* e = new EventImpl();
  e->timing = (flags & cudaEventDisableTiming) == 0;
  std::lock_guard<std::mutex> lock(state().mutex);
  state().events.insert(e);
  *event = e;
  return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.erase(event)) return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: not an event: " + hex(event));
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t handle) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event)) return fail(cudaErrorInvalidResourceHandle, "cudaEventRecord: not an event: " + hex(event));
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event)) return fail(cudaErrorInvalidResourceHandle, "cudaEventQuery: not an event: " + hex(event));
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(event)) return fail(cudaErrorInvalidResourceHandle, "cudaEventSynchronize: not an event: " + hex(event));
  if (capture_forbids(state(), "cudaEventSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().events.count(start) || !state().events.count(end))
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: not an event");
  if (!start->timing || !end->timing)
    return fail(cudaErrorInvalidResourceHandle, "cudaEventElapsedTime: an event was created with cudaEventDisableTiming");
  if (!start->recorded || !end->recorded) return fail(cudaErrorNotReady, "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

// ---- Graphs ----------------------------------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t handle, cudaStreamCaptureMode mode) {
  if (handle == nullptr) return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy default stream cannot capture");
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream->capturing) return fail(cudaErrorInvalidValue, "cudaStreamBeginCapture: the stream is capturing already");
  stream->capturing = true;
  stream->mode = mode;
  stream->capture_thread = std::this_thread::get_id();
  stream->invalidated.clear();
  stream->recorded.clear();
  if (mode == cudaStreamCaptureModeGlobal) ++state().active_global_captures;
  if (handle == cudaStreamPerThread) state().streams.insert(stream);  // so capture_forbids sees it
  return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t handle, cudaGraph_t* graph) {
  *graph = nullptr;
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!stream->capturing) return fail(cudaErrorInvalidValue, "cudaStreamEndCapture: the stream is not capturing");
  if (stream->mode != cudaStreamCaptureModeRelaxed && stream->capture_thread != std::this_thread::get_id())
    return fail(cudaErrorStreamCaptureWrongThread, "cudaStreamEndCapture from another thread than the one that began the capture");
  stream->capturing = false;
  if (stream->mode == cudaStreamCaptureModeGlobal) --state().active_global_captures;
  if (handle == cudaStreamPerThread) state().streams.erase(stream);
  std::vector<Op> ops = std::move(stream->recorded);
  stream->recorded.clear();
  if (!stream->invalidated.empty())
    return fail(cudaErrorStreamCaptureInvalidated, "the graph capture was invalidated: " + stream->invalidated);
  auto* g = new GraphImpl{std::move(ops)};
  state().graphs.insert(g);
  *graph = g;
  return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t handle, cudaStreamCaptureStatus* status) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  *status = !stream->capturing ? cudaStreamCaptureStatusNone
            : stream->invalidated.empty() ? cudaStreamCaptureStatusActive
                                          : cudaStreamCaptureStatusInvalidated;
  return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphs.count(graph)) return fail(cudaErrorInvalidResourceHandle, "cudaGraphInstantiate: not a graph");
  auto* e = new GraphImpl{graph->ops};
  state().graphs.insert(e);
  *exec = e;
  return cudaSuccess;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    if (!state().graphs.count(exec)) return fail(cudaErrorInvalidResourceHandle, "cudaGraphLaunch: not an instantiated graph");
  }
  for (const Op& op : exec->ops) HI_EMU_RETURN_IF_ERROR(enqueue(stream, op));
  return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (!state().graphs.erase(graph)) return fail(cudaErrorInvalidResourceHandle, "cudaGraphDestroy: not a graph");
  delete graph;
  return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) { return cudaGraphDestroy(exec); }

// ---- Launch -----------------------------------------------------------------------------------------

void launch(const char* kernel, Dim3 grid, Dim3 block, size_t dynamic_shared_bytes, cudaStream_t stream,
                          std::function<void()> body) {
  install_fault_handler();
  note_launched(kernel);
  Op op;
  op.kind = Op::kKernel;
  op.kernel = KernelLaunch{kernel, grid, block, dynamic_shared_bytes, std::move(body)};
  (void)enqueue(stream, std::move(op));  // an error stays as the last error, as a launch's does
}

}  // namespace hi::gpu::emu
