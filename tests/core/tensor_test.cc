// Tensor storage, views, conversions and the host memory limit.
#include <gtest/gtest.h>

#include "hipinfer/tensor.h"

namespace hi {
namespace {

TEST(Tensor, ShapeNumelOverflowAndNegative) {
  EXPECT_EQ(shape_numel({}), 1);
  EXPECT_EQ(shape_numel({2, 0, 3}), 0);
  EXPECT_EQ(shape_numel({-1, 2}), -1);
  EXPECT_EQ(shape_numel({int64_t{1} << 40, int64_t{1} << 40}), -1);
}

TEST(Tensor, EmptyZerosAndReshape) {
  Tensor t = Tensor::zeros(DType::kFloat32, {2, 3});
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.nbytes(), 24u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], 0.f);
  t.data<float>()[5] = 7.f;
  Tensor r = t.reshaped({3, 2});
  EXPECT_EQ(r.data<float>()[5], 7.f);  // shares storage
  Tensor c = t.clone();
  c.data<float>()[5] = 1.f;
  EXPECT_EQ(t.data<float>()[5], 7.f);  // clone does not
  EXPECT_EQ(t.type_string(), "float32[2, 3]");
}

TEST(Tensor, StringsAreConstructed) {
  Tensor s = Tensor::empty(DType::kString, {3});
  s.strings()[1] = "hello";
  Tensor c = s.clone();
  EXPECT_EQ(c.strings()[1], "hello");
  EXPECT_EQ(c.strings()[0], "");
}

TEST(Tensor, Conversions) {
  Tensor t = Tensor::from_vector<int32_t>({-3, 5}, {2});
  EXPECT_EQ(t.as_int64(0), -3);
  EXPECT_EQ(t.as_double(1), 5.0);
  EXPECT_EQ(t.to_int64_vector(), (std::vector<int64_t>{-3, 5}));
}

TEST(Tensor, LimitThrowsOutOfMemory) {
  const int64_t old = host_allocation_limit();
  set_host_allocation_limit(1 << 20);
  EXPECT_THROW(Tensor::empty(DType::kFloat32, {1 << 20}), OutOfMemory);
  EXPECT_NO_THROW(Tensor::empty(DType::kFloat32, {1024}));
  set_host_allocation_limit(old);
  EXPECT_THROW(Tensor::empty(DType::kFloat32, {int64_t{1} << 40, int64_t{1} << 40}), OutOfMemory);
}

// Reading a tensor as a type it does not hold (a kernel reached with a value its inference did
// not expect) throws, for the executor to turn into an error naming the node; it used to abort.
TEST(Tensor, ReadingAsAnotherTypeThrows) {
  Tensor ints = Tensor::zeros(DType::kInt64, {3});
  EXPECT_THROW(ints.data<float>(), TensorTypeMismatch);
  EXPECT_THROW(ints.strings(), TensorTypeMismatch);
  EXPECT_NO_THROW(ints.data<int64_t>());
  EXPECT_NO_THROW(ints.data<double>());  // the same width is allowed: a view of the raw bits
  Tensor words = Tensor::empty(DType::kString, {2});
  EXPECT_THROW(words.as_double(0), TensorTypeMismatch);
  EXPECT_THROW(words.to_int64_vector(), TensorTypeMismatch);
  try {
    ints.data<float>();
  } catch (const TensorTypeMismatch& e) {
    EXPECT_EQ(e.what, "tensor is int64, accessed as float32");
  }
}

TEST(Tensor, MemoryStatsTrackLiveBytes) {
  const auto before = host_memory_stats();
  {
    Tensor t = Tensor::empty(DType::kFloat64, {1000});
    EXPECT_EQ(host_memory_stats().allocated_bytes, before.allocated_bytes + 8000);
  }
  EXPECT_EQ(host_memory_stats().allocated_bytes, before.allocated_bytes);
}

}  // namespace
}  // namespace hi
