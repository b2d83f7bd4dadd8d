// The caching allocator against a fake device (fake_device_memory.h): runs on the CPU in every
// build. Sizes and addresses below follow from the policy in caching_allocator.h: 512-byte
// blocks, 2 MiB small segments, large segments rounded up to 2 MiB.
#include "backends/gpu/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "gpu/fake_device_memory.h"

namespace hi::gpu {
namespace {

using testing::FakeDeviceMemory;
using testing::FakeDeviceState;
using Stream = CachingAllocator::Stream;

constexpr size_t KiB = 1024;
constexpr size_t MiB = 1024 * KiB;
const Stream kA = reinterpret_cast<Stream>(0xa);
const Stream kB = reinterpret_cast<Stream>(0xb);

char* at(void* p) { return static_cast<char*>(p); }

class CachingAllocatorTest : public ::testing::Test {
 protected:
  void make(size_t capacity) {
    state = std::make_shared<FakeDeviceState>(capacity);
    alloc = std::make_unique<CachingAllocator>(std::make_unique<FakeDeviceMemory>(state));
  }
  void SetUp() override { make(size_t{1} << 30); }
  void TearDown() override {
    if (alloc) check();
  }

  void* get(size_t bytes, Stream stream) {
    Result<void*> r = alloc->allocate(bytes, stream);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? r.value() : nullptr;
  }
  void put(void* ptr, Stream stream) {
    const Status s = alloc->free(ptr, stream);
    EXPECT_TRUE(s.is_ok()) << s.to_string();
  }
  void check() {
    const Status v = alloc->validate();
    EXPECT_TRUE(v.is_ok()) << v.message();
    for (const std::string& m : state->misuse) ADD_FAILURE() << "fake device misuse: " << m;
  }

  std::shared_ptr<FakeDeviceState> state;
  std::unique_ptr<CachingAllocator> alloc;
};

TEST_F(CachingAllocatorTest, SmallRequestsShareOneSegment) {
  void* a = get(1000, kA);
  void* b = get(512, kA);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % CachingAllocator::kAlignment, 0u);
  EXPECT_EQ(alloc->block_size(a), 1024u);
  EXPECT_EQ(alloc->block_size(b), 512u);
  EXPECT_EQ(at(b), at(a) + 1024);
  const AllocatorStats s = alloc->stats();
  EXPECT_EQ(s.device_allocs, 1);
  EXPECT_EQ(s.reserved_bytes, 2 * MiB);
  EXPECT_EQ(s.allocated_bytes, 1536u);
  EXPECT_EQ(s.requested_bytes, 1512u);
  EXPECT_EQ(s.cache_hits, 1);  // b came from the rest of a's segment
  EXPECT_EQ(s.segments, 1);
  EXPECT_EQ(s.live_blocks, 2);
}

TEST_F(CachingAllocatorTest, ZeroBytesAndNullFree) {
  Result<void*> r = alloc->allocate(0, kA);
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r.value(), nullptr);
  EXPECT_TRUE(alloc->free(nullptr, kA).is_ok());
  EXPECT_EQ(alloc->stats().device_allocs, 0);
}

TEST_F(CachingAllocatorTest, SplitThenMergeBackIntoOneSegment) {
  void* a = get(4096, kA);
  void* b = get(4096, kA);
  void* c = get(4096, kA);
  EXPECT_EQ(at(b), at(a) + 4096);
  EXPECT_EQ(at(c), at(b) + 4096);
  put(b, kA);
  check();
  put(a, kA);  // merges with b: both wait on stream A
  check();
  AllocatorStats s = alloc->stats();
  EXPECT_EQ(s.cached_bytes, 2 * MiB - 4096);
  EXPECT_EQ(s.largest_free_block, 2 * MiB - 3 * 4096);  // the untouched rest of the segment
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - double(2 * MiB - 3 * 4096) / double(2 * MiB - 4096));
  // The merged a+b is exactly 8 KiB: best fit on its own stream.
  void* ab = get(8192, kA);
  EXPECT_EQ(ab, a);
  put(ab, kA);
  put(c, kA);
  check();
  state->complete(kA);
  // Once the events completed everything merges into one 2 MiB block again: a 1 MiB request on
  // another stream starts at the segment's base without a new device malloc.
  void* d = get(MiB, kB);
  EXPECT_EQ(d, a);
  s = alloc->stats();
  EXPECT_EQ(s.device_allocs, 1);
  put(d, kB);
  ASSERT_TRUE(alloc->empty_cache().is_ok());
  s = alloc->stats();
  EXPECT_EQ(s.device_frees, 1);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(state->used, 0u);
}

