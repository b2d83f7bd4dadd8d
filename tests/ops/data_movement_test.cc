// Data-movement ops (Transpose, Squeeze, Unsqueeze, Concat, Split, Slice, Gather, Expand, Where,
// ConstantOfShape, Range, Pad, Dropout): hand-computed cases, edge cases, errors, inference with
// symbolic dims, and random awkward sizes checked against index arithmetic written here.
#include <algorithm>
#include <limits>
#include <random>

#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::vector<Tensor> ok(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value() : std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
}

Tensor iota_f32(const Shape& shape) {
  Tensor t = Tensor::empty(DType::kFloat32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

// ---- Transpose -------------------------------------------------------------------------------

TEST(Transpose, DefaultReversesAxes) {
  auto y = ok({"Transpose", "", 17, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  expect_tensor_eq(y[0], f32({3, 2}, {1, 4, 2, 5, 3, 6}));
}

TEST(Transpose, RandomAwkwardPermutation) {
  Tensor x = random_f32({3, 5, 7}, 11);
  auto y = ok({"Transpose", "", 17, {{"perm", attr_ints({2, 0, 1})}}, {x}});
  ASSERT_EQ(y[0].shape(), (Shape{7, 3, 5}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 7; ++k)
        ASSERT_EQ(y[0].data<float>()[(k * 3 + i) * 5 + j], x.data<float>()[(i * 5 + j) * 7 + k]);
}

// Every permutation of awkward 4-D shapes with unit dims, against index arithmetic: covers the
// tiled path (NCHW <-> NHWC, batched 2-D transposes after unit dims drop and neighbours merge),
// tiles cut at the edges, and the row-by-row path.
TEST(Transpose, EveryPermutationOfAwkwardShapes) {
  for (const Shape& shape : {Shape{2, 37, 45, 1}, Shape{1, 33, 1, 70}, Shape{3, 9, 8, 41}, Shape{1, 508, 1, 64}}) {
    Tensor x = random_f32(shape, 5);
    std::vector<int64_t> perm = {0, 1, 2, 3};
    do {
      auto y = ok({"Transpose", "", 17, {{"perm", attr_ints(perm)}}, {x}});
      Shape out_shape;
      for (int64_t p : perm) out_shape.push_back(shape[static_cast<size_t>(p)]);
      ASSERT_EQ(y[0].shape(), out_shape);
      int64_t idx[4];
      for (idx[0] = 0; idx[0] < shape[0]; ++idx[0])
        for (idx[1] = 0; idx[1] < shape[1]; ++idx[1])
          for (idx[2] = 0; idx[2] < shape[2]; ++idx[2])
            for (idx[3] = 0; idx[3] < shape[3]; ++idx[3]) {
              int64_t in = 0, out = 0;
              for (size_t d = 0; d < 4; ++d) {
                in = in * shape[d] + idx[d];
                out = out * out_shape[d] + idx[perm[d]];
              }
              ASSERT_EQ(y[0].data<float>()[out], x.data<float>()[in])
                  << shape_to_string(shape) << " perm " << shape_to_string(perm);
            }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
}

TEST(Transpose, StringsAndZeroSize) {
  auto y = ok({"Transpose", "", 17, {}, {strs({2, 2}, {"a", "b", "c", "d"})}});
  expect_tensor_eq(y[0], strs({2, 2}, {"a", "c", "b", "d"}));
  auto z = ok({"Transpose", "", 17, {{"perm", attr_ints({1, 0, 2})}}, {f32({2, 0, 3}, {})}});
  EXPECT_EQ(z[0].shape(), (Shape{0, 2, 3}));
}

TEST(Transpose, BadPermFails) {
  expect_error({"Transpose", "", 17, {{"perm", attr_ints({0, 0})}}, {f32({2, 2}, {1, 2, 3, 4})}},
               {"not a permutation"});
  expect_error({"Transpose", "", 17, {{"perm", attr_ints({1, 0, 2})}}, {f32({2, 2}, {1, 2, 3, 4})}}, {"rank 2"});
}

TEST(Transpose, SymbolicDimsFollowThePerm) {
  EXPECT_EQ(inferred("Transpose", 17, {{"perm", attr_ints({1, 2, 0})}}, {sym(DType::kFloat32, {"batch", "3", "seq"})}),
            "float32[3, seq, batch]");
}

// ---- Squeeze / Unsqueeze ---------------------------------------------------------------------

TEST(Squeeze, AxesAttributeBeforeOpset13) {
  auto y = ok({"Squeeze", "", 11, {{"axes", attr_ints({-1})}}, {iota_f32({2, 1, 3, 1})}});
  expect_tensor_eq(y[0], iota_f32({2, 1, 3}));
}

TEST(Squeeze, AxesInputFromOpset13AndDefaultAll) {
  auto y = ok({"Squeeze", "", 13, {}, {iota_f32({2, 1, 3, 1}), i64({1}, {1})}});
  expect_tensor_eq(y[0], iota_f32({2, 3, 1}));
  auto all = ok({"Squeeze", "", 13, {}, {iota_f32({1, 2, 1, 3, 1})}});
  expect_tensor_eq(all[0], iota_f32({2, 3}));
  auto scalar = ok({"Squeeze", "", 13, {}, {f32({1, 1}, {5})}});
  expect_tensor_eq(scalar[0], f32({}, {5}));
}

TEST(Squeeze, EmptyAxesSqueezeAllOnes) {
  expect_tensor_eq(ok({"Squeeze", "", 13, {}, {iota_f32({1, 2, 1}), i64({0}, {})}})[0], iota_f32({2}));
}

TEST(Squeeze, Errors) {
  expect_error({"Squeeze", "", 13, {}, {iota_f32({2, 1}), i64({1}, {0})}}, {"cannot squeeze axis 0", "size is 2"});
  expect_error({"Squeeze", "", 13, {}, {iota_f32({2, 1}), i64({1}, {2})}}, {"axis 2 is out of range for rank 2"});
  expect_error({"Squeeze", "", 11, {{"axes", attr_ints({0})}}, {iota_f32({2, 1})}}, {"cannot squeeze axis 0"});
}

TEST(Squeeze, Inference) {
  EXPECT_EQ(inferred("Squeeze", 13, {}, {sym(DType::kFloat32, {"b", "1", "n"}), constant(i64({1}, {-2}))}),
            "float32[b, n]");
  // Without axes an unknown dim might be 1: the rank is unknown.
  EXPECT_EQ(inferred("Squeeze", 13, {}, {sym(DType::kFloat32, {"b", "1"})}), "float32[...]");
  // Axes known only at run time: the rank follows from their count.
  EXPECT_EQ(inferred("Squeeze", 13, {}, {sym(DType::kFloat32, {"b", "1", "1"}), sym(DType::kInt64, {"2"})}),
            "float32[?]");
}

TEST(Unsqueeze, AttributeAndInput) {
  auto a = ok({"Unsqueeze", "", 11, {{"axes", attr_ints({0, -1})}}, {iota_f32({2, 3})}});
  expect_tensor_eq(a[0], iota_f32({1, 2, 3, 1}));
  auto b = ok({"Unsqueeze", "", 13, {}, {iota_f32({2, 3}), i64({2}, {2, 0})}});
  expect_tensor_eq(b[0], iota_f32({1, 2, 1, 3}));
  auto s = ok({"Unsqueeze", "", 13, {}, {f32({}, {7}), i64({1}, {0})}});
  expect_tensor_eq(s[0], f32({1}, {7}));
}

TEST(Unsqueeze, Errors) {
  expect_error({"Unsqueeze", "", 13, {}, {iota_f32({2, 3}), i64({2}, {1, 1})}}, {"more than once"});
  expect_error({"Unsqueeze", "", 13, {}, {iota_f32({2, 3}), i64({1}, {3})}}, {"out of range for rank 3"});
  expect_error({"Unsqueeze", "", 11, {}, {iota_f32({2, 3})}}, {"'axes' is missing"});
}

TEST(Unsqueeze, SymbolicDimsStay) {
  EXPECT_EQ(inferred("Unsqueeze", 13, {}, {sym(DType::kInt64, {"batch", "seq"}), constant(i64({1}, {1}))}),
            "int64[batch, 1, seq]");
}

// ---- Concat ----------------------------------------------------------------------------------

TEST(Concat, AlongLastAxisAndNegativeAxis) {
  for (int64_t axis : {1, -1}) {
    auto y = ok({"Concat", "", 13, {{"axis", attr_int(axis)}}, {f32({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})}});
    expect_tensor_eq(y[0], f32({2, 3}, {1, 3, 4, 2, 5, 6}));
  }
}

TEST(Concat, ZeroSizeStringsAndOneInput) {
  auto z = ok({"Concat", "", 13, {{"axis", attr_int(0)}}, {f32({0, 2}, {}), f32({2, 2}, {1, 2, 3, 4})}});
  expect_tensor_eq(z[0], f32({2, 2}, {1, 2, 3, 4}));
  auto s = ok({"Concat", "", 13, {{"axis", attr_int(0)}}, {strs({1}, {"a"}), strs({2}, {"b", "c"})}});
  expect_tensor_eq(s[0], strs({3}, {"a", "b", "c"}));
  auto one = ok({"Concat", "", 13, {{"axis", attr_int(0)}}, {i64({2}, {4, 5})}});
  expect_tensor_eq(one[0], i64({2}, {4, 5}));
}

TEST(Concat, RandomAwkwardSizes) {
  const std::vector<int64_t> widths = {1, 4, 0, 3};
  std::vector<Tensor> ins;
  for (size_t i = 0; i < widths.size(); ++i) ins.push_back(random_f32({3, widths[i], 5}, 100 + i));
  auto y = ok({"Concat", "", 13, {{"axis", attr_int(1)}}, ins});
  ASSERT_EQ(y[0].shape(), (Shape{3, 8, 5}));
  for (int64_t a = 0; a < 3; ++a) {
    int64_t col = 0;
    for (size_t i = 0; i < ins.size(); ++i) {
      for (int64_t b = 0; b < widths[i]; ++b, ++col)
        for (int64_t c = 0; c < 5; ++c)
          ASSERT_EQ(y[0].data<float>()[(a * 8 + col) * 5 + c], ins[i].data<float>()[(a * widths[i] + b) * 5 + c]);
    }
  }
}

TEST(Concat, Errors) {
  expect_error({"Concat", "", 13, {{"axis", attr_int(1)}}, {iota_f32({2, 2}), iota_f32({3, 2})}},
               {"only axis 1 may differ"});
  expect_error({"Concat", "", 13, {{"axis", attr_int(0)}}, {iota_f32({2}), i64({2}, {1, 2})}}, {"int64"});
  expect_error({"Concat", "", 13, {{"axis", attr_int(0)}}, {iota_f32({2}), iota_f32({2, 1})}}, {"same rank"});
  expect_error({"Concat", "", 13, {{"axis", attr_int(2)}}, {iota_f32({2, 2}), iota_f32({2, 2})}},
               {"axis 2 is out of range"});
  expect_error({"Concat", "", 13, {}, {iota_f32({2})}}, {"'axis' is missing"});
}

TEST(Concat, Inference) {
  EXPECT_EQ(inferred("Concat", 13, {{"axis", attr_int(1)}},
                     {sym(DType::kFloat32, {"b", "2"}), sym(DType::kFloat32, {"?", "3"})}),
            "float32[b, 5]");
  EXPECT_EQ(inferred("Concat", 13, {{"axis", attr_int(0)}},
                     {sym(DType::kFloat32, {"b", "2"}), sym(DType::kFloat32, {"3", "2"})}),
            "float32[?, 2]");
  EXPECT_EQ(inferred("Concat", 13, {{"axis", attr_int(0)}},
                     {sym(DType::kFloat32, {"1", "2"}), sym(DType::kFloat32, {"3", "4"})})
                .rfind("error:", 0),
            0u);
}

// ---- Split -----------------------------------------------------------------------------------

TEST(Split, SizesFromInputAttributeAndEqualParts) {
  auto a = ok({"Split", "", 13, {}, {iota_f32({3, 2}), i64({2}, {2, 1})}, 2});
  expect_tensor_eq(a[0], f32({2, 2}, {0, 1, 2, 3}));
  expect_tensor_eq(a[1], f32({1, 2}, {4, 5}));
  auto b = ok({"Split", "", 11, {{"axis", attr_int(-1)}, {"split", attr_ints({1, 1})}}, {iota_f32({2, 2})}, 2});
  expect_tensor_eq(b[0], f32({2, 1}, {0, 2}));
  expect_tensor_eq(b[1], f32({2, 1}, {1, 3}));
  auto c = ok({"Split", "", 13, {}, {iota_f32({6})}, 3});
  expect_tensor_eq(c[2], f32({2}, {4, 5}));
}

TEST(Split, NumOutputsUnevenLastChunkAndZeroSizes) {
  auto a = ok({"Split", "", 18, {{"num_outputs", attr_int(3)}}, {iota_f32({7})}, 3});
  expect_tensor_eq(a[0], f32({3}, {0, 1, 2}));
  expect_tensor_eq(a[1], f32({3}, {3, 4, 5}));
  expect_tensor_eq(a[2], f32({1}, {6}));
  auto z = ok({"Split", "", 13, {}, {strs({2}, {"x", "y"}), i64({3}, {0, 2, 0})}, 3});
  EXPECT_EQ(z[0].shape(), (Shape{0}));
  expect_tensor_eq(z[1], strs({2}, {"x", "y"}));
  EXPECT_EQ(z[2].shape(), (Shape{0}));
}

TEST(Split, RandomAwkwardSizes) {
  Tensor x = random_f32({4, 11, 3}, 7);
  const std::vector<int64_t> sizes = {5, 1, 0, 5};
  auto y = ok({"Split", "", 13, {{"axis", attr_int(1)}}, {x, i64({4}, sizes)}, 4});
  int64_t start = 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    ASSERT_EQ(y[k].shape(), (Shape{4, sizes[k], 3}));
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t b = 0; b < sizes[k]; ++b)
        for (int64_t c = 0; c < 3; ++c)
          ASSERT_EQ(y[k].data<float>()[(a * sizes[k] + b) * 3 + c], x.data<float>()[(a * 11 + start + b) * 3 + c]);
    start += sizes[k];
  }
}

TEST(Split, Errors) {
  expect_error({"Split", "", 13, {}, {iota_f32({3}), i64({2}, {1, 1})}, 2}, {"sums to 2", "size 3"});
  expect_error({"Split", "", 13, {}, {iota_f32({3}), i64({1}, {3})}, 2}, {"has 1 entries", "2 outputs"});
  expect_error({"Split", "", 13, {}, {iota_f32({7})}, 3}, {"size 7", "evenly", "3"});
  expect_error({"Split", "", 18, {{"num_outputs", attr_int(2)}}, {iota_f32({4})}, 3},
               {"num_outputs is 2", "3 outputs"});
  expect_error({"Split", "", 13, {}, {iota_f32({4}), i64({2}, {5, -1})}, 2}, {"negative size -1"});
}

TEST(Split, InferenceKeepsSymbolicDims) {
  auto r = infer_types("Split", 13, {{"axis", attr_int(1)}}, {sym(DType::kFloat32, {"b", "6"})}, 2);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r.value()[0], "float32[b, 3]");
  auto u = infer_types("Split", 18, {{"num_outputs", attr_int(2)}}, {sym(DType::kFloat32, {"n"})}, 2);
  ASSERT_TRUE(u.is_ok());
  EXPECT_EQ(u.value()[1], "float32[?]");
}

// ---- Slice -----------------------------------------------------------------------------------

OpCase slice13(const Tensor& x, std::vector<int64_t> starts, std::vector<int64_t> ends, std::vector<int64_t> axes = {},
               std::vector<int64_t> steps = {}) {
  const auto n = static_cast<int64_t>(starts.size());
  OpCase c{"Slice", "", 13, {}, {x, i64({n}, starts), i64({n}, ends)}};
  if (!axes.empty() || !steps.empty()) c.inputs.push_back(axes.empty() ? Tensor() : i64({n}, axes));
  if (!steps.empty()) c.inputs.push_back(i64({n}, steps));
  return c;
}

TEST(Slice, HandComputed) {
  Tensor x = iota_f32({3, 4});
  expect_tensor_eq(ok(slice13(x, {0, 1}, {2, 3}))[0], f32({2, 2}, {1, 2, 5, 6}));
  // Reverse a whole axis: start -1, end INT64_MIN, step -1.
  expect_tensor_eq(ok(slice13(x, {-1}, {kMin}, {1}, {-1}))[0], f32({3, 4}, {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8}));
  // INT64_MAX end means "to the end".
  expect_tensor_eq(ok(slice13(x, {1}, {kMax}, {0}))[0], f32({2, 4}, {4, 5, 6, 7, 8, 9, 10, 11}));
  // Negative axis and a step of 2.
  expect_tensor_eq(ok(slice13(x, {0}, {4}, {-1}, {2}))[0], f32({3, 2}, {0, 2, 4, 6, 8, 10}));
  // Starts beyond the dim clamp: empty.
  EXPECT_EQ(ok(slice13(x, {10}, {20}, {0}))[0].shape(), (Shape{0, 4}));
  // Negative step from beyond the end: start clamps to dim - 1.
  expect_tensor_eq(ok(slice13(x, {100}, {-100}, {1}, {-2}))[0], f32({3, 2}, {3, 1, 7, 5, 11, 9}));
  // Huge steps take one element.
  expect_tensor_eq(ok(slice13(x, {2}, {kMax}, {1}, {kMax}))[0], f32({3, 1}, {2, 6, 10}));
  expect_tensor_eq(ok(slice13(x, {-1}, {kMin}, {0}, {kMin}))[0], f32({1, 4}, {8, 9, 10, 11}));
}

TEST(Slice, AttributesBeforeOpset10) {
  auto y = ok({"Slice",
               "",
               9,
               {{"starts", attr_ints({1})}, {"ends", attr_ints({1000})}, {"axes", attr_ints({1})}},
               {iota_f32({2, 4})}});
  expect_tensor_eq(y[0], f32({2, 3}, {1, 2, 3, 5, 6, 7}));
  auto z = ok({"Slice", "", 1, {{"starts", attr_ints({0, -1})}, {"ends", attr_ints({1, kMax})}}, {iota_f32({2, 4})}});
  expect_tensor_eq(z[0], f32({1, 1}, {3}));
}

TEST(Slice, Errors) {
  expect_error(slice13(iota_f32({4}), {0}, {4}, {0}, {0}), {"contains 0"});
  expect_error({"Slice", "", 13, {}, {iota_f32({4}), i64({1}, {0}), i64({2}, {1, 2})}}, {"differ in length"});
  expect_error(slice13(iota_f32({4, 4}), {0, 0}, {1, 1}, {1, -1}), {"more than once"});
  expect_error(slice13(iota_f32({4}), {0}, {1}, {1}), {"out of range for rank 1"});
  expect_error({"Slice", "", 9, {{"starts", attr_ints({0})}}, {iota_f32({4})}}, {"'ends' are required"});
}

// The spec's rules written as a loop over candidate indices.
std::vector<int64_t> slice_indices(int64_t n, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += n;
  if (end < 0) end += n;
  std::vector<int64_t> out;
  if (n == 0) return out;
  if (step > 0) {
    start = std::max<int64_t>(0, std::min(start, n));
    end = std::max<int64_t>(0, std::min(end, n));
    for (int64_t i = start; i < end; i += step) out.push_back(i);
  } else {
    start = std::max<int64_t>(0, std::min(start, n - 1));
    end = std::max<int64_t>(-1, std::min(end, n - 1));
    for (int64_t i = start; i > end; i += step) out.push_back(i);
  }
  return out;
}

TEST(Slice, RandomAwkward) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> pos(-9, 9), stp(-3, 3);
  const Shape shape = {4, 7, 5};
  Tensor x = random_f32(shape, 3);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<int64_t> starts, ends, steps;
    for (int d = 0; d < 3; ++d) {
      int64_t s = 0;
      while (s == 0) s = stp(rng);
      starts.push_back(pos(rng));
      ends.push_back(pos(rng));
      steps.push_back(s);
    }
    auto y = ok(slice13(x, starts, ends, {0, 1, 2}, steps));
    std::vector<std::vector<int64_t>> idx;
    for (int d = 0; d < 3; ++d) idx.push_back(slice_indices(shape[d], starts[d], ends[d], steps[d]));
    ASSERT_EQ(y[0].shape(), (Shape{static_cast<int64_t>(idx[0].size()), static_cast<int64_t>(idx[1].size()),
                                   static_cast<int64_t>(idx[2].size())}))
        << "trial " << trial;
    int64_t o = 0;
    for (int64_t a : idx[0])
      for (int64_t b : idx[1])
        for (int64_t c : idx[2]) ASSERT_EQ(y[0].data<float>()[o++], x.data<float>()[(a * 7 + b) * 5 + c]);
  }
}

TEST(Slice, Inference) {
  EXPECT_EQ(inferred("Slice", 13, {},
                     {sym(DType::kFloat32, {"b", "10"}), constant(i64({1}, {2})), constant(i64({1}, {-1})),
                      constant(i64({1}, {1}))}),
            "float32[b, 7]");
  EXPECT_EQ(inferred("Slice", 13, {},
                     {sym(DType::kFloat32, {"b", "10"}), sym(DType::kInt64, {"1"}), constant(i64({1}, {-1}))}),
            "float32[?, ?]");
}

// ---- Gather ----------------------------------------------------------------------------------

TEST(Gather, HandComputed) {
  auto a = ok({"Gather", "", 13, {}, {f32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({2, 2}, {0, 1, 1, 2})}});
  expect_tensor_eq(a[0], f32({2, 2, 2}, {1, 2, 3, 4, 3, 4, 5, 6}));
  auto b = ok({"Gather", "", 13, {{"axis", attr_int(-1)}}, {iota_f32({2, 3}), i32({2}, {-1, 0})}});
  expect_tensor_eq(b[0], f32({2, 2}, {2, 0, 5, 3}));
  auto s = ok({"Gather", "", 13, {}, {f32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({}, {1})}});
  expect_tensor_eq(s[0], f32({2}, {3, 4}));
  auto str = ok({"Gather", "", 13, {}, {strs({3}, {"a", "b", "c"}), i64({4}, {2, 2, -3, 1})}});
  expect_tensor_eq(str[0], strs({4}, {"c", "c", "a", "b"}));
  auto empty = ok({"Gather", "", 13, {{"axis", attr_int(1)}}, {iota_f32({2, 3}), i64({0}, {})}});
  EXPECT_EQ(empty[0].shape(), (Shape{2, 0}));
}

TEST(Gather, IndexOutOfRangeNamesIndexAndBound) {
  // At run time (indices are a graph input) and at build time (indices are a constant).
  for (bool constant_inputs : {false, true}) {
    expect_error({"Gather", "", 13, {}, {iota_f32({3, 2}), i64({2}, {0, 3})}}, {"index 3", "size 3", "[-3, 2]"},
                 constant_inputs);
    expect_error({"Gather", "", 13, {{"axis", attr_int(1)}}, {iota_f32({3, 2}), i64({1}, {-3})}},
                 {"index -3", "axis 1", "[-2, 1]"}, constant_inputs);
  }
  expect_error({"Gather", "", 13, {}, {iota_f32({3}), f32({1}, {0})}}, {"indices must be int32 or int64"});
  expect_error({"Gather", "", 13, {{"axis", attr_int(2)}}, {iota_f32({3, 2}), i64({1}, {0})}},
               {"axis 2 is out of range"});
}

TEST(Gather, RandomAwkward) {
  Tensor x = random_f32({5, 6, 7}, 9);
  Tensor idx = random_i64({4, 3}, 10, -6, 5);
  auto y = ok({"Gather", "", 13, {{"axis", attr_int(1)}}, {x, idx}});
  ASSERT_EQ(y[0].shape(), (Shape{5, 4, 3, 7}));
  for (int64_t a = 0; a < 5; ++a)
    for (int64_t k = 0; k < 12; ++k) {
      int64_t i = idx.data<int64_t>()[k];
      if (i < 0) i += 6;
      for (int64_t c = 0; c < 7; ++c)
        ASSERT_EQ(y[0].data<float>()[(a * 12 + k) * 7 + c], x.data<float>()[(a * 6 + i) * 7 + c]);
    }
}

// An embedding lookup: rows of a large table by int32 indices (negatives among them), enough
// rows that the copy is shared among the threads; and picks along an inner axis.
TEST(Gather, EmbeddingRowsAcrossThreads) {
  Tensor table = random_f32({3001, 97}, 21);
  Tensor ids64 = random_i64({5, 333}, 22, -3001, 3000);
  std::vector<int32_t> v32(ids64.data<int64_t>(), ids64.data<int64_t>() + ids64.numel());
  auto y = ok({"Gather", "", 13, {}, {table, i32({5, 333}, v32)}});
  ASSERT_EQ(y[0].shape(), (Shape{5, 333, 97}));
  for (int64_t k = 0; k < 5 * 333; ++k) {
    const int64_t i =
        v32[static_cast<size_t>(k)] < 0 ? v32[static_cast<size_t>(k)] + 3001 : v32[static_cast<size_t>(k)];
    for (int64_t c = 0; c < 97; ++c)
      ASSERT_EQ(y[0].data<float>()[k * 97 + c], table.data<float>()[i * 97 + c]) << k << "," << c;
  }
  // Along axis 1 of [40, 2000, 3]: 40 blocks of row picks.
  Tensor wide = random_f32({40, 2000, 3}, 23);
  Tensor ids = random_i64({700}, 24, -2000, 1999);
  auto z = ok({"Gather", "", 13, {{"axis", attr_int(1)}}, {wide, ids}});
  ASSERT_EQ(z[0].shape(), (Shape{40, 700, 3}));
  for (int64_t o = 0; o < 40; ++o)
    for (int64_t k = 0; k < 700; ++k) {
      const int64_t i = ids.data<int64_t>()[k] < 0 ? ids.data<int64_t>()[k] + 2000 : ids.data<int64_t>()[k];
      for (int64_t c = 0; c < 3; ++c)
        ASSERT_EQ(z[0].data<float>()[(o * 700 + k) * 3 + c], wide.data<float>()[(o * 2000 + i) * 3 + c])
            << o << "," << k;
    }
}

TEST(Gather, Inference) {
  EXPECT_EQ(inferred("Gather", 13, {{"axis", attr_int(1)}},
                     {sym(DType::kFloat16, {"b", "s", "64"}), sym(DType::kInt64, {"n"})}),
            "float16[b, n, 64]");
}

// ---- Expand ----------------------------------------------------------------------------------

TEST(Expand, HandComputed) {
  auto a = ok({"Expand", "", 13, {}, {f32({3, 1}, {1, 2, 3}), i64({3}, {2, 1, 4})}});
  ASSERT_EQ(a[0].shape(), (Shape{2, 3, 4}));
  for (int64_t i = 0; i < 24; ++i) EXPECT_EQ(a[0].data<float>()[i], static_cast<float>(1 + (i / 4) % 3));
  // The shape may be shorter than the input's rank and hold 1s: bidirectional broadcast.
  expect_tensor_eq(ok({"Expand", "", 13, {}, {iota_f32({2, 3}), i64({1}, {1})}})[0], iota_f32({2, 3}));
  EXPECT_EQ(ok({"Expand", "", 13, {}, {f32({1}, {5}), i64({2}, {3, 0})}})[0].shape(), (Shape{3, 0}));
  expect_tensor_eq(ok({"Expand", "", 13, {}, {strs({}, {"s"}), i64({1}, {2})}})[0], strs({2}, {"s", "s"}));
}

TEST(Expand, RandomAwkward) {
  Tensor x = random_f32({1, 4, 1}, 5);
  auto y = ok({"Expand", "", 13, {}, {x, i64({4}, {3, 1, 4, 5})}});
  ASSERT_EQ(y[0].shape(), (Shape{3, 1, 4, 5}));
  for (int64_t i = 0; i < 60; ++i) ASSERT_EQ(y[0].data<float>()[i], x.data<float>()[(i / 5) % 4]);
}

TEST(Expand, Errors) {
  expect_error({"Expand", "", 13, {}, {iota_f32({3}), i64({1}, {2})}}, {"cannot expand", "float32[3]", "[2]"});
  expect_error({"Expand", "", 13, {}, {iota_f32({3}), i64({1}, {-1})}}, {"negative dim"});
  EXPECT_EQ(inferred("Expand", 13, {}, {sym(DType::kFloat32, {"3"}), constant(i64({1}, {2}))}).rfind("error:", 0), 0u);
}

TEST(Expand, Inference) {
  EXPECT_EQ(inferred("Expand", 13, {}, {sym(DType::kFloat32, {"b", "1"}), constant(i64({3}, {2, 1, 8}))}),
            "float32[2, b, 8]");
  EXPECT_EQ(inferred("Expand", 13, {}, {sym(DType::kFloat32, {"5", "1"}), sym(DType::kInt64, {"3"})}),
            "float32[?, 5, ?]");
}

// ---- Where -----------------------------------------------------------------------------------

TEST(Where, ThreeWayBroadcast) {
  auto y = ok({"Where", "", 16, {}, {bools({2, 1}, {1, 0}), f32({3}, {1, 2, 3}), f32({}, {9})}});
  expect_tensor_eq(y[0], f32({2, 3}, {1, 2, 3, 9, 9, 9}));
  auto s = ok({"Where", "", 16, {}, {bools({2}, {0, 1}), strs({2}, {"a", "b"}), strs({1}, {"z"})}});
  expect_tensor_eq(s[0], strs({2}, {"z", "b"}));
  EXPECT_EQ(ok({"Where", "", 16, {}, {bools({0, 1}, {}), iota_f32({3}), iota_f32({1})}})[0].shape(), (Shape{0, 3}));
}

TEST(Where, RandomAwkward) {
  Tensor c = Tensor::empty(DType::kBool, {5, 1, 3});
  Tensor x = random_f32({4, 3}, 1), y = random_f32({5, 4, 1}, 2);
  std::mt19937 rng(1);
  for (int64_t i = 0; i < c.numel(); ++i) c.data<bool>()[i] = (rng() & 1) != 0;
  auto r = ok({"Where", "", 16, {}, {c, x, y}});
  ASSERT_EQ(r[0].shape(), (Shape{5, 4, 3}));
  for (int64_t a = 0; a < 5; ++a)
    for (int64_t b = 0; b < 4; ++b)
      for (int64_t k = 0; k < 3; ++k)
        ASSERT_EQ(r[0].data<float>()[(a * 4 + b) * 3 + k],
                  c.data<bool>()[a * 3 + k] ? x.data<float>()[b * 3 + k] : y.data<float>()[a * 4 + b]);
}

TEST(Where, Errors) {
  expect_error({"Where", "", 16, {}, {bools({1}, {1}), iota_f32({1}), i64({1}, {1})}},
               {"float32", "int64", "must match"});
  expect_error({"Where", "", 16, {}, {iota_f32({1}), iota_f32({1}), iota_f32({1})}}, {"condition must be bool"});
  expect_error({"Where", "", 16, {}, {bools({2}, {1, 0}), iota_f32({3}), iota_f32({1})}}, {"cannot be broadcast"});
}

// ---- ConstantOfShape -------------------------------------------------------------------------

TEST(ConstantOfShape, DefaultValueIntValueScalarAndEmpty) {
  expect_tensor_eq(ok({"ConstantOfShape", "", 20, {}, {i64({2}, {2, 3})}})[0], f32({2, 3}, {0, 0, 0, 0, 0, 0}));
  auto v = ok({"ConstantOfShape", "", 20, {{"value", attr_tensor(i64({1}, {7}))}}, {i64({2}, {1, 2})}});
  expect_tensor_eq(v[0], i64({1, 2}, {7, 7}));
  auto s = ok({"ConstantOfShape", "", 20, {{"value", attr_tensor(bools({1}, {1}))}}, {i64({0}, {})}});
  expect_tensor_eq(s[0], bools({}, {1}));
  EXPECT_EQ(ok({"ConstantOfShape", "", 20, {}, {i64({2}, {2, 0})}})[0].shape(), (Shape{2, 0}));
}

TEST(ConstantOfShape, Errors) {
  expect_error({"ConstantOfShape", "", 20, {}, {i64({2}, {2, -1})}}, {"input 'shape'", "whose dim 1 is negative"});
  expect_error({"ConstantOfShape", "", 20, {{"value", attr_tensor(i64({2}, {1, 2}))}}, {i64({1}, {2})}},
               {"exactly one element"});
  expect_error({"ConstantOfShape", "", 20, {}, {iota_f32({1})}}, {"shape must be int64"});
  EXPECT_EQ(inferred("ConstantOfShape", 20, {}, {sym(DType::kInt64, {"3"})}), "float32[?, ?, ?]");
}

// ---- Range -----------------------------------------------------------------------------------

TEST(Range, HandComputed) {
  expect_tensor_eq(ok({"Range", "", 11, {}, {i64({}, {10}), i64({}, {0}), i64({}, {-3})}})[0], i64({4}, {10, 7, 4, 1}));
  expect_tensor_near(ok({"Range", "", 11, {}, {f32({}, {1}), f32({}, {2}), f32({}, {0.3f})}})[0],
                     f32({4}, {1.f, 1.3f, 1.6f, 1.9f}));
  EXPECT_EQ(ok({"Range", "", 11, {}, {i32({}, {5}), i32({}, {1}), i32({}, {1})}})[0].shape(), (Shape{0}));
  expect_tensor_eq(ok({"Range", "", 11, {}, {i32({}, {-2}), i32({}, {3}), i32({}, {2})}})[0], i32({3}, {-2, 0, 2}));
  // A range spanning all of int64 neither overflows its count nor its elements.
  expect_tensor_eq(ok({"Range", "", 11, {}, {i64({}, {kMin}), i64({}, {kMax}), i64({}, {kMax})}})[0],
                   i64({3}, {kMin, -1, kMax - 1}));
}

TEST(Range, RandomAwkward) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int64_t> v(-50, 50);
  for (int trial = 0; trial < 30; ++trial) {
    const int64_t s = v(rng), l = v(rng);
    int64_t d = 0;
    while (d == 0) d = v(rng) / 5;
    std::vector<int64_t> expect;
    for (int64_t x = s; d > 0 ? x < l : x > l; x += d) expect.push_back(x);
    auto y = ok({"Range", "", 11, {}, {i64({}, {s}), i64({}, {l}), i64({}, {d})}});
    expect_tensor_eq(y[0], i64({static_cast<int64_t>(expect.size())}, expect));
  }
}

TEST(Range, Errors) {
  expect_error({"Range", "", 11, {}, {i64({}, {0}), i64({}, {5}), i64({}, {0})}}, {"delta is 0"});
  expect_error({"Range", "", 11, {}, {f32({}, {0}), f32({}, {5}), f32({}, {0})}}, {"delta is 0"});
  expect_error({"Range", "", 11, {}, {i64({}, {0}), i32({}, {5}), i64({}, {1})}}, {"limit is int32"});
  expect_error({"Range", "", 11, {}, {i64({2}, {0, 1}), i64({}, {5}), i64({}, {1})}}, {"start must be a scalar"});
  expect_error({"Range", "", 11, {}, {bools({}, {0}), bools({}, {1}), bools({}, {1})}}, {"bool"});
  EXPECT_EQ(inferred("Range", 11, {}, {sym(DType::kInt64, {}), constant(i64({}, {4})), constant(i64({}, {1}))}),
            "int64[?]");
}

// ---- Pad -------------------------------------------------------------------------------------

OpCase pad18(const Tensor& x, const std::string& mode, std::vector<int64_t> pads, Tensor value = Tensor(),
             Tensor axes = Tensor()) {
  OpCase c{"Pad", "", 18, {{"mode", attr_string(mode)}}, {x, i64({static_cast<int64_t>(pads.size())}, pads), value}};
  if (axes.dtype() != DType::kUndefined) c.inputs.push_back(axes);
  return c;
}

TEST(Pad, Modes) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_tensor_eq(ok(pad18(x, "constant", {0, 1, 1, 0}, f32({}, {9})))[0],
                   f32({3, 4}, {9, 1, 2, 3, 9, 4, 5, 6, 9, 9, 9, 9}));
  expect_tensor_eq(ok(pad18(x, "reflect", {0, 2, 0, 1}))[0], f32({2, 6}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5}));
  expect_tensor_eq(ok(pad18(x, "edge", {1, 0, 0, 2}))[0], f32({3, 5}, {1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6}));
  expect_tensor_eq(ok(pad18(x, "wrap", {0, 1, 0, 2}))[0], f32({2, 6}, {3, 1, 2, 3, 1, 2, 6, 4, 5, 6, 4, 5}));
  // Pads larger than the dim reflect back and forth, like numpy.
  expect_tensor_eq(ok(pad18(f32({3}, {1, 2, 3}), "reflect", {5, 0}))[0], f32({8}, {2, 1, 2, 3, 2, 1, 2, 3}));
}

