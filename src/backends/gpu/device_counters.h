// Process-wide counts of what the GPU backends ask of their devices, for `bench --profile`
// (RunStats::gpu): they depend on the model and the engine, not on the machine's speed, so they
// show what fusion and graph replay save. Shared by every backend (one instance per program:
// an inline function's static).
#pragma once

#include <atomic>
#include <cstdint>

namespace hi::gpu {

struct DeviceCounters {
  std::atomic<int64_t> kernel_launches{0};     // launch_kernel<> (vendor.h)
  std::atomic<int64_t> graph_launches{0};      // graph_launch (a replay: one launch for the graph)
  std::atomic<int64_t> host_syncs{0};          // synchronize, event_synchronize, synchronous copies
  std::atomic<int64_t> device_allocations{0};  // device_malloc: memory from the runtime
  std::atomic<int64_t> allocator_requests{0};  // CachingAllocator::allocate
};

inline DeviceCounters& device_counters() {
  static DeviceCounters counters;
  return counters;
}

inline void count(std::atomic<int64_t>& counter) { counter.fetch_add(1, std::memory_order_relaxed); }

}  // namespace hi::gpu
