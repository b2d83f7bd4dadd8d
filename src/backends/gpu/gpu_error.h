// Turning a failed GPU runtime call into a Status. Vendor-neutral: compiled once into the
// hipinfer library, called by each backend's HI_GPU_CHECK (common.cuh) with the runtime's own
// name and description of the error code.
#pragma once

#include "hipinfer/status.h"

namespace hi::gpu {

// Everything known about one failed runtime call.
struct GpuCallError {
  const char* runtime = "";  // "CUDA" or "HIP"
  const char* expr = "";     // the call as written: "cudaMalloc(&ptr, bytes)"
  const char* file = "";     // __FILE__ of the call; shortened to the path under the project
  int line = 0;
  int device = -1;               // the current device when it failed; -1 when that is unknown
  int code = 0;                  // the runtime's error code
  const char* code_name = "";    // "cudaErrorMemoryAllocation"
  const char* description = "";  // "out of memory"
  StatusCode status_code = StatusCode::kRuntimeError;
};

// The message reads
//   CUDA call cudaMalloc(&ptr, bytes) failed on device 0 at src/backends/gpu/x.cu:42:
//   cudaErrorMemoryAllocation (2): out of memory
// The description is left out when the runtime gives only the code name again (HIP 5.x does).
Status gpu_call_error(const GpuCallError& error);

// `file` from the project's source directory on ("src/backends/gpu/x.cu"); unchanged when it
// lies elsewhere.
const char* short_source_path(const char* file);

}  // namespace hi::gpu
