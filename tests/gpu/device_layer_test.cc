// The device layer of one backend (device_api.h: properties, streams, events, pinned memory,
// asynchronous copies, graphs) and the caching allocator on its real devices. Compiled once per
// backend like device_test.cc; tests that need a device skip without one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/gpu/device_allocator.h"
#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/fill.h"
#include "gpu/gpu_skip.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

#define ASSERT_OK(expr)                                                  \
  do {                                                                   \
    const ::hi::Status hi_test_status_ = (expr);                         \
    ASSERT_TRUE(hi_test_status_.is_ok()) << hi_test_status_.to_string(); \
  } while (0)

// A pinned host buffer of bytes, freed at scope exit.
struct Pinned {
  explicit Pinned(size_t n) : bytes(n) { status = host_alloc_pinned(&ptr, n); }
  ~Pinned() {
    if (ptr) (void)host_free_pinned(ptr);
  }
  unsigned char* data() { return static_cast<unsigned char*>(ptr); }
  void* ptr = nullptr;
  size_t bytes;
  Status status;
};

TEST(HI_GPU_TEST_SUITE, BackendName) { EXPECT_STREQ(backend_name(), HI_GPU_BACKEND); }

TEST(HI_GPU_TEST_SUITE, AllocatorForAMissingDeviceIsAnError) {
  const Result<CachingAllocator*> a = device_allocator(device_count());
  ASSERT_FALSE(a.is_ok());
  EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(a.status().message().find(str("this backend sees ", device_count(), " device(s)")), std::string::npos)
      << a.status().message();
  EXPECT_FALSE(device_allocator(-1).is_ok());
}

TEST(HI_GPU_TEST_SUITE, PropertiesAgreeWithTheQuery) {
  SKIP_WITHOUT_GPU();
  for (const DeviceInfo& d : query_gpus().devices) {
    if (d.backend != HI_GPU_BACKEND) continue;
    const Result<DeviceInfo> p = device_properties(d.index);
    ASSERT_TRUE(p.is_ok()) << p.status().to_string();
    EXPECT_EQ(p->name, d.name);
    EXPECT_EQ(p->arch, d.arch);
    EXPECT_EQ(p->total_memory, d.total_memory);
    EXPECT_EQ(p->multiprocessors, d.multiprocessors);
    EXPECT_EQ(p->warp_size, d.warp_size);
    EXPECT_EQ(p->pci_bus_id, d.pci_bus_id);
    EXPECT_TRUE(p->warp_size == 32 || p->warp_size == 64) << p->warp_size;
    EXPECT_TRUE(p->arch.starts_with("sm_") || p->arch.starts_with("gfx")) << p->arch;
    EXPECT_GT(p->multiprocessors, 0);
  }
  EXPECT_FALSE(device_properties(device_count()).is_ok());
}

TEST(HI_GPU_TEST_SUITE, MemInfo) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  const Result<int> current = current_device();
  ASSERT_TRUE(current.is_ok());
  EXPECT_EQ(current.value(), 0);
  const Result<MemInfo> m = mem_info();
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  EXPECT_GT(m->total_bytes, 0u);
  EXPECT_LE(m->free_bytes, m->total_bytes);
}

