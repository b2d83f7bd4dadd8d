// The caching allocator (policy in caching_allocator.h).
//
// Data structure: each segment (one device malloc) is a doubly linked list of blocks in address
// order that tile it exactly. A free block is in exactly one free set of its pool: `settled`
// when any stream may take it, or pending[stream] while the event recorded when it was freed on
// that stream has not been seen complete. A pending block holds one event: blocks freed on the
// same stream merge and keep the later event, which completes after the earlier one.
#include "backends/gpu/caching_allocator.h"

#include "backends/gpu/device_counters.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <iterator>
#include <limits>

namespace hi::gpu {

struct CachingAllocator::Block {
  char* ptr = nullptr;
  size_t size = 0;
  bool small = false;     // which pool it belongs to
  Block* prev = nullptr;  // neighbours in the same segment; nullptr at its ends
  Block* next = nullptr;
  bool allocated = false;
  size_t requested = 0;                 // bytes asked for, while allocated
  Stream stream = nullptr;              // allocated: the stream it was allocated on; pending: freed on
  DeviceMemory::Event event = nullptr;  // set while pending
};

bool CachingAllocator::BySizeThenAddress::operator()(const Block* a, const Block* b) const {
  if (a->size != b->size) return a->size < b->size;
  return std::less<const char*>()(a->ptr, b->ptr);
}

namespace {

// The largest request we round: anything above cannot be rounded up to 2 MiB without overflow
// and is larger than any device anyway.
constexpr size_t kMaxRequest = std::numeric_limits<size_t>::max() / 2;

size_t round_up(size_t bytes, size_t multiple) { return (bytes + multiple - 1) / multiple * multiple; }

// "1.50 GiB (1610612736 bytes)"; plain "512 bytes" below 1 KiB.
std::string human_bytes(size_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return str(bytes, " bytes");
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", value);
  return str(text, " ", kUnits[unit], " (", bytes, " bytes)");
}

std::string stream_name(DeviceMemory::Stream stream) {
  if (stream == nullptr) return "the default stream";
  return str("stream ", stream);
}

}  // namespace

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemory> device) : device_(std::move(device)) {
  HI_ASSERT(device_ != nullptr, "CachingAllocator needs a device");
  small_.small = true;
}

CachingAllocator::~CachingAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  // Nothing can report an error from here: wait for what we can, give back what we can.
  for (Pool* pool : {&small_, &large_}) {
    for (auto& [stream, blocks] : pool->pending) {
      for (Block* b : blocks) {
        (void)device_->wait_event(b->event);
        spare_events_.push_back(b->event);
      }
    }
  }
  for (auto& [address, head] : segments_) {
    for (Block* b = head; b != nullptr;) {
      Block* next = b->next;
      delete b;
      b = next;
    }
    (void)device_->release(const_cast<char*>(address));
  }
  for (DeviceMemory::Event e : spare_events_) (void)device_->destroy_event(e);
}

CachingAllocator::Pool& CachingAllocator::pool_for(size_t rounded) { return rounded <= kSmallLimit ? small_ : large_; }

// ---- Free sets ---------------------------------------------------------------------------------

void CachingAllocator::unlink_free(Pool& pool, Block* block) {
  if (block->event == nullptr) {
    pool.settled.erase(block);
    return;
  }
  auto it = pool.pending.find(block->stream);
  HI_ASSERT(it != pool.pending.end(), "pending block without its stream's free set");
  it->second.erase(block);
  if (it->second.empty()) pool.pending.erase(it);
}

void CachingAllocator::insert_free(Pool& pool, Block* block) {
  if (block->event == nullptr) pool.settled.insert(block);
  else pool.pending[block->stream].insert(block);
}

// Two free blocks may merge when any stream may take both, or both wait on the same stream.
static bool same_free_state(const CachingAllocator::Stream a_stream, const void* a_event,
                            const CachingAllocator::Stream b_stream, const void* b_event) {
  if (a_event == nullptr || b_event == nullptr) return a_event == nullptr && b_event == nullptr;
  return a_stream == b_stream;
}