TEST_F(CachingAllocatorTest, NeverMergesAcrossSegments) {
  // The fake lays segments out back to back; a merge across them would free a 4 MiB "segment".
  void* a = get(MiB, kA);
  void* b = get(MiB, kA);
  void* c = get(MiB, kA);
  EXPECT_EQ(at(b), at(a) + MiB);
  EXPECT_EQ(at(c), at(a) + 2 * MiB);  // the second segment, right after the first
  EXPECT_EQ(alloc->stats().device_allocs, 2);
  put(a, kA);
  put(b, kA);
  put(c, kA);
  state->complete(kA);
  ASSERT_TRUE(alloc->empty_cache().is_ok());
  EXPECT_EQ(alloc->stats().device_frees, 2);
  EXPECT_EQ(state->releases, 2);
  EXPECT_TRUE(state->segments.empty());
}

TEST_F(CachingAllocatorTest, BestFitTakesTheSmallestBlockThatFits) {
  void* p8 = get(8 * KiB, nullptr);
  get(512, nullptr);  // separators keep the free blocks apart
  void* p4 = get(4 * KiB, nullptr);
  get(512, nullptr);
  void* p16 = get(16 * KiB, nullptr);
  get(512, nullptr);
  put(p8, nullptr);
  put(p4, nullptr);
  put(p16, nullptr);
  state->complete(nullptr);
  EXPECT_EQ(get(3000, kB), p4);             // 4 KiB fits best (rest 1 KiB split off)
  EXPECT_EQ(get(6000, kB), p8);             // then 8 KiB (rest 2 KiB)
  EXPECT_EQ(get(16 * KiB, kB), p16);        // exact fit
  EXPECT_EQ(get(2048, kB), at(p8) + 6144);  // the 2 KiB rest of p8, not the segment's tail
  EXPECT_EQ(alloc->stats().device_allocs, 1);
}

TEST_F(CachingAllocatorTest, SmallAndLargePoolsStayApart) {
  void* s1 = get(MiB, kA);  // small: at most 1 MiB
  EXPECT_EQ(alloc->block_size(s1), MiB);
  void* l1 = get(MiB + 1, kA);  // large: 1 MiB + 512 in its own 2 MiB segment, rest not split
  EXPECT_EQ(alloc->block_size(l1), 2 * MiB);
  EXPECT_EQ(alloc->stats().device_allocs, 2);
  void* s2 = get(MiB, kA);  // the small segment's other half
  EXPECT_EQ(at(s2), at(s1) + MiB);
  EXPECT_EQ(alloc->stats().device_allocs, 2);
  void* big = get(5 * MiB, kA);  // 6 MiB segment; the 1 MiB rest is not worth a large block
  EXPECT_EQ(alloc->block_size(big), 6 * MiB);
  EXPECT_EQ(alloc->stats().reserved_bytes, 10 * MiB);
  put(l1, kA);
  state->complete(kA);
  // A small request never takes the free 2 MiB large block: a new small segment instead.
  void* s3 = get(512, kA);
  EXPECT_NE(s3, l1);
  EXPECT_EQ(alloc->stats().device_allocs, 4);
  // A large block splits when the rest is large: 3 MiB out of a reserved 8 MiB segment.
  ASSERT_TRUE(alloc->reserve(8 * MiB).is_ok());
  EXPECT_EQ(alloc->stats().device_allocs, 5);
  void* l2 = get(3 * MiB, kB);
  EXPECT_EQ(alloc->block_size(l2), 3 * MiB);
  EXPECT_EQ(alloc->stats().device_allocs, 5);
  EXPECT_EQ(alloc->stats().largest_free_block, 5 * MiB);
}

