// The caching allocator on real devices (device_allocator.h): DeviceMemory over device_api.h.
#include "backends/gpu/device_allocator.h"
#include "backends/gpu/gpu_backend.h"

#include <mutex>
#include <utility>
#include <vector>

namespace hi::gpu::HI_GPU_NS {

namespace {

// Runs `call` with `device` current, then makes the caller's device current again. The first
// failure wins: the call's, else the restore's.
template <typename Call>
Status on_device(int device, Call&& call) {
  HI_ASSIGN_OR_RETURN(const int previous, current_device());
  if (previous != device) HI_RETURN_IF_ERROR(set_device(device));
  Status result = std::forward<Call>(call)();
  if (previous != device) {
    Status restored = set_device(previous);
    if (result.is_ok()) result = std::move(restored);
  }
  return result;
}

class RuntimeDeviceMemory final : public DeviceMemory {
 public:
  explicit RuntimeDeviceMemory(int device) : device_(device) {}

  std::string name() const override { return str(backend_name(), " device ", device_); }

  Status allocate(void** ptr, size_t bytes) override {
    return on_device(device_, [&] { return device_malloc(ptr, bytes); });
  }
  Status release(void* ptr) override {
    return on_device(device_, [&] { return device_free(ptr); });
  }
  Result<Event> create_event() override {
    Event event = nullptr;
    HI_RETURN_IF_ERROR(on_device(device_, [&]() -> Status {
      HI_ASSIGN_OR_RETURN(event, event_create(/*timing=*/false));
      return Status::ok();
    }));
    return event;
  }
  Status destroy_event(Event event) override {
    return on_device(device_, [&] { return event_destroy(event); });
  }
  Status record_event(Event event, Stream stream) override {
    return on_device(device_, [&] { return event_record(event, stream); });
  }
  Result<bool> event_done(Event event) override {
    bool done = false;
    HI_RETURN_IF_ERROR(on_device(device_, [&]() -> Status {
      HI_ASSIGN_OR_RETURN(done, event_query(event));
      return Status::ok();
    }));
    return done;
  }
  Status wait_event(Event event) override {
    return on_device(device_, [&] { return event_synchronize(event); });
  }
  Status mem_info(size_t* free_bytes, size_t* total_bytes) override {
    return on_device(device_, [&]() -> Status {
      HI_ASSIGN_OR_RETURN(const MemInfo info, HI_GPU_NS::mem_info());
      *free_bytes = info.free_bytes;
      *total_bytes = info.total_bytes;
      return Status::ok();
    });
  }

 private:
  const int device_;
};

// The backend's allocators, by device index; guarded by the mutex, never destroyed.
struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<CachingAllocator>> allocators;
};

Registry& registry() {
  static auto* r = new Registry;  // leaked on purpose, see device_allocator.h
  return *r;
}

}  // namespace

std::unique_ptr<DeviceMemory> make_device_memory(int device) { return std::make_unique<RuntimeDeviceMemory>(device); }

Result<CachingAllocator*> device_allocator(int device) {
  Registry* registry = &hi::gpu::HI_GPU_NS::registry();
  const int count = device_count();
  HI_RETURN_IF(device < 0 || device >= count, kInvalidArgument, backend_name(), ": no device ", device,
               " for the caching allocator: this backend sees ", count, " device(s)");
  std::lock_guard<std::mutex> lock(registry->mutex);
  if (registry->allocators.size() < static_cast<size_t>(count)) registry->allocators.resize(static_cast<size_t>(count));
  auto& slot = registry->allocators[static_cast<size_t>(device)];
  if (!slot) slot = std::make_unique<CachingAllocator>(make_device_memory(device));
  return slot.get();
}

std::vector<std::pair<int, CachingAllocator*>> made_allocators() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::pair<int, CachingAllocator*>> out;
  for (size_t i = 0; i < r.allocators.size(); ++i)
    if (r.allocators[i]) out.emplace_back(static_cast<int>(i), r.allocators[i].get());
  return out;
}

void append_memory_stats(std::vector<GpuMemoryStats>* out) {
  for (const auto& [device, alloc] : made_allocators()) {
    const AllocatorStats a = alloc->stats();
    GpuMemoryStats s;
    s.device = std::string(backend_name()) + ":" + std::to_string(device);
    s.allocated_bytes = static_cast<int64_t>(a.allocated_bytes);
    s.reserved_bytes = static_cast<int64_t>(a.reserved_bytes);
    s.peak_allocated_bytes = static_cast<int64_t>(a.peak_allocated_bytes);
    s.peak_reserved_bytes = static_cast<int64_t>(a.peak_reserved_bytes);
    s.largest_free_block = static_cast<int64_t>(a.largest_free_block);
    s.fragmentation = a.fragmentation;
    s.device_allocations = a.device_allocs;
    out->push_back(std::move(s));
  }
}

Status empty_caches() {
  for (const auto& [device, alloc] : made_allocators()) HI_RETURN_IF_ERROR(alloc->empty_cache());
  return Status::ok();
}

Status reserve(int device, int64_t bytes) {
  HI_RETURN_IF(bytes < 0, kInvalidArgument, "reserve: bytes must be >= 0, got ", bytes);
  HI_ASSIGN_OR_RETURN(CachingAllocator * alloc, device_allocator(device));
  return alloc->reserve(static_cast<size_t>(bytes));
}

}  // namespace hi::gpu::HI_GPU_NS
