// Large host tensors' blocks (core/host_blocks.h): a released block is reused for a tensor of
// about its size, the free blocks kept never exceed kCachedBytes (the oldest are unmapped), and
// tensors made on reused blocks behave as new ones (zeros() is zeros). The cache is the process's,
// so each test works with sizes no other test uses and checks differences, not totals.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/host_blocks.h"
#include "hipinfer/tensor.h"

namespace hi {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(HostBlocks, AReleasedBlockServesTheNextTensorOfAboutItsSize) {
  size_t a_bytes = 0, b_bytes = 0, c_bytes = 0;
  void* a = host_blocks::take(37 * kMiB + 5, &a_bytes);
  ASSERT_NE(a, nullptr);
  EXPECT_GE(a_bytes, 37 * kMiB + 5);
  EXPECT_LE(a_bytes, 37 * kMiB * 9 / 8 + 4096) << "sizes round up by at most an eighth";
  std::memset(a, 0x5A, 37 * kMiB + 5);  // writable over its whole size
  host_blocks::give_back(a, a_bytes);
  void* b = host_blocks::take(36 * kMiB + 123, &b_bytes);  // the same size class
  EXPECT_EQ(b, a);
  EXPECT_EQ(b_bytes, a_bytes);
  void* c = host_blocks::take(37 * kMiB + 5, &c_bytes);  // a is in use: a new block
  EXPECT_NE(c, a);
  host_blocks::give_back(b, b_bytes);
  host_blocks::give_back(c, c_bytes);
  // Far larger than the free block: never served by it.
  size_t d_bytes = 0;
  void* d = host_blocks::take(90 * kMiB, &d_bytes);
  EXPECT_NE(d, a);
  EXPECT_NE(d, c);
  host_blocks::give_back(d, d_bytes);
}

TEST(HostBlocks, FreeBlocksStayUnderTheCapTheOldestUnmappedFirst) {
  const host_blocks::Stats before = host_blocks::stats();
  std::vector<std::pair<void*, size_t>> blocks;
  const size_t each = 61 * kMiB;
  const size_t count = host_blocks::kCachedBytes / each + 3;
  for (size_t i = 0; i < count; ++i) {
    size_t bytes = 0;
    void* block = host_blocks::take(each, &bytes);
    ASSERT_NE(block, nullptr);
    blocks.emplace_back(block, bytes);
  }
  EXPECT_GE(host_blocks::stats().mapped_bytes, before.mapped_bytes + static_cast<int64_t>(count * each));
  for (auto& [block, bytes] : blocks) host_blocks::give_back(block, bytes);
  const host_blocks::Stats after = host_blocks::stats();
  EXPECT_LE(after.cached_bytes, static_cast<int64_t>(host_blocks::kCachedBytes));
  EXPECT_LT(after.mapped_bytes, before.mapped_bytes + static_cast<int64_t>(count * each))
      << "blocks past the cap are unmapped, not kept";
  // The most recently released blocks are the ones kept: the last one is served again.
  size_t bytes = 0;
  void* again = host_blocks::take(each, &bytes);
  EXPECT_EQ(again, blocks.back().first);
  host_blocks::give_back(again, bytes);
}

TEST(HostBlocks, TensorsOnAReusedBlockAreLikeNewOnes) {
  const Shape shape = {3, 1000, 1001};  // about 11.5 MiB of float32
  const void* first = nullptr;
  {
    Tensor t = Tensor::empty(DType::kFloat32, shape);
    first = t.raw();
    std::memset(t.raw(), 0xFF, t.nbytes());
  }
  Tensor z = Tensor::zeros(DType::kFloat32, shape);
  EXPECT_EQ(z.raw(), first) << "the released block is reused";
  const float* p = z.data<float>();
  for (int64_t i = 0; i < z.numel(); i += 4099) ASSERT_EQ(p[i], 0.f) << i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(z.raw()) % 64, 0u);
}

}  // namespace
}  // namespace hi
