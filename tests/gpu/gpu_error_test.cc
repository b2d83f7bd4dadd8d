// The message of a failed GPU runtime call, formatted from a fake error (no GPU needed).
#include "backends/gpu/gpu_error.h"

#include <gtest/gtest.h>

namespace hi::gpu {
namespace {

GpuCallError fake_error() {
  GpuCallError e;
  e.runtime = "CUDA";
  e.expr = "cudaMalloc(&ptr, bytes)";
  e.file = HI_TEST_SOURCE_DIR "/src/backends/gpu/kernels/fill.cu";
  e.line = 42;
  e.device = 1;
  e.code = 2;
  e.code_name = "cudaErrorMemoryAllocation";
  e.description = "out of memory";
  e.status_code = StatusCode::kOutOfMemory;
  return e;
}

TEST(GpuCallError, NamesCallPlaceDeviceAndError) {
  const Status s = gpu_call_error(fake_error());
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  EXPECT_EQ(s.message(),
            "CUDA call cudaMalloc(&ptr, bytes) failed on device 1 at "
            "src/backends/gpu/kernels/fill.cu:42: cudaErrorMemoryAllocation (2): out of memory");
}

TEST(GpuCallError, UnknownDeviceAndRepeatedDescription) {
  GpuCallError e = fake_error();
  e.runtime = "HIP";
  e.device = -1;
  e.code_name = "hipErrorOutOfMemory";
  e.description = "hipErrorOutOfMemory";  // HIP 5.x describes a code by its name
  e.file = "/elsewhere/x.cu";
  const Status s = gpu_call_error(e);
  EXPECT_EQ(s.message(),
            "HIP call cudaMalloc(&ptr, bytes) failed (device unknown) at /elsewhere/x.cu:42: "
            "hipErrorOutOfMemory (2)");
}

TEST(GpuCallError, NeverOk) {
  GpuCallError e = fake_error();
  e.status_code = StatusCode::kOk;  // a caller bug must not turn a failure into success
  EXPECT_EQ(gpu_call_error(e).code(), StatusCode::kRuntimeError);
}

}  // namespace
}  // namespace hi::gpu
