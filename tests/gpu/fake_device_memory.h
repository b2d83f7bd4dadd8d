// A fake device for the caching allocator's tests: a capacity, an address space that is never
// dereferenced (segments are laid out back to back, so a merge across segments would show), and
// events that complete only when the test says the stream's work is done (or the host waits).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/gpu/caching_allocator.h"

namespace hi::gpu::testing {

// The fake's state, shared between the test and the DeviceMemory the allocator owns, so that it
// can be checked after the allocator is gone.
struct FakeDeviceState {
  using Stream = DeviceMemory::Stream;

  explicit FakeDeviceState(size_t capacity_bytes) : capacity(capacity_bytes) {}

  // Marks every event recorded so far on `stream` complete (its queued work ran).
  void complete(Stream stream) {
    std::lock_guard<std::mutex> lock(mutex);
    for (Record& r : records)
      if (r.stream == stream) r.done = true;
  }
  void complete_all() {
    std::lock_guard<std::mutex> lock(mutex);
    for (Record& r : records) r.done = true;
  }
  // The most recent event record (what the allocator's last free recorded); -1 if none.
  int64_t last_record() {
    std::lock_guard<std::mutex> lock(mutex);
    return static_cast<int64_t>(records.size()) - 1;
  }
  bool record_done(int64_t record) {
    std::lock_guard<std::mutex> lock(mutex);
    return records.at(static_cast<size_t>(record)).done;
  }

  struct Record {
    Stream stream = nullptr;
    bool done = false;
  };

  std::mutex mutex;
  size_t capacity = 0;
  size_t used = 0;
  uintptr_t next_address = uintptr_t{1} << 40;
  std::map<uintptr_t, size_t> segments;  // live device allocations
  std::vector<Record> records;           // every event record, in order
  std::map<int64_t, int64_t> events;     // live event -> its latest record (-1: never recorded)
  int64_t next_event = 1;
  int64_t mallocs = 0;  // successful
  int64_t failed_mallocs = 0;
  int64_t releases = 0;
  int64_t waits = 0;
  bool fail_records = false;  // record_event fails
  bool fail_mallocs_with_runtime_error = false;
  std::vector<std::string> misuse;  // calls a correct allocator never makes
};

class FakeDeviceMemory final : public DeviceMemory {
 public:
  explicit FakeDeviceMemory(std::shared_ptr<FakeDeviceState> state) : s_(std::move(state)) {}

  std::string name() const override { return "fake device 0"; }

  Status allocate(void** ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    if (s_->fail_mallocs_with_runtime_error) {
      ++s_->failed_mallocs;
      return Status(StatusCode::kRuntimeError, "fake: the device fell off the bus");
    }
    if (bytes > s_->capacity - s_->used) {
      ++s_->failed_mallocs;
      return Status(StatusCode::kOutOfMemory, str("fake: out of memory for ", bytes, " bytes"));
    }
    s_->segments[s_->next_address] = bytes;
    *ptr = reinterpret_cast<void*>(s_->next_address);
    s_->next_address += bytes;  // back to back: the next segment starts where this one ends
    s_->used += bytes;
    ++s_->mallocs;
    return Status::ok();
  }

  Status release(void* ptr) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    auto it = s_->segments.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == s_->segments.end()) {
      s_->misuse.push_back(str("release of unknown pointer ", ptr));
      return Status(StatusCode::kInvalidArgument, "fake: unknown pointer");
    }
    s_->used -= it->second;
    s_->segments.erase(it);
    ++s_->releases;
    return Status::ok();
  }

  Result<Event> create_event() override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    const int64_t id = s_->next_event++;
    s_->events[id] = -1;
    return reinterpret_cast<Event>(static_cast<intptr_t>(id));
  }

  Status destroy_event(Event event) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    if (s_->events.erase(id(event)) == 0) s_->misuse.push_back("destroy of an unknown event");
    return Status::ok();
  }

  Status record_event(Event event, Stream stream) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    if (s_->fail_records) return Status(StatusCode::kRuntimeError, "fake: event record failed");
    auto it = s_->events.find(id(event));
    if (it == s_->events.end()) {
      s_->misuse.push_back("record of an unknown event");
      return Status(StatusCode::kInvalidArgument, "fake: unknown event");
    }
    s_->records.push_back({stream, false});
    it->second = static_cast<int64_t>(s_->records.size()) - 1;
    return Status::ok();
  }

  Result<bool> event_done(Event event) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    auto it = s_->events.find(id(event));
    if (it == s_->events.end()) {
      s_->misuse.push_back("query of an unknown event");
      return Status(StatusCode::kInvalidArgument, "fake: unknown event");
    }
    return it->second < 0 || s_->records[static_cast<size_t>(it->second)].done;
  }

  // The host waits: the event's work and, by stream order, everything before it on its stream.
  Status wait_event(Event event) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    ++s_->waits;
    auto it = s_->events.find(id(event));
    if (it == s_->events.end()) {
      s_->misuse.push_back("wait on an unknown event");
      return Status(StatusCode::kInvalidArgument, "fake: unknown event");
    }
    if (it->second < 0) return Status::ok();
    const Stream stream = s_->records[static_cast<size_t>(it->second)].stream;
    for (int64_t r = 0; r <= it->second; ++r)
      if (s_->records[static_cast<size_t>(r)].stream == stream) s_->records[static_cast<size_t>(r)].done = true;
    return Status::ok();
  }

  Status mem_info(size_t* free_bytes, size_t* total_bytes) override {
    std::lock_guard<std::mutex> lock(s_->mutex);
    *free_bytes = s_->capacity - s_->used;
    *total_bytes = s_->capacity;
    return Status::ok();
  }

 private:
  static int64_t id(Event event) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(event)); }

  std::shared_ptr<FakeDeviceState> s_;
};

}  // namespace hi::gpu::testing
