#include "core/host_blocks.h"

#include <sys/mman.h>

#include <iterator>
#include <list>
#include <map>
#include <mutex>
#include <utility>

namespace hi::host_blocks {
namespace {

// Sizes rounded up to 8 classes per power of two (at most 12.5 % more), so that tensors of nearly
// the same size share blocks.
size_t size_class(size_t bytes) {
  size_t top = kMinBytes;
  while (top * 2 <= bytes) top *= 2;
  const size_t step = top / 8;
  return (bytes + step - 1) / step * step;
}

struct Cache {
  std::mutex mutex;
  std::list<std::pair<void*, size_t>> by_age;  // oldest first
  std::multimap<size_t, std::list<std::pair<void*, size_t>>::iterator> by_size;
  size_t cached = 0, mapped = 0;

  // The smallest cached block of `size` up to a quarter more, taken out; of equal ones the most
  // recently released (the likeliest still in the CPU's caches). Null if none.
  void* reuse(size_t size, size_t* block_bytes) {
    auto it = by_size.lower_bound(size);
    if (it == by_size.end() || it->first > size + size / 4) return nullptr;
    it = std::prev(by_size.upper_bound(it->first));
    void* block = it->second->first;
    *block_bytes = it->first;
    cached -= it->first;
    by_age.erase(it->second);
    by_size.erase(it);
    return block;
  }
  void unmap_oldest() {
    auto [block, size] = by_age.front();
    auto range = by_size.equal_range(size);
    for (auto it = range.first; it != range.second; ++it)
      if (it->second == by_age.begin()) {
        by_size.erase(it);
        break;
      }
    by_age.pop_front();
    cached -= size;
    mapped -= size;
    munmap(block, size);
  }
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: tensors may be released during static destruction
  return *c;
}

}  // namespace

void* take(size_t bytes, size_t* block_bytes) {
  const size_t size = size_class(bytes);
  Cache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (void* block = c.reuse(size, block_bytes)) return block;
  }
  void* block = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) return nullptr;
  *block_bytes = size;
  std::lock_guard<std::mutex> lock(c.mutex);
  c.mapped += size;
  return block;
}

void give_back(void* block, size_t block_bytes) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.by_age.emplace_back(block, block_bytes);
  c.by_size.emplace(block_bytes, std::prev(c.by_age.end()));
  c.cached += block_bytes;
  while (c.cached > kCachedBytes) c.unmap_oldest();
}

Stats stats() {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return {static_cast<int64_t>(c.cached), static_cast<int64_t>(c.mapped)};
}

}  // namespace hi::host_blocks