TEST(Pad, NegativePadsAxesAndTypes) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_tensor_eq(ok(pad18(x, "constant", {0, -1, 0, 1}))[0], f32({2, 3}, {2, 3, 0, 5, 6, 0}));
  expect_tensor_eq(ok(pad18(x, "constant", {1, 1}, Tensor(), i64({1}, {-1})))[0],
                   f32({2, 5}, {0, 1, 2, 3, 0, 0, 4, 5, 6, 0}));
  expect_tensor_eq(ok(pad18(i64({2}, {7, 8}), "constant", {1, 0}, i64({}, {-1})))[0], i64({3}, {-1, 7, 8}));
  expect_tensor_eq(ok(pad18(strs({1}, {"a"}), "edge", {1, 1}))[0], strs({3}, {"a", "a", "a"}));
  expect_tensor_eq(ok(pad18(bools({1}, {1}), "constant", {0, 1}))[0], bools({2}, {1, 0}));
  // Padding an empty axis with a constant.
  expect_tensor_eq(ok(pad18(f32({0}, {}), "constant", {1, 1}, f32({}, {2})))[0], f32({2}, {2, 2}));
}

TEST(Pad, AttributesBeforeOpset11) {
  auto a = ok({"Pad", "", 2, {{"pads", attr_ints({1, 0, 0, 0})}, {"value", attr_float(7.5f)}}, {f32({1, 2}, {1, 2})}});
  expect_tensor_eq(a[0], f32({2, 2}, {7.5f, 7.5f, 1, 2}));
  auto b = ok({"Pad", "", 1, {{"paddings", attr_ints({0, 1})}, {"mode", attr_string("edge")}}, {f32({2}, {1, 2})}});
  expect_tensor_eq(b[0], f32({3}, {1, 2, 2}));
}

