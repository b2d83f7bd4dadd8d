// Included first by every GPU source (*.cu): the vendor header, the backend's host interface and
// checked runtime calls.
#pragma once

// vendor.h first: it defines HI_GPU_NS, which device_api.h declares its functions in.
// clang-format off
#include "backends/gpu/vendor.h"
#include "backends/gpu/device_api.h"
// clang-format on
#include "hipinfer/status.h"

// HI_GPU_CHECK(expr): runs one runtime call and gives a Status: ok, or an error naming the call
// as written, the file, line and current device, and the runtime's name and text for the code:
//   HI_RETURN_IF_ERROR(HI_GPU_CHECK(cudaMemsetAsync(ptr, 0, bytes, stream)));
// The success path is one comparison.
#define HI_GPU_CHECK(expr) ::hi::gpu::HI_GPU_NS::check_call((expr), #expr, __FILE__, __LINE__)

// Returns early from a Status-returning function when the call fails.
#define HI_GPU_RETURN_IF_ERROR(expr) HI_RETURN_IF_ERROR(HI_GPU_CHECK(expr))

namespace hi::gpu::HI_GPU_NS {

inline Status check_call(cudaError_t result, const char* expr, const char* file, int line) {
  if (result == cudaSuccess) return Status::ok();
  return error_status(static_cast<int>(result), expr, file, line);
}

}  // namespace hi::gpu::HI_GPU_NS