TEST_F(CachingAllocatorTest, BlockFreedOnOneStreamWaitsForItsEventBeforeAnotherStream) {
  void* p = get(4096, kA);
  put(p, kA);
  void* q = get(4096, kB);
  EXPECT_NE(q, p) << "stream B got a block whose free on stream A has not completed";
  void* r = get(4096, kA);
  EXPECT_EQ(r, p) << "stream A should reuse its own freed block at once";
  put(r, kA);
  // Use up the rest of the small segment on B, so p (pending on A) is the only free block.
  get(MiB, kB);
  get(MiB - 8192, kB);
  EXPECT_EQ(alloc->stats().device_allocs, 1);
  void* u = get(4096, kB);
  EXPECT_NE(u, p);
  EXPECT_EQ(alloc->stats().device_allocs, 2) << "B had to get a new segment";
  state->complete(kA);
  EXPECT_EQ(get(4096, kB), p) << "after A's event completed, B may take the block";
}

TEST_F(CachingAllocatorTest, FreeFollowsTheStreamNamedAtFree) {
  void* p = get(4096, kA);
  put(p, kB);  // last used on B
  void* a = get(4096, kA);
  EXPECT_NE(a, p);
  EXPECT_EQ(get(4096, kB), p);
  // free(ptr) without a stream: the stream it was allocated on.
  void* v = get(8192, kA);
  ASSERT_TRUE(alloc->free(v).is_ok());
  EXPECT_NE(get(8192, kB), v);
  EXPECT_EQ(get(8192, kA), v);
}

TEST_F(CachingAllocatorTest, ReserveAndEmptyCache) {
  ASSERT_TRUE(alloc->reserve(0).is_ok());
  EXPECT_EQ(alloc->stats().device_allocs, 0);
  ASSERT_TRUE(alloc->reserve(3 * MiB).is_ok());
  AllocatorStats s = alloc->stats();
  EXPECT_EQ(s.reserved_bytes, 4 * MiB);
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.largest_free_block, 4 * MiB);
  EXPECT_EQ(s.fragmentation, 0.0);
  void* x = get(3 * MiB, kA);
  s = alloc->stats();
  EXPECT_EQ(s.device_allocs, 1);
  EXPECT_EQ(s.cache_hits, 1);
  ASSERT_TRUE(alloc->empty_cache().is_ok());  // the segment is in use: kept
  EXPECT_EQ(alloc->stats().reserved_bytes, 4 * MiB);
  put(x, kA);  // pending: empty_cache waits for the event, then frees
  ASSERT_TRUE(alloc->empty_cache().is_ok());
  s = alloc->stats();
  EXPECT_GE(state->waits, 1);
  EXPECT_EQ(s.device_frees, 1);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.peak_reserved_bytes, 4 * MiB);
  EXPECT_EQ(state->used, 0u);
}

TEST_F(CachingAllocatorTest, StatisticsAfterAKnownSequence) {
  void* a = get(100, kA);  // 512-byte block in a 2 MiB small segment
  get(3 * MiB, kA);        // large: 4 MiB segment, 1 MiB rest kept in the block
  get(700 * KiB, kA);      // 700 KiB from the small segment's rest
  put(a, kA);
  AllocatorStats s = alloc->stats();
  EXPECT_EQ(s.allocated_bytes, 4 * MiB + 700 * KiB);
  EXPECT_EQ(s.requested_bytes, 3 * MiB + 700 * KiB);
  EXPECT_EQ(s.reserved_bytes, 6 * MiB);
  EXPECT_EQ(s.peak_allocated_bytes, 512 + 4 * MiB + 700 * KiB);
  EXPECT_EQ(s.peak_reserved_bytes, 6 * MiB);
  EXPECT_EQ(s.cached_bytes, 2 * MiB - 700 * KiB);
  const size_t rest = 2 * MiB - 512 - 700 * KiB;  // the small segment's free tail
  EXPECT_EQ(s.largest_free_block, rest);
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - double(rest) / double(2 * MiB - 700 * KiB));
  EXPECT_EQ(s.allocations, 3);
  EXPECT_EQ(s.frees, 1);
  EXPECT_EQ(s.cache_hits, 1);
  EXPECT_EQ(s.device_allocs, 2);
  EXPECT_EQ(s.device_frees, 0);
  EXPECT_EQ(s.live_blocks, 2);
  EXPECT_EQ(s.segments, 2);
  EXPECT_EQ(s.cache_flushes, 0);
  alloc->reset_peaks();
  s = alloc->stats();
  EXPECT_EQ(s.peak_allocated_bytes, s.allocated_bytes);
  EXPECT_EQ(s.peak_reserved_bytes, 6 * MiB);
}