TEST(Pad, Errors) {
  Tensor x = iota_f32({2, 3});
  expect_error(pad18(x, "constant", {1, 1}), {"2 entries", "expected 4"});
  expect_error(pad18(f32({0, 2}, {}), "reflect", {1, 0, 0, 0}), {"axis 0", "empty"});
  expect_error(pad18(x, "constant", {-3, 0, 0, 0}), {"crop more", "axis 0"});
  expect_error(pad18(x, "constant", {0, 0, 0, 0}, i64({}, {1})), {"constant_value is int64"});
  expect_error({"Pad", "", 18, {{"mode", attr_string("mirror")}}, {x, i64({4}, {0, 0, 0, 0})}}, {"mode 'mirror'"});
  expect_error(pad18(x, "constant", {0, 0}, Tensor(), i64({2}, {1, -1})), {"more than once"});
}

// Pads from a hostile file: near 2^62 (their sum overflowed int64 and crashed), and large enough to
// need terabytes. Errors, as runtime inputs and folded as constants, never a signal.
TEST(Pad, HugePadsAreErrorsNotCrashes) {
  Tensor x = iota_f32({2, 3});
  const int64_t near = (int64_t{1} << 62) - 1;
  for (bool fold : {false, true}) {
    expect_error(pad18(x, "constant", {0, near, 0, near}), {"axis 1", "larger than 2^62"}, fold);
    expect_error(pad18(x, "constant", {0, std::numeric_limits<int64_t>::min(), 0, 0}), {"out of range"}, fold);
    expect_error(pad18(x, "edge", {0, 3'000'000'000, 0, 3'000'000'000}), {}, fold);  // out of memory, as a status
  }
}

