// Shared oneDNN state: one CPU engine for the process; a stream per calling thread.
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "backends/cpu/kernels/fastest.h"
#include "backends/cpu/kernels/kernels.h"

namespace hi::cpu {

dnnl::engine& dnnl_engine();
dnnl::stream& dnnl_stream();  // thread-local: oneDNN CPU streams are cheap and not shared

// Primitives are made with scratchpad_mode::user and given this at each call: the calling thread's
// own scratch buffer, grown as needed. oneDNN's library-managed scratchpad belongs to the
// primitive, so two threads running one session (one primitive) at once would share it.
dnnl::primitive_attr make_attr(const Activation& act, bool with_sum);
dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc);
// The calling thread's scratch buffer, at least `bytes` long (null for 0).
void* thread_scratchpad_buffer(size_t bytes);

// A primitive's arguments for each thread that runs it, made once and pointed at each run's
// buffers (set_data_handle): making a dnnl::memory allocates, which cost more than the product
// itself for a small model called often (a 64x32 Gemm: a third of its run). Held by the kernel.
class ThreadArguments {
 public:
  using Args = std::unordered_map<int, dnnl::memory>;
  // The calling thread's arguments, made by make() the first time.
  template <typename Make>
  std::shared_ptr<Args> get(Make&& make) const {
    const std::thread::id me = std::this_thread::get_id();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (auto it = sets_.find(me); it != sets_.end()) return it->second;
    }
    auto made = std::make_shared<Args>(make());
    std::lock_guard<std::mutex> lock(mutex_);
    if (sets_.size() >= kThreads) sets_.clear();  // threads come and go: start over rather than grow
    sets_[me] = made;
    return made;
  }

 private:
  static constexpr size_t kThreads = 64;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::thread::id, std::shared_ptr<Args>> sets_;
};

// Plain float32 weights (`user`) reordered into the layout a primitive wants, through the op's
// weight cache: kernels for other shapes that want the same layout share one copy, for as long
// as one of them holds the pointer.
std::shared_ptr<const dnnl::memory> reordered_weights(const dnnl::memory::desc& user, const float* weights,
                                                      const dnnl::memory::desc& wanted, WeightCache* cache);

// The post-op chain for an optional residual sum followed by an activation.
dnnl::post_ops make_post_ops(const Activation& act, bool with_sum);

}  // namespace hi::cpu
