// The host interface of one GPU backend, in vendor-neutral types, so that code built by the
// host compiler (the GPU ops and partition runner, the tests) can call a backend without its runtime
// headers. Everything is declared in hi::gpu::HI_GPU_NS: GPU sources get HI_GPU_NS from
// vendor.h; a host source that drives one backend gets it from the build
// (-DHI_GPU_NS=cuda_backend or hip_backend; see tests/gpu/CMakeLists.txt).
#pragma once

#include <cstddef>

#include "hipinfer/device.h"
#include "hipinfer/status.h"

#ifndef HI_GPU_NS
#error "HI_GPU_NS must name a GPU backend namespace (cuda_backend or hip_backend)"
#endif

namespace hi::gpu::HI_GPU_NS {

// Runtime handles as opaque pointers. Stream: cudaStream_t / hipStream_t, nullptr is the
// (legacy) default stream. Event: cudaEvent_t / hipEvent_t. GraphExec: an instantiated graph,
// cudaGraphExec_t / hipGraphExec_t.
using Stream = void*;
using Event = void*;
using GraphExec = void*;

// The Status HI_GPU_CHECK (common.cuh) returns for a failed call: `code` is the runtime's error
// code (cudaError_t / hipError_t); the message has the call text, file, line, current device
// and the runtime's name and description of the code. Also clears the runtime's last error so
// the failure is not reported again by a later, unrelated check.
Status error_status(int code, const char* expr, const char* file, int line);

// "cuda" or "hip", as in DeviceInfo::backend.
const char* backend_name();

// Devices this backend sees; 0 when there is no GPU or no driver. Never fails.
int device_count();

// Makes `device` current for the calling thread.
Status set_device(int device);

// Device memory on the current device, uncached (the caching allocator, device_allocator.h,
// sits on top of these).
Status device_malloc(void** ptr, size_t bytes);
Status device_free(void* ptr);

// Synchronous copies between host and device memory, ordered after all work on the default
// stream.
Status copy_to_host(void* host_dst, const void* device_src, size_t bytes);
Status copy_to_device(void* device_dst, const void* host_src, size_t bytes);

// Waits for everything queued on `stream`.
Status synchronize(Stream stream);

// ---- Devices (runtime.cu) ----------------------------------------------------------------------

// The calling thread's current device.
Result<int> current_device();

// What the runtime reports for `device`: name, arch ("sm_90", "gfx90a"), total memory,
// multiprocessors, warp size (the device's, 64 on CDNA), compute capability and PCI bus id.
// free_memory is -1: reading it would create a context; use mem_info().
Result<DeviceInfo> device_properties(int device);

// Free and total memory of the current device, in bytes.
struct MemInfo {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
};
Result<MemInfo> mem_info();

// ---- Streams, events, pinned memory, asynchronous copies, graphs (runtime_async.cu) ------------
// Everything here acts on the current device; a stream or event belongs to the device that was
// current when it was created.

// A new stream that does not synchronise with the legacy default stream.
Result<Stream> stream_create();
Status stream_destroy(Stream stream);
// The calling thread's own default stream (cudaStreamPerThread / hipStreamPerThread): ordered
// only with other work of the same thread on it.
Stream per_thread_stream();

// `timing`: the event can measure elapsed time (costs a little at record time).
Result<Event> event_create(bool timing);
Status event_destroy(Event event);
// Captures the work queued on `stream` so far; done once that work has run.
Status event_record(Event event, Stream stream);
// Work queued on `stream` after this call waits until `event` is done (the host does not wait).
Status stream_wait_event(Stream stream, Event event);
// true once the event is done (or was never recorded); false while its work is pending.
Result<bool> event_query(Event event);
// Blocks the host until the event is done.
Status event_synchronize(Event event);
// Milliseconds between two done events created with timing.
Result<float> event_elapsed_ms(Event start, Event end);

// Page-locked host memory (cudaHostAlloc / hipHostMalloc): what asynchronous copies need to be
// asynchronous with respect to the host.
Status host_alloc_pinned(void** ptr, size_t bytes);
Status host_free_pinned(void* ptr);

enum class CopyKind { kHostToDevice, kDeviceToHost, kDeviceToDevice };
// Queued on `stream`; host memory should be pinned (pageable memory is copied synchronously).
Status copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, Stream stream);
// Queues bytes [dst, dst + bytes) = value (its low byte) on `stream`.
Status memset_async(void* dst, int value, size_t bytes, Stream stream);

// Graph capture: work queued on `stream` between begin_capture and end_capture is recorded, not
// run; end_capture instantiates it into a graph that graph_launch replays as one unit. Capture
// is not allowed on the legacy default stream. Modes as in CUDA: kGlobal forbids unsafe calls
// (synchronous copies, cudaMalloc) in every thread while capturing, kThreadLocal only in this
// thread, kRelaxed nowhere.
enum class CaptureMode { kGlobal, kThreadLocal, kRelaxed };
Status begin_capture(Stream stream, CaptureMode mode);
// Ends the capture and instantiates the graph; a capture invalidated by an unsupported call
// fails here.
Result<GraphExec> end_capture(Stream stream);
Result<bool> is_capturing(Stream stream);
Status graph_launch(GraphExec graph, Stream stream);
Status graph_destroy(GraphExec graph);

}  // namespace hi::gpu::HI_GPU_NS