TEST(Pad, RandomAwkwardEdgeAndReflect) {
  const Shape shape = {3, 4, 5};
  Tensor x = random_f32(shape, 21);
  std::mt19937_64 rng(5);
  for (const char* mode : {"edge", "reflect", "wrap"}) {
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<int64_t> pads(6);
      for (int d = 0; d < 3; ++d) {
        pads[d] = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[d]));
        pads[d + 3] = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[d]));
      }
      auto y = ok(pad18(x, mode, pads));
      const Shape out = {shape[0] + pads[0] + pads[3], shape[1] + pads[1] + pads[4], shape[2] + pads[2] + pads[5]};
      ASSERT_EQ(y[0].shape(), out);
      // Source index along one axis, by the mode's definition.
      auto src = [&](int64_t o, int d) {
        int64_t i = o - pads[d];
        const int64_t n = shape[d];
        if (std::string(mode) == "edge") return std::clamp<int64_t>(i, 0, n - 1);
        if (std::string(mode) == "wrap") return ((i % n) + n) % n;
        while (i < 0 || i >= n) i = i < 0 ? -i : 2 * (n - 1) - i;  // reflect (pads < n here)
        return i;
      };
      int64_t o = 0;
      for (int64_t a = 0; a < out[0]; ++a)
        for (int64_t b = 0; b < out[1]; ++b)
          for (int64_t c = 0; c < out[2]; ++c)
            ASSERT_EQ(y[0].data<float>()[o++], x.data<float>()[(src(a, 0) * 4 + src(b, 1)) * 5 + src(c, 2)]) << mode;
    }
  }
}

