// The emulated GPU's runtime state, shared by its runtime files: device.cc (the device, errors,
// queued work, the fault handler), memory.cc (allocations, copies) and streams.cc (streams,
// events, graphs, launches). Work runs when it is queued, in queue order, on the calling host
// thread (kernels spread their blocks over the pool): a stream is a queue that is always drained,
// an event is done when recorded. What a GPU would reject is rejected, with a message that
// cudaGetErrorString() returns for the error (see each file). Internal to the emulated backend.
#pragma once

#include <cstdint>
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

  static Op copy(void* dst, const void* src, size_t bytes) { return Op{kCopy, {}, dst, src, bytes, 0}; }
  static Op memset(void* dst, int value, size_t bytes) { return Op{kMemset, {}, dst, nullptr, bytes, value}; }
  static Op launch(KernelLaunch k) { return Op{kKernel, std::move(k), nullptr, nullptr, 0, 0}; }
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

// A device allocation (memory.cc): the mapping, guard pages included, and the user's bytes.
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
};

State& state();

// Records the error as this thread's last, with its message for cudaGetErrorString(); returns it.
cudaError_t fail(cudaError_t code, std::string message);
std::string hex(const void* p);
// A synchronous call made while a capture forbids it: fails and invalidates that capture. Call
// with state().mutex held.
bool capture_forbids(State& s, const char* call);
cudaError_t resolve_stream(cudaStream_t handle, StreamImpl** out);
// Runs the op now, or records it when the stream captures.
cudaError_t enqueue(cudaStream_t handle, Op op);
// Fails with "CALL: not an event" unless `event` is one of this device's. Call with
// state().mutex held.
cudaError_t check_event(const char* call, cudaEvent_t event);
// A fault inside a kernel prints its kernel, block and thread before the process ends.
void install_fault_handler();

}  // namespace hi::gpu::emu
