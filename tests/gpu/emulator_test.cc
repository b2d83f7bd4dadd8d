// The emulated GPU itself (src/backends/gpu/emu): that it catches what a GPU would get wrong or
// reject, with errors naming the kernel. Compiled with HI_GPU_EMU=1, so the kernels below are
// written as for a GPU and launched through launch_kernel<>.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "backends/gpu/common.cuh"
#include "backends/gpu/emu/device_profile.h"
#include "backends/gpu/emu/scheduler.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// Under ctest every process of the suite leaves the kernels it launched in the build's coverage
// folder (check_kernel_coverage.py); an explicit HI_EMU_COVERAGE_DIR wins.
const bool coverage_folder_set = [] { return setenv("HI_EMU_COVERAGE_DIR", HI_EMU_COVERAGE_DIR, 0) == 0; }();

constexpr int kBlock = 64;

// Every thread writes its slot, then reads its left neighbour's: right only with the barrier.
// Dynamic shared memory, which is poisoned for every block (a static __shared__ array keeps the
// last block's values on its host thread).
__global__ void neighbour_kernel(int* out, bool with_barrier) {
  HI_DYNAMIC_SHARED(int, slots);
  const int t = static_cast<int>(threadIdx.x);
  slots[t] = t + 1;
  if (with_barrier) __syncthreads();
  out[t] = slots[(t + kBlock - 1) % kBlock];
}

// Threads of the upper half return before the barrier.
__global__ void divergent_barrier_kernel(int* out) {
  if (threadIdx.x >= blockDim.x / 2) return;
  __syncthreads();
  out[threadIdx.x] = 1;
}

// A block reduction through shared memory (the pattern of the row kernels).
__global__ void block_sum_kernel(const float* x, float* y, int n) {
  __shared__ float partial[256];
  const int t = static_cast<int>(threadIdx.x);
  float s = 0.f;
  for (int i = t; i < n; i += static_cast<int>(blockDim.x)) s += x[blockIdx.x * n + i];
  partial[t] = s;
  __syncthreads();
  for (int stride = static_cast<int>(blockDim.x) / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    __syncthreads();
  }
  if (t == 0) y[blockIdx.x] = partial[0];
}

__global__ void copy_kernel(const float* x, float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] = x[i];
}

// Reads the dynamic shared memory before anything wrote it.
__global__ void read_dynamic_shared_kernel(float* out) {
  HI_DYNAMIC_SHARED(float, buffer);
  out[threadIdx.x] = buffer[threadIdx.x];
}

__global__ void warp_size_kernel(int* out) { out[threadIdx.x] = warp_size(); }

class Emulator : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(set_device(0).is_ok()); }
  void TearDown() override { emu::mutable_device_profile().schedule = saved_schedule_; }
  void use_schedule(emu::Schedule s) { emu::mutable_device_profile().schedule = s; }

  template <typename T>
  T* device_buffer(size_t n) {
    void* p = nullptr;
    EXPECT_TRUE(device_malloc(&p, n * sizeof(T)).is_ok());
    buffers_.push_back(p);
    return static_cast<T*>(p);
  }
  template <typename T>
  std::vector<T> read(const T* p, size_t n) {
    std::vector<T> out(n);
    EXPECT_TRUE(copy_to_host(out.data(), p, n * sizeof(T)).is_ok());
    return out;
  }
  ~Emulator() override {
    for (void* p : buffers_) (void)device_free(p);
  }

 private:
  emu::Schedule saved_schedule_ = emu::device_profile().schedule;
  std::vector<void*> buffers_;
};

TEST_F(Emulator, BarrierMakesNeighboursWritesVisibleInEveryOrder) {
  for (emu::Schedule order : {emu::Schedule::kForward, emu::Schedule::kReverse, emu::Schedule::kShuffle}) {
    use_schedule(order);
    int* out = device_buffer<int>(kBlock);
    launch_kernel<neighbour_kernel>(1, kBlock, kBlock * sizeof(int), nullptr, out, true);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    const std::vector<int> got = read(out, kBlock);
    for (int t = 0; t < kBlock; ++t) ASSERT_EQ(got[t], (t + kBlock - 1) % kBlock + 1) << "thread " << t;
  }
}