// Absorbs the free neighbour (in a free set) into `block` (in none) and deletes the neighbour.
CachingAllocator::Block* CachingAllocator::merge_into(Pool& pool, Block* block, Block* neighbour) {
  unlink_free(pool, neighbour);
  if (neighbour == block->prev) {
    block->ptr = neighbour->ptr;
    block->prev = neighbour->prev;
    if (block->prev != nullptr) block->prev->next = block;
    else segments_[block->ptr] = block;  // the neighbour was the segment's first block
  } else {
    block->next = neighbour->next;
    if (block->next != nullptr) block->next->prev = block;
  }
  block->size += neighbour->size;
  // Both pending on one stream: `block` was just freed, so its event was recorded later and
  // completes after the neighbour's.
  if (neighbour->event != nullptr) spare_events_.push_back(neighbour->event);
  delete neighbour;
  return block;
}

void CachingAllocator::merge_neighbours(Pool& pool, Block* block) {
  for (Block* neighbour : {block->prev, block->next}) {
    if (neighbour != nullptr && !neighbour->allocated &&
        same_free_state(block->stream, block->event, neighbour->stream, neighbour->event))
      merge_into(pool, block, neighbour);
  }
}

// ---- Events
// --------------------------------------------------------------------------------------

Result<DeviceMemory::Event> CachingAllocator::take_event() {
  if (spare_events_.empty()) return device_->create_event();
  DeviceMemory::Event e = spare_events_.back();
  spare_events_.pop_back();
  return e;
}

void CachingAllocator::recycle_event(Block* block) {
  spare_events_.push_back(block->event);
  block->event = nullptr;
  block->stream = nullptr;
}

// A pending block whose event completed: free for every stream, merged with settled neighbours.
Status CachingAllocator::settle(Pool& pool, Block* block) {
  unlink_free(pool, block);
  recycle_event(block);
  merge_neighbours(pool, block);
  insert_free(pool, block);
  return Status::ok();
}

Status CachingAllocator::process_events() {
  for (Pool* pool : {&small_, &large_}) {
    // Settling merges only settled neighbours, so no block listed here is deleted before its turn.
    std::vector<Block*> pending;
    for (const auto& [stream, blocks] : pool->pending) pending.insert(pending.end(), blocks.begin(), blocks.end());
    for (Block* b : pending) {
      Result<bool> done = device_->event_done(b->event);
      if (!done.is_ok())
        return Status(done.status().code(), str(device_->name(), ": querying the event of a block freed on ",
                                                stream_name(b->stream), ": ", done.status().message()));
      if (done.value()) HI_RETURN_IF_ERROR(settle(*pool, b));
    }
  }
  return Status::ok();
}

// ---- Allocation
// ----------------------------------------------------------------------------------

// The smallest block of at least `size` that `stream` may take: a settled one or one pending on
// `stream` itself. On a tie the pending one, keeping the settled block for other streams.
CachingAllocator::Block* CachingAllocator::best_fit(Pool& pool, size_t size, Stream stream) {
  Block key;
  key.size = size;
  key.ptr = nullptr;
  Block* best = nullptr;
  if (auto it = pool.settled.lower_bound(&key); it != pool.settled.end()) best = *it;
  if (auto p = pool.pending.find(stream); p != pool.pending.end()) {
    if (auto it = p->second.lower_bound(&key); it != p->second.end() && (best == nullptr || (*it)->size <= best->size))
      best = *it;
  }
  return best;
}

// Small pool: any rest of at least one alignment unit is worth a block. Large pool: only a rest
// above the small limit, so large blocks never shrink into small ones (the request keeps up to
// 1 MiB of slack instead).
bool CachingAllocator::should_split(const Pool& pool, const Block& block, size_t size) const {
  const size_t rest = block.size - size;
  return pool.small ? rest >= kAlignment : rest > kSmallLimit;
}

