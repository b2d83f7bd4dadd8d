// Weights packed into a kernel's layout, shared by the kernels one op makes for its different
// input shapes. A packed form depends on the weights and on the kernel's layout, not on the image
// size or the row count, so a new shape reuses it instead of packing again (a detector fed pages
// of ever new sizes would otherwise hold one packed copy of every weight per size).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace hi::cpu {

// The cache keeps weak references: a packed form lives as long as some kernel holds it, so the
// packing of a candidate that lost its timing is freed with that candidate.
class WeightCache {
 public:
  // The packed form stored under `key` for `weights`, made by `pack()` (returning a T) the first
  // time. Thread-safe; one caller packs while others asking for the same form wait.
  template <typename T, typename Pack>
  std::shared_ptr<const T> get(const void* weights, const std::string& key, Pack&& pack) {
    const std::string full = std::to_string(reinterpret_cast<uintptr_t>(weights)) + ":" + key;
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(full);
    if (it != entries_.end())
      if (std::shared_ptr<const void> alive = it->second.lock()) return std::static_pointer_cast<const T>(alive);
    forget_expired();
    auto made = std::make_shared<const T>(pack());
    entries_[full] = made;
    return made;
  }

  // Packed forms some kernel still holds.
  size_t live_entries() {
    std::lock_guard<std::mutex> lock(mutex_);
    forget_expired();
    return entries_.size();
  }

 private:
  void forget_expired() {
    for (auto it = entries_.begin(); it != entries_.end();)
      it = it->second.expired() ? entries_.erase(it) : std::next(it);
  }

  std::mutex mutex_;
  std::map<std::string, std::weak_ptr<const void>> entries_;
};

// `cache->get(...)` where there is a cache; else a form of its own for one kernel.
template <typename T, typename Pack>
std::shared_ptr<const T> packed_weights(WeightCache* cache, const void* weights, const std::string& key, Pack&& pack) {
  if (!cache) return std::make_shared<const T>(pack());
  return cache->get<T>(weights, key, std::forward<Pack>(pack));
}

}  // namespace hi::cpu