TEST_F(Emulator, ReverseOrderExposesAMissingBarrier) {
  // In forward order thread t runs after t - 1 and happens to see its write; reversed, it reads
  // shared memory that no thread of this block has written yet.
  use_schedule(emu::Schedule::kReverse);
  int* out = device_buffer<int>(kBlock);
  launch_kernel<neighbour_kernel>(1, kBlock, kBlock * sizeof(int), nullptr, out, false);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<int> got = read(out, kBlock);
  int wrong = 0;
  for (int t = 0; t < kBlock; ++t) wrong += got[t] != (t + kBlock - 1) % kBlock + 1;
  EXPECT_GT(wrong, 0);
}

TEST_F(Emulator, BarrierNotReachedByEveryThreadIsAnErrorNamingTheKernel) {
  int* out = device_buffer<int>(kBlock);
  launch_kernel<divergent_barrier_kernel>(3, kBlock, 0, nullptr, out);
  const Status s = HI_GPU_CHECK(cudaGetLastError());
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("divergent_barrier_kernel"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("__syncthreads() reached by 32 of 64 threads"), std::string::npos) << s.message();
}

TEST_F(Emulator, BlockReductionMatchesTheHostOnAwkwardSizesInEveryOrder) {
  const int rows = 37, n = 1001;
  std::vector<float> x(static_cast<size_t>(rows) * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 113) - 56.f;
  for (emu::Schedule order : {emu::Schedule::kForward, emu::Schedule::kReverse, emu::Schedule::kShuffle}) {
    use_schedule(order);
    float* dx = device_buffer<float>(x.size());
    float* dy = device_buffer<float>(rows);
    ASSERT_TRUE(copy_to_device(dx, x.data(), x.size() * sizeof(float)).is_ok());
    launch_kernel<block_sum_kernel>(rows, 256, 0, nullptr, dx, dy, n);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
    const std::vector<float> y = read(dy, rows);
    for (int r = 0; r < rows; ++r) {
      double want = 0;
      for (int i = 0; i < n; ++i) want += x[static_cast<size_t>(r) * n + i];
      EXPECT_NEAR(y[r], want, 1e-3) << "row " << r;
    }
  }
}

TEST_F(Emulator, LaunchLimitsAreEnforcedNamingTheKernel) {
  float* p = device_buffer<float>(4);
  launch_kernel<copy_kernel>(1, 2048, 0, nullptr, p, p, 4);
  Status s = HI_GPU_CHECK(cudaGetLastError());
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("copy_kernel"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2048"), std::string::npos) << s.message();
  launch_kernel<copy_kernel>(dim3(1, 70000), 32, 0, nullptr, p, p, 4);
  s = HI_GPU_CHECK(cudaGetLastError());
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("grid (1,70000,1)"), std::string::npos) << s.message();
  launch_kernel<read_dynamic_shared_kernel>(1, 32, 1 << 20, nullptr, p);
  s = HI_GPU_CHECK(cudaGetLastError());
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("dynamic shared memory"), std::string::npos) << s.message();
}

TEST_F(Emulator, NewMemoryAndSharedMemoryReadAsNaN) {
  float* fresh = device_buffer<float>(33);
  for (float v : read(fresh, 33)) EXPECT_TRUE(std::isnan(v));
  float* out = device_buffer<float>(32);
  launch_kernel<read_dynamic_shared_kernel>(1, 32, 32 * sizeof(float), nullptr, out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  for (float v : read(out, 32)) EXPECT_TRUE(std::isnan(v));
}

TEST_F(Emulator, WriteJustPastAnAllocationIsReportedAtFree) {
  void* p = nullptr;
  ASSERT_TRUE(device_malloc(&p, 10 * sizeof(float)).is_ok());
  float* src = device_buffer<float>(11);
  launch_kernel<copy_kernel>(1, 32, 0, nullptr, src, static_cast<float*>(p), 11);  // one element too many
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const Status freed = device_free(p);
  ASSERT_FALSE(freed.is_ok());
  EXPECT_NE(freed.message().find("out-of-bounds write"), std::string::npos) << freed.message();
}

TEST(EmulatorDeathTest, ReadFarPastAnAllocationFaultsNamingTheKernel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        (void)set_device(0);
        void* p = nullptr;
        (void)device_malloc(&p, 64 * sizeof(float));
        void* q = nullptr;
        (void)device_malloc(&q, 8192 * sizeof(float));
        launch_kernel<copy_kernel>(32, 256, 0, nullptr, static_cast<const float*>(p), static_cast<float*>(q), 8192);
        (void)synchronize(nullptr);
      },
      "invalid memory access .* in kernel 'copy_kernel'");
}

