// The fast kernels an op makes, one per input-shape key and thread count, and the packed weights
// they share (weight_cache.h): a new shape costs a kernel, not another copy of the weights. The
// thread count is part of the key because a kernel is made for it (oneDNN fixes a primitive's
// threads when it creates it) and a session runs on fewer threads while the machine is busy. Bounded:
// past kMaxShapes the least recently used kernel is dropped (a model fed ever new shapes).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/threading.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {

template <typename Kernel>
class KernelCache {
 public:
  static constexpr size_t kMaxShapes = 64;
  using Key = std::vector<int64_t>;

  // The kernel for `key` at the current thread count, made by make(WeightCache*) the first
  // time (null: no fast kernel for this shape, also remembered). Thread-safe; a kernel is made
  // under the lock.
  template <typename Make>
  std::shared_ptr<const Kernel> get(const Key& key, Make&& make) {
    const int threads = current_threads();
    std::lock_guard<std::mutex> lock(mutex_);
    // Looked up without copying the key: this runs for every node of every run.
    auto it = kernels_.find(KeyView{threads, key});
    if (it == kernels_.end()) {
      if (kernels_.size() >= kMaxShapes) drop_least_recent();
      it = kernels_.emplace(std::pair{threads, key}, Entry{std::shared_ptr<const Kernel>(make(&weights_)), 0}).first;
    }
    it->second.last_used = ++clock_;
    return it->second.kernel;
  }

  // Each implementation in use named once, comma-separated (Op::kernel_name).
  std::string describe() const {
    std::set<std::string> names;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& [key, entry] : kernels_)
        if (entry.kernel) names.insert(entry.kernel->describe());
    }
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ", ") + n;
    return joined;
  }

 private:
  using Stored = std::pair<int, Key>;  // (threads, shape key)
  struct KeyView {
    int threads;
    const Key& key;
  };
  struct Less {
    using is_transparent = void;
    static std::pair<int, const Key&> view(const Stored& s) { return {s.first, s.second}; }
    static std::pair<int, const Key&> view(const KeyView& v) { return {v.threads, v.key}; }
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const auto x = view(a), y = view(b);
      return x.first != y.first ? x.first < y.first : x.second < y.second;
    }
  };
  struct Entry {
    std::shared_ptr<const Kernel> kernel;
    uint64_t last_used;
  };
  void drop_least_recent() {
    auto oldest = kernels_.begin();
    for (auto it = kernels_.begin(); it != kernels_.end(); ++it)
      if (it->second.last_used < oldest->second.last_used) oldest = it;
    kernels_.erase(oldest);
  }

  mutable std::mutex mutex_;
  std::map<Stored, Entry, Less> kernels_;
  uint64_t clock_ = 0;
  WeightCache weights_;
};

}  // namespace hi::cpu
