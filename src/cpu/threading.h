// Intra-op threads for the CPU kernels. oneDNN (Debian's build) runs on OpenMP, so our own
// kernels use OpenMP too: one pool, no oversubscription between two runtimes.
#pragma once

#include <cstdint>

namespace hi::cpu {

// Physical cores of this machine (hyper-threads not counted); at least 1.
int physical_cores();
// `requested` threads, or the physical cores when it is 0 or negative.
int resolve_threads(int requested);

// Sets the thread count for parallel regions started by the calling thread, and restores the
// previous count when it goes out of scope. OpenMP keeps this setting per thread, so sessions
// with different thread counts can run side by side on different threads.
class ThreadScope {
 public:
  explicit ThreadScope(int threads);
  ~ThreadScope();
  ThreadScope(const ThreadScope&) = delete;
  ThreadScope& operator=(const ThreadScope&) = delete;

 private:
  int previous_;
};

// Threads a parallel region started now would get.
int current_threads();

// Runs f(begin, end) over [0, n) split into contiguous chunks, one per thread; serially when
// the work is smaller than `grain` elements (a parallel region costs a few microseconds).
template <typename F>
void parallel_for(int64_t n, int64_t grain, F&& f) {
  const int threads = current_threads();
  if (threads <= 1 || n <= grain) {
    if (n > 0) f(int64_t{0}, n);
    return;
  }
  const int64_t chunks = n / grain < threads ? (n + grain - 1) / grain : threads;
#pragma omp parallel for num_threads(static_cast <int>(chunks)) schedule(static)
  for (int64_t t = 0; t < chunks; ++t) {
    const int64_t begin = n * t / chunks, end = n * (t + 1) / chunks;
    if (begin < end) f(begin, end);
  }
}

}  // namespace hi::cpu