TEST_F(Emulator, CopiesOutsideAnAllocationAreRefused) {
  float* p = device_buffer<float>(8);
  std::vector<float> host(16);
  const Status s = copy_to_device(p, host.data(), host.size() * sizeof(float));
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("not inside one allocation"), std::string::npos) << s.message();
}

TEST_F(Emulator, OutOfMemoryPastTheConfiguredSize) {
  const size_t saved = emu::device_profile().memory_bytes;
  emu::mutable_device_profile().memory_bytes = size_t{1} << 20;
  void* p = nullptr;
  const Status s = device_malloc(&p, size_t{2} << 20);
  emu::mutable_device_profile().memory_bytes = saved;
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kOutOfMemory) << s.message();
  EXPECT_NE(s.message().find("HI_EMU_MEMORY"), std::string::npos) << s.message();
}

TEST_F(Emulator, CaptureForbidsMallocAndReplaysLaunches) {
  auto stream = stream_create();
  ASSERT_TRUE(stream.is_ok());
  const int n = 300;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i) * 0.5f;
  float* dx = device_buffer<float>(n);
  float* dy = device_buffer<float>(n);
  ASSERT_TRUE(copy_to_device(dx, x.data(), n * sizeof(float)).is_ok());

  // A malloc inside a thread-local capture fails and invalidates it.
  ASSERT_TRUE(begin_capture(stream.value(), CaptureMode::kThreadLocal).is_ok());
  void* p = nullptr;
  EXPECT_FALSE(device_malloc(&p, 16).is_ok());
  const auto invalid = end_capture(stream.value());
  ASSERT_FALSE(invalid.is_ok());
  EXPECT_NE(invalid.status().message().find("cudaMalloc"), std::string::npos) << invalid.status().message();

  // Launches are recorded, not run, and run at each replay.
  ASSERT_TRUE(memset_async(dy, 0, n * sizeof(float), stream.value()).is_ok());
  ASSERT_TRUE(begin_capture(stream.value(), CaptureMode::kThreadLocal).is_ok());
  launch_kernel<copy_kernel>(2, 256, 0, static_cast<cudaStream_t>(stream.value()), static_cast<const float*>(dx), dy,
                             n);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  auto graph = end_capture(stream.value());
  ASSERT_TRUE(graph.is_ok()) << graph.status().message();
  EXPECT_EQ(read(dy, n)[7], 0.f);
  ASSERT_TRUE(graph_launch(graph.value(), stream.value()).is_ok());
  ASSERT_TRUE(synchronize(stream.value()).is_ok());
  EXPECT_EQ(read(dy, n), x);
  ASSERT_TRUE(graph_destroy(graph.value()).is_ok());
  ASSERT_TRUE(stream_destroy(stream.value()).is_ok());
}

TEST_F(Emulator, EventsTimeAndDisabledTimingIsRefused) {
  auto a = event_create(true), b = event_create(true), c = event_create(false);
  ASSERT_TRUE(a.is_ok() && b.is_ok() && c.is_ok());
  ASSERT_TRUE(event_record(a.value(), nullptr).is_ok());
  ASSERT_TRUE(event_record(b.value(), nullptr).is_ok());
  ASSERT_TRUE(event_record(c.value(), nullptr).is_ok());
  auto ms = event_elapsed_ms(a.value(), b.value());
  ASSERT_TRUE(ms.is_ok());
  EXPECT_GE(ms.value(), 0.f);
  EXPECT_FALSE(event_elapsed_ms(a.value(), c.value()).is_ok());
  for (Event e : {a.value(), b.value(), c.value()}) ASSERT_TRUE(event_destroy(e).is_ok());
}

TEST_F(Emulator, WarpSizeIsTheProfiles) {
  int* out = device_buffer<int>(64);
  launch_kernel<warp_size_kernel>(1, 64, 0, nullptr, out);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const int want = emu::device_profile().warp_size;
  for (int v : read(out, 64)) EXPECT_EQ(v, want);
  auto info = device_properties(0);
  ASSERT_TRUE(info.is_ok());
  EXPECT_EQ(info->warp_size, want);
  EXPECT_EQ(info->backend, "emu");
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