TEST_F(CachingAllocatorTest, OutOfMemoryFreesTheCacheRetriesThenExplains) {
  make(8 * MiB);
  void* x = get(3 * MiB, kA);  // 4 MiB segment
  put(x, kA);                  // cached, its event still pending
  void* y = get(6 * MiB, kA);  // 4 + 6 > 8: fails, cache freed (waiting for x's event), retried
  ASSERT_NE(y, nullptr);
  AllocatorStats s = alloc->stats();
  EXPECT_EQ(s.cache_flushes, 1);
  EXPECT_EQ(s.device_frees, 1);
  EXPECT_EQ(s.reserved_bytes, 6 * MiB);
  EXPECT_EQ(state->failed_mallocs, 1);
  EXPECT_GE(state->waits, 1);

  Result<void*> z = alloc->allocate(16 * MiB, kB);
  ASSERT_FALSE(z.is_ok());
  EXPECT_EQ(z.status().code(), StatusCode::kOutOfMemory);
  const std::string& m = z.status().message();
  for (const char* part : {
           "fake device 0: out of memory asking for 16.00 MiB (16777216 bytes) on stream 0xb",
           "the device has 2.00 MiB (2097152 bytes) free of 8.00 MiB (8388608 bytes)",
           "this allocator holds 6.00 MiB (6291456 bytes) reserved, of which 6.00 MiB "
           "(6291456 bytes) allocated in 1 live blocks",
           "its largest free block is 0 bytes",
           "retrying once",
           "The device said: fake: out of memory",
       })
    EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
  EXPECT_EQ(alloc->stats().cache_flushes, 2);
  put(y, kA);
  EXPECT_NE(get(6 * MiB, kA), nullptr);  // still usable afterwards
}

TEST_F(CachingAllocatorTest, RequestTooLargeToRoundFailsWithoutTouchingTheDevice) {
  Result<void*> r = alloc->allocate(std::numeric_limits<size_t>::max(), kA);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(r.status().message().find("larger than any device"), std::string::npos);
  EXPECT_EQ(state->mallocs + state->failed_mallocs, 0);
  EXPECT_EQ(alloc->reserve(std::numeric_limits<size_t>::max()).code(), StatusCode::kOutOfMemory);
}

TEST_F(CachingAllocatorTest, OtherDeviceErrorsAreNotRetried) {
  state->fail_mallocs_with_runtime_error = true;
  Result<void*> r = alloc->allocate(4096, kA);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kRuntimeError);
  EXPECT_EQ(r.status().message(),
            "fake device 0: allocating a 2.00 MiB (2097152 bytes) segment failed: fake: the "
            "device fell off the bus");
  EXPECT_EQ(alloc->stats().cache_flushes, 0);
  EXPECT_EQ(state->failed_mallocs, 1);
}

TEST_F(CachingAllocatorTest, BadFreesAreErrors) {
  void* p = get(4096, kA);
  Status s = alloc->free(at(p) + 512, kA);  // inside a block, not its start
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fake device 0: free of 0x"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("not a live allocation"), std::string::npos) << s.message();
  put(p, kA);
  s = alloc->free(p, kA);  // twice
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.to_string();
  EXPECT_EQ(alloc->stats().frees, 1);
}

TEST_F(CachingAllocatorTest, FailedEventRecordKeepsTheBlockAllocated) {
  void* p = get(4096, kA);
  state->fail_records = true;
  const Status s = alloc->free(p, kA);
  EXPECT_EQ(s.code(), StatusCode::kRuntimeError);
  EXPECT_NE(s.message().find("the block stays allocated"), std::string::npos) << s.message();
  EXPECT_EQ(alloc->block_size(p), 4096u);
  EXPECT_EQ(alloc->stats().live_blocks, 1);
  check();
  state->fail_records = false;
  put(p, kA);
  EXPECT_EQ(alloc->stats().live_blocks, 0);
}

TEST_F(CachingAllocatorTest, DestructionGivesEverythingBack) {
  get(4096, kA);              // still live
  put(get(3 * MiB, kA), kB);  // pending event
  ASSERT_TRUE(alloc->reserve(2 * MiB).is_ok());
  check();
  alloc.reset();
  EXPECT_EQ(state->used, 0u);
  EXPECT_TRUE(state->segments.empty());
  EXPECT_TRUE(state->events.empty()) << state->events.size() << " events not destroyed";
  EXPECT_TRUE(state->misuse.empty());
}

}  // namespace
}  // namespace hi::gpu
