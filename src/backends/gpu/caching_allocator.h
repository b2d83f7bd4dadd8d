// The caching device-memory allocator: one per device, host C++ (no runtime headers), written
// against DeviceMemory, the few raw device calls it needs, so that tests drive it with a fake
// device on the CPU and each GPU backend plugs in its runtime (device_allocator.h).
//
// Policy. Requests are rounded up to 512 bytes. Requests of at most 1 MiB come from the small
// pool, carved out of 2 MiB segments; larger ones from the large pool, whose segments are the
// request rounded up to 2 MiB. A request takes the smallest cached free block that fits (best
// fit) and splits off the rest when the rest is worth keeping (small pool: >= 512 bytes; large
// pool: > 1 MiB, so the large pool never holds small blocks); a freed block merges with free
// neighbours of its segment. Streams: free(ptr, stream) records an event on the stream that last
// used the block. Until that event completes the block is given only to requests on that same
// stream (stream order makes that safe); once it completes the block is free for every stream.
// Device memory is returned only by empty_cache() or when a device malloc fails: then pending
// events are waited for, every wholly free segment is freed and the malloc is retried once; a
// second failure is an OutOfMemory Status with the sizes that explain it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "hipinfer/status.h"

namespace hi::gpu {

// The raw device calls the allocator is built on, for one device. Streams and events are the
// runtime's handles (cudaStream_t, cudaEvent_t, ...); nullptr is the default stream.
class DeviceMemory {
 public:
  using Stream = void*;
  using Event = void*;

  virtual ~DeviceMemory() = default;
  // "cuda device 0": names the device in messages.
  virtual std::string name() const = 0;
  // A device allocation; a full device answers StatusCode::kOutOfMemory.
  virtual Status allocate(void** ptr, size_t bytes) = 0;
  virtual Status release(void* ptr) = 0;
  // Events without timing, recorded on a stream; done once the work queued before them ran.
  virtual Result<Event> create_event() = 0;
  virtual Status destroy_event(Event event) = 0;
  virtual Status record_event(Event event, Stream stream) = 0;
  virtual Result<bool> event_done(Event event) = 0;
  virtual Status wait_event(Event event) = 0;  // blocks the host until the event is done
  // Free and total memory of the device, in bytes.
  virtual Status mem_info(size_t* free_bytes, size_t* total_bytes) = 0;
};

struct AllocatorStats {
  size_t allocated_bytes = 0;       // sum of live blocks (request rounded up, plus unsplit rest)
  size_t requested_bytes = 0;       // sum of the byte counts asked for by live allocations
  size_t reserved_bytes = 0;        // sum of segments held from the device
  size_t peak_allocated_bytes = 0;  // since construction or reset_peaks()
  size_t peak_reserved_bytes = 0;
  size_t cached_bytes = 0;        // reserved - allocated: free blocks held for reuse
  size_t largest_free_block = 0;  // bytes
  double fragmentation = 0;       // 1 - largest free block / cached bytes; 0 when nothing cached
  int64_t live_blocks = 0;
  int64_t segments = 0;
  int64_t allocations = 0;    // successful allocate() calls with bytes > 0
  int64_t frees = 0;          // successful free() calls with a non-null pointer
  int64_t cache_hits = 0;     // allocations served from cached blocks
  int64_t device_allocs = 0;  // device mallocs that succeeded (segments made)
  int64_t device_frees = 0;   // segments given back to the device
  int64_t cache_flushes = 0;  // times a failed device malloc made us free the cache and retry
};

class CachingAllocator {
 public:
  using Stream = DeviceMemory::Stream;

  static constexpr size_t kAlignment = 512;                       // every block is a multiple of this
  static constexpr size_t kSmallLimit = size_t{1} << 20;          // largest small-pool request
  static constexpr size_t kSegmentGranularity = size_t{2} << 20;  // segment sizes: multiples

  explicit CachingAllocator(std::unique_ptr<DeviceMemory> device);
  // Waits for pending events and gives every segment back, live blocks included: free all
  // allocations before destroying the allocator.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // `bytes` of device memory, aligned to 512 bytes, usable by work queued on `stream`.
  // bytes == 0 gives nullptr.
  Result<void*> allocate(size_t bytes, Stream stream);
  // Returns a block; `stream` is the stream whose queued work uses it last. Without a stream: the
  // one it was allocated on. nullptr is a no-op; a pointer this allocator does not hold as live
  // is an InvalidArgument error. If the event cannot be recorded the block stays allocated.
  Status free(void* ptr, Stream stream);
  Status free(void* ptr);

  // Makes one large-pool segment of at least `bytes` (rounded up to 2 MiB) ready for later
  // requests above 1 MiB.
  Status reserve(size_t bytes);
  // Waits for pending frees' events and gives every wholly free segment back to the device.
  Status empty_cache();

  AllocatorStats stats() const;
  void reset_peaks();  // peaks restart from the current values
  // The size of the block behind a live pointer; 0 if `ptr` is not live here.
  size_t block_size(const void* ptr) const;
  // Checks the internal structure (segments tile exactly, free lists agree with the blocks,
  // no two mergeable neighbours, statistics agree): ok or a description of the first problem.
  // For tests and debugging; walks every block.
  Status validate() const;

  const DeviceMemory& device() const { return *device_; }

 private:
  struct Block;
  struct BySizeThenAddress {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeSet = std::set<Block*, BySizeThenAddress>;
  struct Pool {
    bool small = false;
    FreeSet settled;                    // free for any stream
    std::map<Stream, FreeSet> pending;  // freed on a stream, its event not yet seen complete
  };

  Pool& pool_for(size_t rounded);
  Status free_locked(void* ptr, const Stream* stream);
  Status process_events();
  Status settle(Pool& pool, Block* block);
  Block* best_fit(Pool& pool, size_t size, Stream stream);
  void unlink_free(Pool& pool, Block* block);
  void insert_free(Pool& pool, Block* block);
  Block* merge_into(Pool& pool, Block* block, Block* neighbour);
  void merge_neighbours(Pool& pool, Block* block);
  bool should_split(const Pool& pool, const Block& block, size_t size) const;
  Result<Block*> new_segment(Pool& pool, size_t segment_bytes, size_t requested, Stream stream);
  Status release_cached();
  Status release_segment(Pool& pool, Block* block);
  Status out_of_memory(size_t requested, size_t segment_bytes, Stream stream, const Status& device_error);
  Result<DeviceMemory::Event> take_event();
  void recycle_event(Block* block);
  AllocatorStats stats_locked() const;
  void note_peaks();

  std::unique_ptr<DeviceMemory> device_;
  mutable std::mutex mutex_;
  Pool small_;
  Pool large_;
  std::unordered_map<const void*, Block*> live_;
  std::map<const char*, Block*> segments_;  // first block of each segment, by address
  std::vector<DeviceMemory::Event> spare_events_;
  AllocatorStats counters_;  // the running counts and byte totals; the rest is computed
};

}  // namespace hi::gpu
