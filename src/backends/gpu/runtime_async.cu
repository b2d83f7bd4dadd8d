// Host side of one GPU backend, asynchronous half: streams, events, pinned host memory,
// asynchronous copies and memsets, graph capture and replay (declared in device_api.h). Every
// runtime call goes through HI_GPU_CHECK; no kernels here.
#include "backends/gpu/common.cuh"

namespace hi::gpu::HI_GPU_NS {

namespace {

cudaStream_t as_stream(Stream s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t as_event(Event e) { return static_cast<cudaEvent_t>(e); }
cudaGraphExec_t as_graph(GraphExec g) { return static_cast<cudaGraphExec_t>(g); }

cudaMemcpyKind memcpy_kind(CopyKind kind) {
  switch (kind) {
    case CopyKind::kHostToDevice: return cudaMemcpyHostToDevice;
    case CopyKind::kDeviceToHost: return cudaMemcpyDeviceToHost;
    case CopyKind::kDeviceToDevice: return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDeviceToDevice;
}

cudaStreamCaptureMode capture_mode(CaptureMode mode) {
  switch (mode) {
    case CaptureMode::kGlobal: return cudaStreamCaptureModeGlobal;
    case CaptureMode::kThreadLocal: return cudaStreamCaptureModeThreadLocal;
    case CaptureMode::kRelaxed: return cudaStreamCaptureModeRelaxed;
  }
  return cudaStreamCaptureModeGlobal;
}

}  // namespace

// ---- Streams ---------------------------------------------------------------------------------

Result<Stream> stream_create() {
  cudaStream_t stream = nullptr;
  HI_GPU_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  return static_cast<Stream>(stream);
}

Status stream_destroy(Stream stream) { return HI_GPU_CHECK(cudaStreamDestroy(as_stream(stream))); }

Stream per_thread_stream() { return static_cast<Stream>(cudaStreamPerThread); }

// ---- Events ----------------------------------------------------------------------------------

Result<Event> event_create(bool timing) {
  cudaEvent_t event = nullptr;
  HI_GPU_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, timing ? cudaEventDefault : cudaEventDisableTiming));
  return static_cast<Event>(event);
}

Status event_destroy(Event event) { return HI_GPU_CHECK(cudaEventDestroy(as_event(event))); }

Status event_record(Event event, Stream stream) {
  return HI_GPU_CHECK(cudaEventRecord(as_event(event), as_stream(stream)));
}

Status stream_wait_event(Stream stream, Event event) {
  return HI_GPU_CHECK(cudaStreamWaitEvent(as_stream(stream), as_event(event), 0));
}

Result<bool> event_query(Event event) {
  const cudaError_t e = cudaEventQuery(as_event(event));
  if (e == cudaSuccess) return true;
  if (e == cudaErrorNotReady) {
    // "Not ready" is an answer, not a failure; HIP also records it as the last error, where a
    // later cudaGetLastError() check would take it for one.
    (void)cudaGetLastError();
    return false;
  }
  return HI_GPU_CHECK(e);
}

Status event_synchronize(Event event) {
  count(device_counters().host_syncs);
  return HI_GPU_CHECK(cudaEventSynchronize(as_event(event)));
}

Result<float> event_elapsed_ms(Event start, Event end) {
  float ms = 0;
  HI_GPU_RETURN_IF_ERROR(cudaEventElapsedTime(&ms, as_event(start), as_event(end)));
  return ms;
}

// ---- Pinned host memory, asynchronous copies -------------------------------------------------

Status host_alloc_pinned(void** ptr, size_t bytes) {
  return HI_GPU_CHECK(cudaHostAlloc(ptr, bytes, cudaHostAllocDefault));
}

Status host_free_pinned(void* ptr) { return HI_GPU_CHECK(cudaFreeHost(ptr)); }

Status copy_async(void* dst, const void* src, size_t bytes, CopyKind kind, Stream stream) {
  return HI_GPU_CHECK(cudaMemcpyAsync(dst, src, bytes, memcpy_kind(kind), as_stream(stream)));
}

Status memset_async(void* dst, int value, size_t bytes, Stream stream) {
  return HI_GPU_CHECK(cudaMemsetAsync(dst, value, bytes, as_stream(stream)));
}

// ---- Graph capture and replay ----------------------------------------------------------------

Status begin_capture(Stream stream, CaptureMode mode) {
  return HI_GPU_CHECK(cudaStreamBeginCapture(as_stream(stream), capture_mode(mode)));
}

Result<GraphExec> end_capture(Stream stream) {
  cudaGraph_t graph = nullptr;
  HI_GPU_RETURN_IF_ERROR(cudaStreamEndCapture(as_stream(stream), &graph));
  cudaGraphExec_t exec = nullptr;
  const Status instantiated = HI_GPU_CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  // The executable graph is independent of the captured one, which is no longer needed.
  const Status destroyed = HI_GPU_CHECK(cudaGraphDestroy(graph));
  HI_RETURN_IF_ERROR(instantiated);
  if (!destroyed.is_ok()) {
    (void)cudaGraphExecDestroy(exec);
    return destroyed;
  }
  return static_cast<GraphExec>(exec);
}

Result<bool> is_capturing(Stream stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  HI_GPU_RETURN_IF_ERROR(cudaStreamIsCapturing(as_stream(stream), &status));
  return status != cudaStreamCaptureStatusNone;
}

Status graph_launch(GraphExec graph, Stream stream) {
  count(device_counters().graph_launches);
  return HI_GPU_CHECK(cudaGraphLaunch(as_graph(graph), as_stream(stream)));
}

Status graph_destroy(GraphExec graph) { return HI_GPU_CHECK(cudaGraphExecDestroy(as_graph(graph))); }

}  // namespace hi::gpu::HI_GPU_NS