Result<CachingAllocator::Block*> CachingAllocator::new_segment(Pool& pool, size_t segment_bytes, size_t requested,
                                                               Stream stream) {
  void* ptr = nullptr;
  Status s = device_->allocate(&ptr, segment_bytes);
  if (!s.is_ok() && s.code() == StatusCode::kOutOfMemory) {
    ++counters_.cache_flushes;
    HI_RETURN_IF_ERROR(release_cached());
    ptr = nullptr;
    s = device_->allocate(&ptr, segment_bytes);
    if (!s.is_ok() && s.code() == StatusCode::kOutOfMemory) return out_of_memory(requested, segment_bytes, stream, s);
  }
  if (!s.is_ok())
    return Status(s.code(), str(device_->name(), ": allocating a ", human_bytes(segment_bytes),
                                " segment failed: ", s.message()));
  if (ptr == nullptr)
    return Status(StatusCode::kInternal, str(device_->name(), ": the device returned no memory for a ",
                                             human_bytes(segment_bytes), " segment"));
  auto* b = new Block;
  b->ptr = static_cast<char*>(ptr);
  b->size = segment_bytes;
  b->small = pool.small;
  segments_[b->ptr] = b;
  counters_.reserved_bytes += segment_bytes;
  ++counters_.device_allocs;
  note_peaks();
  return b;
}

Result<void*> CachingAllocator::allocate(size_t bytes, Stream stream) {
  count(device_counters().allocator_requests);
  if (bytes == 0) return static_cast<void*>(nullptr);
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > kMaxRequest)
    return out_of_memory(bytes, bytes, stream,
                         Status(StatusCode::kOutOfMemory, "the request is larger than any device"));
  const size_t size = round_up(bytes, kAlignment);
  Pool& pool = pool_for(size);
  HI_RETURN_IF_ERROR(process_events());

  Block* b = best_fit(pool, size, stream);
  if (b != nullptr) {
    unlink_free(pool, b);
    ++counters_.cache_hits;
  } else {
    const size_t segment = pool.small ? kSegmentGranularity : round_up(size, kSegmentGranularity);
    HI_ASSIGN_OR_RETURN(b, new_segment(pool, segment, bytes, stream));
  }

  if (should_split(pool, *b, size)) {
    // The rest keeps the block's free state (and its event, if pending); it cannot merge with
    // the next block, which was not mergeable with the whole block either.
    auto* rest = new Block;
    rest->ptr = b->ptr + size;
    rest->size = b->size - size;
    rest->small = b->small;
    rest->prev = b;
    rest->next = b->next;
    if (rest->next != nullptr) rest->next->prev = rest;
    rest->stream = b->stream;
    rest->event = b->event;
    b->next = rest;
    b->size = size;
    b->event = nullptr;
    insert_free(pool, rest);
  } else if (b->event != nullptr) {
    recycle_event(b);  // taken on the stream it was freed on: stream order covers it
  }

  b->allocated = true;
  b->requested = bytes;
  b->stream = stream;
  live_[b->ptr] = b;
  counters_.allocated_bytes += b->size;
  counters_.requested_bytes += bytes;
  ++counters_.allocations;
  ++counters_.live_blocks;
  note_peaks();
  return static_cast<void*>(b->ptr);
}

// ---- Freeing
// -------------------------------------------------------------------------------------

Status CachingAllocator::free(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_locked(ptr, &stream);
}

Status CachingAllocator::free(void* ptr) {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_locked(ptr, nullptr);
}

Status CachingAllocator::free_locked(void* ptr, const Stream* stream) {
  if (ptr == nullptr) return Status::ok();
  auto it = live_.find(ptr);
  HI_RETURN_IF(it == live_.end(), kInvalidArgument, device_->name(), ": free of ", ptr,
               ", which is not a live allocation of this allocator (never allocated here, or "
               "already freed)");
  Block* b = it->second;
  const Stream freed_on = stream != nullptr ? *stream : b->stream;
  HI_ASSIGN_OR_RETURN(DeviceMemory::Event event, take_event());
  if (Status s = device_->record_event(event, freed_on); !s.is_ok()) {
    spare_events_.push_back(event);
    return Status(s.code(), str(device_->name(), ": free of ", ptr, ": recording an event on ", stream_name(freed_on),
                                " failed, the block stays allocated: ", s.message()));
  }
  live_.erase(it);
  counters_.allocated_bytes -= b->size;
  counters_.requested_bytes -= b->requested;
  ++counters_.frees;
  --counters_.live_blocks;
  b->allocated = false;
  b->requested = 0;
  b->stream = freed_on;
  b->event = event;
  Pool& pool = b->small ? small_ : large_;
  merge_neighbours(pool, b);
  insert_free(pool, b);
  return Status::ok();
}

