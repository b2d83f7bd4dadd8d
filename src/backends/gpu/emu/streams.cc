// Streams, events, graph capture and kernel launches of the emulated GPU. Work runs when queued,
// so events are done when recorded; while a stream captures in global mode (any thread) or
// thread-local mode (this thread), synchronous calls fail and invalidate the capture, as CUDA's
// do, and the graph records launches, copies and memsets and replays them.
#include <chrono>

#include "backends/gpu/emu/runtime_state.h"

namespace hi::gpu::emu {

cudaError_t cudaDeviceSynchronize() {
  std::lock_guard<std::mutex> lock(state().mutex);
  if (capture_forbids(state(), "cudaDeviceSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

cudaError_t check_event(const char* call, cudaEvent_t event) {
  if (state().events.count(event)) return cudaSuccess;
  return fail(cudaErrorInvalidResourceHandle, std::string(call) + ": not an event: " + hex(event));
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
  if (!state().streams.erase(stream))
    return fail(cudaErrorInvalidResourceHandle, "cudaStreamDestroy: not a stream: " + hex(stream));
  delete stream;
  return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t handle) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream->capturing) {
    if (stream->invalidated.empty()) stream->invalidated = "cudaStreamSynchronize was called on the capturing stream";
    return fail(cudaErrorStreamCaptureUnsupported,
                "cudaStreamSynchronize on a stream that is capturing a graph; the capture is invalidated");
  }
  if (capture_forbids(state(), "cudaStreamSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t handle, cudaEvent_t event, unsigned) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  HI_EMU_RETURN_IF_ERROR(check_event("cudaStreamWaitEvent", event));
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
  if (!state().events.erase(event))
    return fail(cudaErrorInvalidResourceHandle, "cudaEventDestroy: not an event: " + hex(event));
  delete event;
  return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t handle) {
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  HI_EMU_RETURN_IF_ERROR(check_event("cudaEventRecord", event));
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return cudaSuccess;
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  HI_EMU_RETURN_IF_ERROR(check_event("cudaEventQuery", event));
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  std::lock_guard<std::mutex> lock(state().mutex);
  HI_EMU_RETURN_IF_ERROR(check_event("cudaEventSynchronize", event));
  if (capture_forbids(state(), "cudaEventSynchronize")) return cudaErrorStreamCaptureUnsupported;
  return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  std::lock_guard<std::mutex> lock(state().mutex);
  HI_EMU_RETURN_IF_ERROR(check_event("cudaEventElapsedTime", start));
  HI_EMU_RETURN_IF_ERROR(check_event("cudaEventElapsedTime", end));
  if (!start->timing || !end->timing)
    return fail(cudaErrorInvalidResourceHandle,
                "cudaEventElapsedTime: an event was created with cudaEventDisableTiming");
  if (!start->recorded || !end->recorded)
    return fail(cudaErrorNotReady, "cudaEventElapsedTime: an event was never recorded");
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return cudaSuccess;
}

// ---- Graphs ----------------------------------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t handle, cudaStreamCaptureMode mode) {
  if (handle == nullptr)
    return fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy default stream cannot capture");
  StreamImpl* stream = nullptr;
  HI_EMU_RETURN_IF_ERROR(resolve_stream(handle, &stream));
  std::lock_guard<std::mutex> lock(state().mutex);
  if (stream->capturing) return fail(cudaErrorInvalidValue, "cudaStreamBeginCapture: the stream is capturing already");
  stream->capturing = true;
  stream->mode = mode;
  stream->capture_thread = std::this_thread::get_id();
  stream->invalidated.clear();
  stream->recorded.clear();
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
    return fail(cudaErrorStreamCaptureWrongThread,
                "cudaStreamEndCapture from another thread than the one that began the capture");
  stream->capturing = false;
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
  *status = !stream->capturing            ? cudaStreamCaptureStatusNone
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
    if (!state().graphs.count(exec))
      return fail(cudaErrorInvalidResourceHandle, "cudaGraphLaunch: not an instantiated graph");
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
  // An error stays as the last error, as a launch's does.
  (void)enqueue(stream, Op::launch(KernelLaunch{kernel, grid, block, dynamic_shared_bytes, std::move(body)}));
}

}  // namespace hi::gpu::emu