TEST(Pad, Inference) {
  EXPECT_EQ(inferred("Pad", 18, {}, {sym(DType::kFloat32, {"b", "3"}), constant(i64({4}, {0, 1, 0, 2}))}),
            "float32[b, 6]");
  EXPECT_EQ(inferred("Pad", 18, {}, {sym(DType::kFloat32, {"b", "3"}), constant(i64({4}, {1, 0, 0, 0}))}),
            "float32[?, 3]");
  EXPECT_EQ(inferred("Pad", 18, {}, {sym(DType::kFloat32, {"b", "3"}), sym(DType::kInt64, {"4"})}), "float32[?, ?]");
}

// ---- Dropout ---------------------------------------------------------------------------------

TEST(Dropout, InferenceIsIdentityWithTrueMask) {
  Tensor x = random_f32({3, 5}, 4);
  auto y = ok({"Dropout", "", 13, {}, {x}, 2});
  expect_tensor_eq(y[0], x);
  Tensor all_true = Tensor::empty(DType::kBool, {3, 5});
  for (int64_t i = 0; i < 15; ++i) all_true.data<bool>()[i] = true;
  expect_tensor_eq(y[1], all_true);
  // Before opset 10 the mask has the input's type.
  auto old = ok({"Dropout", "", 7, {{"ratio", attr_float(0.3f)}}, {f32({2}, {1, 2})}, 2});
  expect_tensor_eq(old[1], f32({2}, {1, 1}));
  // training_mode with ratio 0 is still the identity.
  auto t0 = ok({"Dropout", "", 13, {}, {f32({2}, {1, 2}), f32({}, {0}), bools({}, {1})}});
  expect_tensor_eq(t0[0], f32({2}, {1, 2}));
}

