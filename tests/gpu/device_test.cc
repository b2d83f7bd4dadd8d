// One GPU backend's host interface and kernels, compiled once per backend: HI_GPU_NS names the
// backend (cuda_backend, hip_backend), HI_GPU_BACKEND its name in DeviceInfo ("cuda", "hip") and
// HI_GPU_TEST_SUITE the test suite (CudaBackend, HipBackend), so ctest names stay unique.
// Tests that need a device skip with "no GPU: <reason>" where the backend sees none (gpu_skip.h).
#include "hipinfer/device.h"

#include <gtest/gtest.h>

#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/fill.h"
#include "backends/gpu/kernels/probe.h"
#include "backends/gpu/matrix_cores.h"
#include "gpu/gpu_skip.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

TEST(HI_GPU_TEST_SUITE, ErrorStatusFromAFakeCode) {
  // Code 2 is out of memory in both runtimes (cudaErrorMemoryAllocation, hipErrorOutOfMemory).
  const Status s = error_status(2, "cudaMalloc(&ptr, huge)", __FILE__, 7);
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory);
  const std::string& m = s.message();
  EXPECT_NE(m.find("call cudaMalloc(&ptr, huge) failed"), std::string::npos) << m;
  EXPECT_NE(m.find("tests/gpu/device_test.cc:7: "), std::string::npos) << m;
  EXPECT_TRUE(m.find("ErrorOutOfMemory (2)") != std::string::npos ||
              m.find("ErrorMemoryAllocation (2)") != std::string::npos)
      << m;
  EXPECT_TRUE(m.find(" on device ") != std::string::npos || m.find("(device unknown)") != std::string::npos) << m;
}

TEST(HI_GPU_TEST_SUITE, DeviceCountAgreesWithQuery) {
  const GpuRuntimeInfo info = query_gpus();
  const GpuBackendInfo* b = this_backend(info);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(device_count(), b->device_count);
}

TEST(HI_GPU_TEST_SUITE, FillWritesEveryElement) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  // Sizes around the block size and past the grid cap (65535 blocks of 256), so the
  // grid-stride loop is exercised.
  for (const int64_t n : {int64_t{1}, int64_t{255}, int64_t{257}, int64_t{65535} * 256 + 3}) {
    SCOPED_TRACE(n);
    void* device = nullptr;
    const size_t bytes = static_cast<size_t>(n + 1) * sizeof(float);
    ASSERT_TRUE(device_malloc(&device, bytes).is_ok());
    std::vector<float> host(static_cast<size_t>(n + 1), -1.0f);
    ASSERT_TRUE(copy_to_device(device, host.data(), bytes).is_ok());
    const Status filled = fill_f32(static_cast<float*>(device), n, 3.5f, nullptr);
    EXPECT_TRUE(filled.is_ok()) << filled.to_string();
    EXPECT_TRUE(synchronize(nullptr).is_ok());
    ASSERT_TRUE(copy_to_host(host.data(), device, bytes).is_ok());
    EXPECT_TRUE(device_free(device).is_ok());
    int64_t wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += host[static_cast<size_t>(i)] != 3.5f;
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(host[static_cast<size_t>(n)], -1.0f) << "wrote past the end";
  }
}

TEST(HI_GPU_TEST_SUITE, FillRejectsNegativeCountWithoutAGpu) {
  const Status s = fill_f32(nullptr, -1, 0.0f, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(fill_f32(nullptr, 0, 0.0f, nullptr).is_ok());
}

TEST(HI_GPU_TEST_SUITE, FailedCallNamesTheDevice) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  void* ptr = nullptr;
  const Status s = device_malloc(&ptr, size_t{1} << 62);  // 4 EiB: no device has that
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.to_string();
  EXPECT_NE(s.message().find("failed on device 0 at src/backends/gpu/runtime.cu:"), std::string::npos) << s.message();
  // The failure was cleared: the next call succeeds.
  EXPECT_TRUE(synchronize(nullptr).is_ok());
}

TEST(HI_GPU_TEST_SUITE, ProbeAgreesWithTheRuntime) {
  SKIP_WITHOUT_GPU();
  const GpuRuntimeInfo info = query_gpus();
  for (const DeviceInfo& d : info.devices) {
    if (d.backend != HI_GPU_BACKEND) continue;
    SCOPED_TRACE(d.name + " " + d.arch);
    ASSERT_TRUE(set_device(d.index).is_ok());
    const Result<DeviceProbe> probe = probe_device();
    ASSERT_TRUE(probe.is_ok()) << probe.status().to_string();
    EXPECT_EQ(probe->warp_size, d.warp_size) << "warp_size() in vendor.h disagrees with the device";
    EXPECT_EQ(probe->runtime_warp_size, d.warp_size);
    // What the host decides from the arch name is what vendor.h gave this device's code.
    EXPECT_EQ(probe->f16_matrix_lanes, f16_matrix_lanes(d.arch)) << "matrix_cores.h and vendor.h disagree";
    EXPECT_EQ(has_f16_matrix_cores(d.index), probe->f16_matrix_lanes != 0 && probe->f16_matrix_lanes == d.warp_size);
    EXPECT_TRUE(probe->fp16);
    EXPECT_FALSE(probe->nvidia_mma && probe->amd_mfma);
    // The emulated GPU compiles once for both of its profiles (wmma and MFMA, picked by warp
    // size) and has no mma.sync: the arch names what its host side decides by, not its macros.
    if (d.backend == "emu") continue;
    if (d.arch == "sm_80" || d.arch == "sm_90") {
      EXPECT_TRUE(probe->nvidia_mma);
    }
    if (d.arch == "gfx90a" || d.arch == "gfx908") {
      EXPECT_TRUE(probe->amd_mfma);
    }
  }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