TEST(HI_GPU_TEST_SUITE, AsyncCopiesMemsetAndEvents) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  constexpr size_t kBytes = (size_t{1} << 20) + 3;  // not a multiple of anything
  Pinned in(kBytes), out(kBytes);
  ASSERT_OK(in.status);
  ASSERT_OK(out.status);
  for (size_t i = 0; i < kBytes; ++i) in.data()[i] = static_cast<unsigned char>(i * 7 + 1);
  std::memset(out.data(), 0, kBytes);

  Result<Stream> s1 = stream_create(), s2 = stream_create();
  ASSERT_TRUE(s1.is_ok() && s2.is_ok());
  Result<Event> start = event_create(true), copied = event_create(true);
  ASSERT_TRUE(start.is_ok() && copied.is_ok());
  void *a = nullptr, *b = nullptr;
  ASSERT_OK(device_malloc(&a, kBytes));
  ASSERT_OK(device_malloc(&b, kBytes));

  // s1: upload, overwrite the middle, mark; s2: wait for the mark, copy a -> b, download.
  ASSERT_OK(event_record(start.value(), s1.value()));
  ASSERT_OK(copy_async(a, in.ptr, kBytes, CopyKind::kHostToDevice, s1.value()));
  ASSERT_OK(memset_async(static_cast<char*>(a) + 100, 0xab, 1000, s1.value()));
  ASSERT_OK(event_record(copied.value(), s1.value()));
  ASSERT_OK(stream_wait_event(s2.value(), copied.value()));
  ASSERT_OK(copy_async(b, a, kBytes, CopyKind::kDeviceToDevice, s2.value()));
  ASSERT_OK(copy_async(out.ptr, b, kBytes, CopyKind::kDeviceToHost, s2.value()));
  ASSERT_OK(synchronize(s2.value()));

  const Result<bool> done = event_query(copied.value());
  ASSERT_TRUE(done.is_ok());
  EXPECT_TRUE(done.value());
  ASSERT_OK(event_synchronize(copied.value()));
  const Result<float> ms = event_elapsed_ms(start.value(), copied.value());
  ASSERT_TRUE(ms.is_ok()) << ms.status().to_string();
  EXPECT_GE(ms.value(), 0.0f);
  size_t wrong = 0;
  for (size_t i = 0; i < kBytes; ++i) {
    const unsigned char want = i >= 100 && i < 1100 ? 0xab : static_cast<unsigned char>(i * 7 + 1);
    wrong += out.data()[i] != want;
  }
  EXPECT_EQ(wrong, 0u);

  ASSERT_OK(device_free(a));
  ASSERT_OK(device_free(b));
  ASSERT_OK(event_destroy(start.value()));
  ASSERT_OK(event_destroy(copied.value()));
  ASSERT_OK(stream_destroy(s1.value()));
  ASSERT_OK(stream_destroy(s2.value()));
}

TEST(HI_GPU_TEST_SUITE, ElapsedTimeNeedsTimingEvents) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  Result<Event> e = event_create(false);
  ASSERT_TRUE(e.is_ok());
  ASSERT_OK(event_record(e.value(), nullptr));
  ASSERT_OK(event_synchronize(e.value()));
  const Result<float> ms = event_elapsed_ms(e.value(), e.value());
  ASSERT_FALSE(ms.is_ok());
  EXPECT_NE(ms.status().message().find("EventElapsedTime"), std::string::npos) << ms.status().message();
  ASSERT_OK(event_destroy(e.value()));
  ASSERT_OK(synchronize(nullptr));  // the failure was cleared
}

TEST(HI_GPU_TEST_SUITE, PendingEventQueryLeavesNoErrorBehind) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  const int64_t n = int64_t{1} << 26;  // 256 MiB of fill: long enough to be pending, usually
  void* p = nullptr;
  ASSERT_OK(device_malloc(&p, static_cast<size_t>(n) * sizeof(float)));
  Result<Event> e = event_create(false);
  ASSERT_TRUE(e.is_ok());
  ASSERT_OK(fill_f32(static_cast<float*>(p), n, 1.0f, nullptr));
  ASSERT_OK(event_record(e.value(), nullptr));
  const Result<bool> first = event_query(e.value());  // false while the fill runs
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  // A "not ready" answer must not surface as the last error of the next checked launch.
  ASSERT_OK(fill_f32(static_cast<float*>(p), 1, 2.0f, nullptr));
  ASSERT_OK(event_synchronize(e.value()));
  const Result<bool> second = event_query(e.value());
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second.value());
  ASSERT_OK(event_destroy(e.value()));
  ASSERT_OK(device_free(p));
}

TEST(HI_GPU_TEST_SUITE, PerThreadStream) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  void* p = nullptr;
  ASSERT_OK(device_malloc(&p, 4096));
  ASSERT_OK(memset_async(p, 0x5a, 4096, per_thread_stream()));
  ASSERT_OK(synchronize(per_thread_stream()));
  std::vector<unsigned char> host(4096);
  ASSERT_OK(copy_to_host(host.data(), p, host.size()));
  for (unsigned char c : host) ASSERT_EQ(c, 0x5a);
  ASSERT_OK(device_free(p));
}

