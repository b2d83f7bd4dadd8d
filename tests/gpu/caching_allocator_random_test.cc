// Random alloc/free sequences on the fake device, checked after every step: live blocks never
// overlap, a block freed on one stream is never handed to another stream before the event of
// that free completed, the statistics agree with what the test and the fake device see, and
// the allocator's own structure is consistent (validate()).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "backends/gpu/caching_allocator.h"
#include "gpu/fake_device_memory.h"

namespace hi::gpu {
namespace {

using testing::FakeDeviceMemory;
using testing::FakeDeviceState;
using Stream = CachingAllocator::Stream;

constexpr size_t MiB = size_t{1} << 20;

Stream stream_number(int i) { return reinterpret_cast<Stream>(static_cast<uintptr_t>(0x100 + i)); }

struct Live {
  size_t bytes;
  Stream stream;
};

// Memory freed on `stream` whose free event (fake record) may not have completed yet.
struct Freed {
  uintptr_t begin, end;
  Stream stream;
  int64_t record;
};

// Log-uniform sizes from 1 byte to 8 MiB, so both pools and every split rule get exercised.
size_t random_size(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> exponent(0.0, 23.0);
  return static_cast<size_t>(std::exp2(exponent(rng))) + (rng() % 7);
}

void run_random_sequence(uint64_t seed, size_t capacity) {
  SCOPED_TRACE(::testing::Message() << "seed " << seed << ", capacity " << capacity);
  auto state = std::make_shared<FakeDeviceState>(capacity);
  CachingAllocator alloc(std::make_unique<FakeDeviceMemory>(state));
  std::mt19937_64 rng(seed);
  std::map<uintptr_t, Live> live;
  std::vector<Freed> freed;
  int64_t out_of_memory = 0;

  for (int step = 0; step < 3000; ++step) {
    const int action = static_cast<int>(rng() % 100);
    const Stream stream = stream_number(static_cast<int>(rng() % 3));
    if (action < 55 || live.empty()) {
      const size_t bytes = random_size(rng);
      Result<void*> r = alloc.allocate(bytes, stream);
      if (!r.is_ok()) {
        ASSERT_EQ(r.status().code(), StatusCode::kOutOfMemory) << r.status().to_string();
        ++out_of_memory;
      } else {
        const auto begin = reinterpret_cast<uintptr_t>(r.value());
        const uintptr_t end = begin + bytes;
        ASSERT_EQ(begin % CachingAllocator::kAlignment, 0u);
        ASSERT_GE(alloc.block_size(r.value()), bytes);
        // No overlap with a live block: the nearest live block on each side ends before.
        auto next = live.lower_bound(begin);
        if (next != live.end()) {
          ASSERT_LE(end, next->first) << "overlaps a live block";
        }
        if (next != live.begin()) {
          auto prev = std::prev(next);
          ASSERT_LE(prev->first + prev->second.bytes, begin) << "overlaps a live block";
        }
        // The stream rule, over the whole block (it may be larger than asked).
        const uintptr_t block_end = begin + alloc.block_size(r.value());
        std::vector<Freed> kept;
        for (const Freed& f : freed) {
          if (f.end <= begin || block_end <= f.begin) {
            kept.push_back(f);
            continue;
          }
          ASSERT_TRUE(f.stream == stream || state->record_done(f.record))
              << "memory freed on stream " << f.stream << " went to stream " << stream
              << " before the free's event completed (step " << step << ")";
          // The new owner's use supersedes the overlapped part; keep the parts outside it.
          if (f.begin < begin) kept.push_back({f.begin, begin, f.stream, f.record});
          if (block_end < f.end) kept.push_back({block_end, f.end, f.stream, f.record});
        }
        freed = std::move(kept);
        live[begin] = {bytes, stream};
      }
    } else if (action < 90) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      const Stream on = rng() % 4 == 0 ? stream : it->second.stream;
      const size_t block = alloc.block_size(reinterpret_cast<void*>(it->first));
      ASSERT_TRUE(alloc.free(reinterpret_cast<void*>(it->first), on).is_ok());
      freed.push_back({it->first, it->first + block, on, state->last_record()});
      live.erase(it);
    } else if (action < 97) {
      state->complete(stream);
    } else {
      ASSERT_TRUE(alloc.empty_cache().is_ok());
    }
    std::erase_if(freed, [&](const Freed& f) { return state->record_done(f.record); });

    const Status valid = alloc.validate();
    ASSERT_TRUE(valid.is_ok()) << "step " << step << ": " << valid.message();
    const AllocatorStats s = alloc.stats();
    size_t requested = 0, allocated = 0;
    for (const auto& [address, l] : live) {
      requested += l.bytes;
      allocated += alloc.block_size(reinterpret_cast<void*>(address));
    }
    ASSERT_EQ(s.requested_bytes, requested);
    ASSERT_EQ(s.allocated_bytes, allocated);
    ASSERT_EQ(s.live_blocks, static_cast<int64_t>(live.size()));
    ASSERT_EQ(s.reserved_bytes, state->used);
    ASSERT_EQ(s.segments, static_cast<int64_t>(state->segments.size()));
    ASSERT_EQ(s.device_allocs - s.device_frees, s.segments);
    ASSERT_LE(s.allocated_bytes, s.reserved_bytes);
    ASSERT_LE(s.largest_free_block, s.cached_bytes);
    ASSERT_GE(s.peak_allocated_bytes, s.allocated_bytes);
    ASSERT_GE(s.peak_reserved_bytes, s.reserved_bytes);
    ASSERT_GE(s.fragmentation, 0.0);
    ASSERT_LT(s.fragmentation, 1.0);
  }
  for (const auto& [address, l] : live) ASSERT_TRUE(alloc.free(reinterpret_cast<void*>(address)).is_ok());
  ASSERT_TRUE(alloc.empty_cache().is_ok());
  EXPECT_EQ(alloc.stats().reserved_bytes, 0u);
  EXPECT_EQ(state->used, 0u);
  EXPECT_TRUE(state->misuse.empty());
  if (capacity < 256 * MiB) {
    EXPECT_GT(out_of_memory, 0) << "the small device never ran out";
  }
}

TEST(CachingAllocatorRandom, InvariantsHoldOnAMachineWithRoom) {
  for (uint64_t seed : {1u, 2u, 3u}) run_random_sequence(seed, size_t{1} << 40);
}

TEST(CachingAllocatorRandom, InvariantsHoldWhenTheDeviceRunsOut) {
  for (uint64_t seed : {4u, 5u, 6u}) run_random_sequence(seed, 64 * MiB);
}

TEST(CachingAllocatorRandom, ThreadsSharingOneAllocator) {
  auto state = std::make_shared<FakeDeviceState>(size_t{1} << 40);
  CachingAllocator alloc(std::make_unique<FakeDeviceMemory>(state));
  constexpr int kThreads = 4;
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + static_cast<uint64_t>(t));
      const Stream stream = stream_number(t);
      std::vector<void*> mine;
      for (int step = 0; step < 2000; ++step) {
        if (mine.empty() || rng() % 2 == 0) {
          Result<void*> r = alloc.allocate(random_size(rng) % (4 * MiB) + 1, stream);
          if (r.is_ok()) mine.push_back(r.value());
          else ++failures[t];
        } else {
          const size_t i = rng() % mine.size();
          if (!alloc.free(mine[i], stream).is_ok()) ++failures[t];
          mine[i] = mine.back();
          mine.pop_back();
        }
        if (step % 64 == 0) state->complete(stream);
      }
      for (void* p : mine)
        if (!alloc.free(p).is_ok()) ++failures[t];
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  const Status valid = alloc.validate();
  EXPECT_TRUE(valid.is_ok()) << valid.message();
  const AllocatorStats s = alloc.stats();
  EXPECT_EQ(s.live_blocks, 0);
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, state->used);
  EXPECT_TRUE(state->misuse.empty());
}

}  // namespace
}  // namespace hi::gpu