// ---- Giving memory back
// --------------------------------------------------------------------------

Status CachingAllocator::release_segment(Pool& pool, Block* block) {
  if (Status s = device_->release(block->ptr); !s.is_ok())
    return Status(s.code(),
                  str(device_->name(), ": freeing a ", human_bytes(block->size), " segment failed: ", s.message()));
  unlink_free(pool, block);
  segments_.erase(block->ptr);
  counters_.reserved_bytes -= block->size;
  ++counters_.device_frees;
  delete block;
  return Status::ok();
}

Status CachingAllocator::release_cached() {
  for (Pool* pool : {&small_, &large_}) {
    std::vector<Block*> pending;
    for (const auto& [stream, blocks] : pool->pending) pending.insert(pending.end(), blocks.begin(), blocks.end());
    for (Block* b : pending) {
      if (Status s = device_->wait_event(b->event); !s.is_ok())
        return Status(s.code(), str(device_->name(), ": waiting for the event of a block freed on ",
                                    stream_name(b->stream), ": ", s.message()));
      HI_RETURN_IF_ERROR(settle(*pool, b));
    }
    std::vector<Block*> whole_segments;
    for (Block* b : pool->settled)
      if (b->prev == nullptr && b->next == nullptr) whole_segments.push_back(b);
    for (Block* b : whole_segments) HI_RETURN_IF_ERROR(release_segment(*pool, b));
  }
  return Status::ok();
}

Status CachingAllocator::empty_cache() {
  std::lock_guard<std::mutex> lock(mutex_);
  return release_cached();
}

Status CachingAllocator::reserve(size_t bytes) {
  if (bytes == 0) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes > kMaxRequest)
    return out_of_memory(bytes, bytes, nullptr,
                         Status(StatusCode::kOutOfMemory, "the request is larger than any device"));
  HI_ASSIGN_OR_RETURN(Block * b, new_segment(large_, round_up(bytes, kSegmentGranularity), bytes, nullptr));
  insert_free(large_, b);
  return Status::ok();
}

Status CachingAllocator::out_of_memory(size_t requested, size_t segment_bytes, Stream stream,
                                       const Status& device_error) {
  size_t free_bytes = 0, total_bytes = 0;
  const Status info = device_->mem_info(&free_bytes, &total_bytes);
  const std::string device_memory =
      info.is_ok() ? str("the device has ", human_bytes(free_bytes), " free of ", human_bytes(total_bytes))
                   : str("the device's free memory is unknown (", info.message(), ")");
  const AllocatorStats s = stats_locked();
  return Status(
      StatusCode::kOutOfMemory,
      str(device_->name(), ": out of memory asking for ", human_bytes(requested), " on ", stream_name(stream), " (a ",
          human_bytes(segment_bytes), " device allocation, after freeing the cache and retrying once): ", device_memory,
          "; this allocator holds ", human_bytes(s.reserved_bytes), " reserved, of which ",
          human_bytes(s.allocated_bytes), " allocated in ", s.live_blocks, " live blocks; its largest free block is ",
          human_bytes(s.largest_free_block), ". The device said: ", device_error.message()));
}

// ---- Statistics and checks
// -----------------------------------------------------------------------

void CachingAllocator::note_peaks() {
  counters_.peak_allocated_bytes = std::max(counters_.peak_allocated_bytes, counters_.allocated_bytes);
  counters_.peak_reserved_bytes = std::max(counters_.peak_reserved_bytes, counters_.reserved_bytes);
}

AllocatorStats CachingAllocator::stats_locked() const {
  AllocatorStats s = counters_;
  s.cached_bytes = s.reserved_bytes - s.allocated_bytes;
  s.segments = static_cast<int64_t>(segments_.size());
  s.largest_free_block = 0;
  for (const Pool* pool : {&small_, &large_}) {
    if (!pool->settled.empty()) s.largest_free_block = std::max(s.largest_free_block, (*pool->settled.rbegin())->size);
    for (const auto& [stream, blocks] : pool->pending)
      if (!blocks.empty()) s.largest_free_block = std::max(s.largest_free_block, (*blocks.rbegin())->size);
  }
  s.fragmentation =
      s.cached_bytes == 0 ? 0.0 : 1.0 - static_cast<double>(s.largest_free_block) / static_cast<double>(s.cached_bytes);
  return s;
}