TEST(HI_GPU_TEST_SUITE, GraphCaptureAndReplay) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  constexpr size_t kBytes = 65536;
  void *a = nullptr, *b = nullptr;
  ASSERT_OK(device_malloc(&a, kBytes));
  ASSERT_OK(device_malloc(&b, kBytes));
  std::vector<unsigned char> zeros(kBytes, 0), host(kBytes);
  ASSERT_OK(copy_to_device(b, zeros.data(), kBytes));
  Result<Stream> s = stream_create();
  ASSERT_TRUE(s.is_ok());

  ASSERT_OK(begin_capture(s.value(), CaptureMode::kThreadLocal));
  Result<bool> capturing = is_capturing(s.value());
  ASSERT_TRUE(capturing.is_ok());
  EXPECT_TRUE(capturing.value());
  ASSERT_OK(memset_async(a, 0x11, kBytes, s.value()));
  ASSERT_OK(copy_async(b, a, kBytes, CopyKind::kDeviceToDevice, s.value()));
  Result<GraphExec> graph = end_capture(s.value());
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  capturing = is_capturing(s.value());
  ASSERT_TRUE(capturing.is_ok());
  EXPECT_FALSE(capturing.value());

  ASSERT_OK(synchronize(s.value()));
  ASSERT_OK(copy_to_host(host.data(), b, kBytes));
  EXPECT_EQ(host, zeros) << "captured work must not run before the graph is launched";
  for (int replay = 0; replay < 2; ++replay) {
    SCOPED_TRACE(replay);
    ASSERT_OK(copy_to_device(b, zeros.data(), kBytes));
    ASSERT_OK(graph_launch(graph.value(), s.value()));
    ASSERT_OK(synchronize(s.value()));
    ASSERT_OK(copy_to_host(host.data(), b, kBytes));
    EXPECT_EQ(host, std::vector<unsigned char>(kBytes, 0x11));
  }
  ASSERT_OK(graph_destroy(graph.value()));
  ASSERT_OK(stream_destroy(s.value()));
  ASSERT_OK(device_free(a));
  ASSERT_OK(device_free(b));
}

TEST(HI_GPU_TEST_SUITE, CachingAllocatorOnTheDevice) {
  SKIP_WITHOUT_GPU();
  ASSERT_OK(set_device(0));
  Result<CachingAllocator*> got = device_allocator(0);
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  CachingAllocator& alloc = *got.value();
  Result<CachingAllocator*> again = device_allocator(0);
  ASSERT_TRUE(again.is_ok());
  EXPECT_EQ(again.value(), &alloc) << "one allocator per device";
  const AllocatorStats before = alloc.stats();

  Result<Stream> s = stream_create();
  ASSERT_TRUE(s.is_ok());
  Result<void*> p = alloc.allocate(1000, s.value());
  ASSERT_TRUE(p.is_ok()) << p.status().to_string();
  ASSERT_OK(memset_async(p.value(), 0x3c, 1000, s.value()));
  std::vector<unsigned char> host(1000);
  ASSERT_OK(copy_async(host.data(), p.value(), 1000, CopyKind::kDeviceToHost, s.value()));
  ASSERT_OK(synchronize(s.value()));
  for (unsigned char c : host) ASSERT_EQ(c, 0x3c);
  ASSERT_OK(alloc.free(p.value(), s.value()));
  // Freed on s: s gets it back at once.
  Result<void*> q = alloc.allocate(1000, s.value());
  ASSERT_TRUE(q.is_ok());
  EXPECT_EQ(q.value(), p.value());
  ASSERT_OK(alloc.free(q.value(), s.value()));
  ASSERT_OK(alloc.validate());
  const AllocatorStats after = alloc.stats();
  EXPECT_EQ(after.allocations - before.allocations, 2);
  EXPECT_GE(after.cache_hits - before.cache_hits, 1);

  // A request no device can meet: the message has the numbers.
  Result<void*> huge = alloc.allocate(size_t{1} << 50, s.value());
  ASSERT_FALSE(huge.is_ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(huge.status().message().find(" device 0: out of memory asking for 1024.00 TiB"), std::string::npos)
      << huge.status().message();
  EXPECT_NE(huge.status().message().find("the device has "), std::string::npos);

  ASSERT_OK(alloc.reserve(size_t{8} << 20));
  ASSERT_OK(alloc.empty_cache());
  ASSERT_OK(synchronize(s.value()));
  ASSERT_OK(stream_destroy(s.value()));
  // Nothing is live, so empty_cache gave every segment back.
  EXPECT_EQ(alloc.stats().live_blocks, 0);
  EXPECT_EQ(alloc.stats().reserved_bytes, 0u);
  ASSERT_OK(synchronize(nullptr));
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
