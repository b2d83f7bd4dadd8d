#include "batching.h"

#include <gtest/gtest.h>

#include <random>

namespace hi::server {
namespace {

Tensor random_floats(Shape shape, std::mt19937& rng) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  std::uniform_real_distribution<float> u(-5, 5);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = u(rng);
  return t;
}

TEST(Batching, ConcatThenSplitGivesBackEachRequestForAwkwardSizes) {
  std::mt19937 rng(7);
  const std::vector<int64_t> sizes = {1, 3, 2, 5, 1};
  std::vector<TensorMap> requests;
  for (int64_t n : sizes) {
    TensorMap r;
    r.emplace("x", random_floats({n, 7, 3}, rng));
    Tensor s = Tensor::empty(DType::kString, {n});
    for (int64_t i = 0; i < n; ++i)
      s.strings()[i] = std::string(static_cast<size_t>(i + n), 'a' + static_cast<char>(i));
    r.emplace("s", s);
    requests.push_back(std::move(r));
  }
  std::vector<const TensorMap*> ptrs;
  for (const auto& r : requests) ptrs.push_back(&r);
  TensorMap joined = concat_batch(ptrs);
  ASSERT_EQ(joined.at("x").shape(), (Shape{12, 7, 3}));
  // The joined tensor holds request 1's rows right after request 0's.
  EXPECT_EQ(joined.at("x").data<float>()[21], requests[1].at("x").data<float>()[0]);
  auto pieces = split_batch(joined, sizes);
  ASSERT_TRUE(pieces.is_ok()) << pieces.status().message();
  for (size_t r = 0; r < sizes.size(); ++r) {
    const Tensor& got = pieces.value()[r].at("x");
    const Tensor& want = requests[r].at("x");
    ASSERT_EQ(got.shape(), want.shape());
    for (int64_t i = 0; i < want.numel(); ++i) ASSERT_EQ(got.data<float>()[i], want.data<float>()[i]) << r << " " << i;
    for (int64_t i = 0; i < sizes[r]; ++i)
      EXPECT_EQ(pieces.value()[r].at("s").strings()[i], requests[r].at("s").strings()[i]);
  }
}

TEST(Batching, SplitNamesTheOutputWhoseBatchDoesNotMatch) {
  TensorMap out;
  out.emplace("scores", Tensor::zeros(DType::kFloat32, {4, 2}));
  auto pieces = split_batch(out, {2, 3});
  ASSERT_FALSE(pieces.is_ok());
  EXPECT_NE(pieces.status().message().find("'scores'"), std::string::npos) << pieces.status().message();
  EXPECT_NE(pieces.status().message().find("[4, 2]"), std::string::npos);
  EXPECT_NE(pieces.status().message().find("5"), std::string::npos);
}

TEST(Batching, CompatibleOnlyWithSameNamesTypesAndTrailingDims) {
  TensorMap a, b, c, d;
  a.emplace("x", Tensor::zeros(DType::kFloat32, {2, 3}));
  b.emplace("x", Tensor::zeros(DType::kFloat32, {5, 3}));
  c.emplace("x", Tensor::zeros(DType::kFloat32, {2, 4}));
  d.emplace("x", Tensor::zeros(DType::kInt32, {2, 3}));
  EXPECT_TRUE(batch_compatible(a, b));
  EXPECT_FALSE(batch_compatible(a, c));
  EXPECT_FALSE(batch_compatible(a, d));
  EXPECT_EQ(batch_size_of(b), 5);
}

}  // namespace
}  // namespace hi::server