AllocatorStats CachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_locked();
}

void CachingAllocator::reset_peaks() {
  std::lock_guard<std::mutex> lock(mutex_);
  counters_.peak_allocated_bytes = counters_.allocated_bytes;
  counters_.peak_reserved_bytes = counters_.reserved_bytes;
}

size_t CachingAllocator::block_size(const void* ptr) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  return it == live_.end() ? 0 : it->second->size;
}

Status CachingAllocator::validate() const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto fail = [](const auto&... parts) { return Status(StatusCode::kInternal, str("allocator: ", parts...)); };
  size_t reserved = 0, allocated = 0, requested = 0, free_blocks = 0;
  int64_t live = 0;
  const char* previous_end = nullptr;
  for (const auto& [address, head] : segments_) {
    if (head->ptr != address || head->prev != nullptr)
      return fail("segment ", static_cast<const void*>(address), " does not start with its first block");
    if (previous_end != nullptr && std::less<const char*>()(address, previous_end))
      return fail("segment ", static_cast<const void*>(address), " overlaps the one before it");
    const char* expected = address;
    for (const Block* b = head; b != nullptr; b = b->next) {
      const void* at = b->ptr;
      if (b->ptr != expected) return fail("block ", at, " does not follow its predecessor");
      if (b->next != nullptr && b->next->prev != b) return fail("block ", at, ": broken links");
      if (b->size == 0 || b->size % kAlignment != 0) return fail("block ", at, " has size ", b->size);
      if (b->small != head->small) return fail("block ", at, " is in the other pool than its segment");
      const Pool& pool = b->small ? small_ : large_;
      if (b->allocated) {
        auto it = live_.find(b->ptr);
        if (it == live_.end() || it->second != b) return fail("allocated block ", at, " is not live");
        if (b->event != nullptr) return fail("allocated block ", at, " holds an event");
        allocated += b->size;
        requested += b->requested;
        ++live;
      } else {
        ++free_blocks;
        const FreeSet* set = &pool.settled;
        if (b->event != nullptr) {
          auto p = pool.pending.find(b->stream);
          set = p == pool.pending.end() ? nullptr : &p->second;
        }
        if (set == nullptr || set->count(const_cast<Block*>(b)) != 1)
          return fail("free block ", at, " is missing from its free set");
        if (b->next != nullptr && !b->next->allocated &&
            same_free_state(b->stream, b->event, b->next->stream, b->next->event))
          return fail("free blocks ", at, " and ", static_cast<const void*>(b->next->ptr), " should have merged");
      }
      reserved += b->size;
      expected = b->ptr + b->size;
    }
    previous_end = expected;
  }
  size_t listed = 0;
  for (const Pool* pool : {&small_, &large_}) {
    listed += pool->settled.size();
    for (const auto& [stream, blocks] : pool->pending) {
      if (blocks.empty()) return fail("an empty pending set is kept");
      listed += blocks.size();
    }
  }
  if (listed != free_blocks) return fail(listed, " blocks in free sets but ", free_blocks, " free blocks");
  if (live != static_cast<int64_t>(live_.size()))
    return fail(live_.size(), " live pointers but ", live, " allocated blocks");
  if (reserved != counters_.reserved_bytes)
    return fail("reserved ", counters_.reserved_bytes, " but segments hold ", reserved);
  if (allocated != counters_.allocated_bytes)
    return fail("allocated ", counters_.allocated_bytes, " but blocks hold ", allocated);
  if (requested != counters_.requested_bytes)
    return fail("requested ", counters_.requested_bytes, " but blocks hold ", requested);
  if (live != counters_.live_blocks) return fail(counters_.live_blocks, " live blocks counted but ", live, " found");
  return Status::ok();
}

}  // namespace hi::gpu
