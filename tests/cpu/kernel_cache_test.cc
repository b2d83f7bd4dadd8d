// The CPU backend's kernel cache: a kernel is made for the thread count it will run with.
#include <gtest/gtest.h>

#include <string>

#include "core/threading.h"
#include "backends/cpu/kernels/kernel_cache.h"

namespace hi::cpu {
namespace {

struct CountedKernel {
  int threads;
  std::string describe() const { return std::to_string(threads); }
};

TEST(KernelCache, KeepsOneKernelPerThreadCount) {
  KernelCache<CountedKernel> cache;
  int made = 0;
  auto make = [&](WeightCache*) {
    ++made;
    return new CountedKernel{current_threads()};
  };
  {
    ThreadScope two(2);
    EXPECT_EQ(cache.get({1, 2}, make)->threads, 2);
    EXPECT_EQ(cache.get({1, 2}, make)->threads, 2);
  }
  {
    ThreadScope one(1);
    EXPECT_EQ(cache.get({1, 2}, make)->threads, 1);  // made for one thread, not the two-thread one
  }
  ThreadScope two(2);
  EXPECT_EQ(cache.get({1, 2}, make)->threads, 2);
  EXPECT_EQ(made, 2);
}

}  // namespace
}  // namespace hi::cpu