TEST(Dropout, TrainingModeAndTypeErrors) {
  // Training itself is tested in tests/ops/random_test.cc; here: each element is dropped or scaled.
  auto r = run_op_once({"Dropout", "", 13, {}, {f32({2}, {1, 2}), f32({}, {0.5f}), bools({}, {1})}}, false);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  for (int64_t i = 0; i < 2; ++i) {
    const float y = r.value()[0].data<float>()[i];
    EXPECT_TRUE(y == 0.f || y == 2.f * static_cast<float>(i + 1)) << y;
  }
  expect_error({"Dropout", "", 13, {}, {i64({1}, {1})}}, {"int64"});
}

// ---- Arity: malformed nodes are build errors, not crashes -------------------------------------

TEST(Arity, MissingOrExtraInputsAndOutputs) {
  expect_error({"Gather", "", 13, {}, {iota_f32({3})}}, {"Gather needs 2 inputs", "input 1 is missing"});
  expect_error({"Where", "", 16, {}, {bools({1}, {1}), Tensor(), iota_f32({1})}},
               {"Where needs 3 inputs", "input 1 is empty"});
  expect_error({"Less", "", 13, {}, {iota_f32({1})}}, {"Less needs 2 inputs"});
  expect_error({"Not", "", 1, {}, {bools({1}, {1}), bools({1}, {1})}}, {"Not takes at most 1 input, got 2"});
  expect_error({"Sum", "", 13, {}, {iota_f32({1}), Tensor(), iota_f32({1})}},
               {"Sum needs 3 inputs", "input 1 is empty"});
  expect_error({"Concat", "", 13, {{"axis", attr_int(0)}}, {}}, {"Concat needs at least one input"});
  expect_error({"Slice", "", 13, {}, {iota_f32({3}), i64({1}, {0})}}, {"Slice needs 3 inputs"});
  expect_error({"Cast", "", 13, {{"to", attr_int(1)}}, {iota_f32({1})}, 2}, {"Cast has at most 1 output, got 2"});
  expect_error({"Dropout", "", 13, {}, {iota_f32({1})}, 3}, {"Dropout has at most 2 outputs, got 3"});
}

}  // namespace
}  // namespace hi::test
