// The indexing ops (GatherElements, GatherND, ScatterElements, Scatter, ScatterND, TensorScatter),
// CenterCropPad, Col2Im, MaxUnpool, NonMaxSuppression and RoiAlign. Expected values are worked out
// by hand from the ONNX spec (the spec's own examples where it has them); every error path the ops
// add is hit.
#include <cmath>
#include <limits>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

// A case that must fail when the session is built (constant inputs) and when it runs (graph
// inputs), with every fragment in the message.
void expect_error_both(const OpCase& c, const std::vector<std::string>& fragments) {
  expect_error(c, fragments, false);
  expect_error(c, fragments, true);
}

Tensor i8t(const Shape& s, const std::vector<int8_t>& v) { return make<int8_t>(s, v); }

// ---- GatherElements --------------------------------------------------------------------------

TEST(GatherElements, SpecExamples) {
  expect_tensor_eq(
      run1({"GatherElements", "", 13, {{"axis", attr_int(1)}}, {f32({2, 2}, {1, 2, 3, 4}), i64({2, 2}, {0, 0, 1, 0})}}),
      f32({2, 2}, {1, 1, 4, 3}));
  expect_tensor_eq(run1({"GatherElements",
                         "",
                         13,
                         {{"axis", attr_int(0)}},
                         {f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), i64({2, 3}, {1, 2, 0, 2, 0, 0})}}),
                   f32({2, 3}, {4, 8, 3, 7, 2, 3}));
}

TEST(GatherElements, NegativeIndicesInt32SmallerIndicesAndStrings) {
  // axis -1; indices [2, 2] read the top-left 2x2 block's rows of a 3x3 input.
  expect_tensor_eq(run1({"GatherElements",
                         "",
                         13,
                         {{"axis", attr_int(-1)}},
                         {f32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), i32({2, 2}, {-1, 0, -3, 1})}}),
                   f32({2, 2}, {3, 1, 4, 5}));
  expect_tensor_eq(run1({"GatherElements", "", 11, {}, {strs({2}, {"a", "b"}), i64({3}, {1, 1, 0})}}),
                   strs({3}, {"b", "b", "a"}));
  EXPECT_EQ(run1({"GatherElements", "", 13, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({0, 3}, {})}}).shape(),
            (Shape{0, 3}));
}

TEST(GatherElements, Errors) {
  const Tensor data = f32({2, 2}, {1, 2, 3, 4});
  expect_error_both({"GatherElements", "", 13, {{"axis", attr_int(1)}}, {data, i64({1, 2}, {0, 2})}},
                    {"indices value 2", "element 1", "axis 1 of size 2", "[-2, 1]"});
  expect_error({"GatherElements", "", 13, {}, {data, i64({2}, {0, 1})}}, {"rank"});
  expect_error({"GatherElements", "", 13, {{"axis", attr_int(0)}}, {data, i64({1, 3}, {0, 0, 0})}},
               {"larger than data", "dim 1"});
  expect_error({"GatherElements", "", 13, {}, {data, f32({2, 2}, {0, 0, 0, 0})}}, {"int32 or int64"});
  expect_error({"GatherElements", "", 13, {{"axis", attr_int(2)}}, {data, i64({2, 2}, {0, 0, 0, 0})}}, {"axis"});
}

TEST(GatherElements, InferenceKeepsSymbolicDims) {
  EXPECT_EQ(inferred("GatherElements", 13, {{"axis", attr_int(1)}},
                     {sym(DType::kFloat16, {"N", "5"}), sym(DType::kInt64, {"N", "K"})}),
            "float16[N, K]");
}

// ---- GatherND --------------------------------------------------------------------------------

TEST(GatherND, SpecExamples) {
  const Tensor d2 = i32({2, 2}, {0, 1, 2, 3});
  expect_tensor_eq(run1({"GatherND", "", 13, {}, {d2, i64({2, 2}, {0, 0, 1, 1})}}), i32({2}, {0, 3}));
  expect_tensor_eq(run1({"GatherND", "", 13, {}, {d2, i64({2, 1}, {1, 0})}}), i32({2, 2}, {2, 3, 0, 1}));
  const Tensor d3 = i32({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  expect_tensor_eq(run1({"GatherND", "", 13, {}, {d3, i64({2, 2}, {0, 1, 1, 0})}}), i32({2, 2}, {2, 3, 4, 5}));
  expect_tensor_eq(run1({"GatherND", "", 13, {}, {d3, i64({2, 1, 2}, {0, 1, 1, 0})}}), i32({2, 1, 2}, {2, 3, 4, 5}));
  expect_tensor_eq(run1({"GatherND", "", 13, {{"batch_dims", attr_int(1)}}, {d3, i64({2, 1}, {1, 0})}}),
                   i32({2, 2}, {2, 3, 4, 5}));
}

TEST(GatherND, NegativeIndicesAndBatchDims2) {
  // data [2, 2, 3]; batch_dims 2 picks element indices[b0, b1] of each row.
  expect_tensor_eq(run1({"GatherND",
                         "",
                         13,
                         {{"batch_dims", attr_int(2)}},
                         {f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), i64({2, 2, 1}, {-1, 0, 1, -3})}}),
                   f32({2, 2}, {3, 4, 8, 10}));
}

TEST(GatherND, Errors) {
  const Tensor d = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error_both({"GatherND", "", 13, {}, {d, i64({1, 2}, {1, 3})}}, {"indices value 3", "axis 1 of size 3"});
  expect_error({"GatherND", "", 13, {}, {d, i64({1, 3}, {0, 0, 0})}}, {"last dim of indices", "[1, 2]"});
  expect_error({"GatherND", "", 13, {{"batch_dims", attr_int(1)}}, {d, i64({3, 1}, {0, 0, 0})}},
               {"batch dim 0 differs"});
  expect_error({"GatherND", "", 13, {{"batch_dims", attr_int(2)}}, {d, i64({2, 3}, {0, 0, 0, 0, 0, 0})}},
               {"batch_dims 2"});
  expect_error({"GatherND", "", 13, {{"batch_dims", attr_int(-1)}}, {d, i64({1, 1}, {0})}},
               {"batch_dims must be >= 0"});
  expect_error({"GatherND", "", 13, {}, {d, i32({1, 1}, {0})}}, {"int64"});
}

TEST(GatherND, InferenceKeepsSymbolicDims) {
  EXPECT_EQ(inferred("GatherND", 13, {{"batch_dims", attr_int(1)}},
                     {sym(DType::kFloat32, {"B", "4", "5", "6"}), sym(DType::kInt64, {"B", "K", "1"})}),
            "float32[B, K, 5, 6]");
  EXPECT_EQ(inferred("GatherND", 13, {}, {sym(DType::kFloat32, {"4", "5"}), sym(DType::kInt64, {"K", "?"})}),
            "float32[...]");
}

// ---- ScatterElements / Scatter ---------------------------------------------------------------

TEST(ScatterElements, SpecExamples) {
  expect_tensor_eq(run1({"ScatterElements",
                         "",
                         13,
                         {},
                         {f32({3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0}), i64({2, 3}, {1, 0, 2, 0, 2, 1}),
                          f32({2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})}}),
                   f32({3, 3}, {2.0f, 1.1f, 0, 1.0f, 0, 2.2f, 0, 2.1f, 1.2f}));
  expect_tensor_eq(run1({"ScatterElements",
                         "",
                         13,
                         {{"axis", attr_int(1)}},
                         {f32({1, 5}, {1, 2, 3, 4, 5}), i64({1, 2}, {1, -2}), f32({1, 2}, {1.1f, 2.1f})}}),
                   f32({1, 5}, {1, 1.1f, 3, 2.1f, 5}));
}

TEST(ScatterElements, ReductionsOnDuplicates) {
  const Tensor data = f32({1, 5}, {1, 2, 3, 4, 5});
  const Tensor idx = i64({1, 2}, {1, 1});
  const Tensor upd = f32({1, 2}, {1.1f, 2.1f});
  auto with = [&](const char* r) {
    return run1({"ScatterElements", "", 18, {{"axis", attr_int(1)}, {"reduction", attr_string(r)}}, {data, idx, upd}});
  };
  expect_tensor_near(with("add"), f32({1, 5}, {1, 5.2f, 3, 4, 5}));
  expect_tensor_near(with("mul"), f32({1, 5}, {1, 2 * 1.1f * 2.1f, 3, 4, 5}));
  expect_tensor_eq(with("max"), f32({1, 5}, {1, 2.1f, 3, 4, 5}));
  expect_tensor_eq(with("min"), f32({1, 5}, {1, 1.1f, 3, 4, 5}));
  expect_tensor_eq(with("none"), f32({1, 5}, {1, 2.1f, 3, 4, 5}));  // the last write wins
  // Integer types wrap like the hardware: int8 100 + 100.
  expect_tensor_eq(run1({"ScatterElements",
                         "",
                         16,
                         {{"reduction", attr_string("add")}},
                         {i8t({2}, {100, 1}), i64({1}, {0}), i8t({1}, {100})}}),
                   i8t({2}, {-56, 1}));
}

TEST(ScatterElements, Errors) {
  const Tensor data = f32({2, 2}, {1, 2, 3, 4});
  expect_error_both({"ScatterElements", "", 13, {}, {data, i64({1, 2}, {2, 0}), f32({1, 2}, {9, 9})}},
                    {"indices value 2", "element 0", "axis 0 of size 2"});
  expect_error({"ScatterElements", "", 13, {}, {data, i64({1, 2}, {0, 0}), f32({2, 1}, {9, 9})}},
               {"updates", "shape of indices"});
  expect_error({"ScatterElements", "", 13, {}, {data, i64({1, 2}, {0, 0}), f64({1, 2}, {9, 9})}}, {"type of data"});
  expect_error({"ScatterElements",
                "",
                15,
                {{"reduction", attr_string("add")}},
                {data, i64({1, 2}, {0, 0}), f32({1, 2}, {9, 9})}},
               {"needs opset 16"});
  expect_error({"ScatterElements",
                "",
                16,
                {{"reduction", attr_string("max")}},
                {data, i64({1, 2}, {0, 0}), f32({1, 2}, {9, 9})}},
               {"needs opset 18"});
  expect_error({"ScatterElements",
                "",
                18,
                {{"reduction", attr_string("sub")}},
                {data, i64({1, 2}, {0, 0}), f32({1, 2}, {9, 9})}},
               {"not one of none, add, mul, max, min"});
  expect_error({"ScatterElements",
                "",
                18,
                {{"reduction", attr_string("add")}},
                {strs({1}, {"a"}), i64({1}, {0}), strs({1}, {"b"})}},
               {"with a reduction", "string"});
  expect_error({"ScatterElements", "", 18, {}, {data, i64({2}, {0, 0}), f32({2}, {9, 9})}}, {"rank of data"});
}

TEST(Scatter, DeprecatedOpset9And10Only) {
  expect_tensor_eq(run1({"Scatter",
                         "",
                         10,
                         {{"axis", attr_int(1)}},
                         {f32({1, 5}, {1, 2, 3, 4, 5}), i64({1, 2}, {1, 3}), f32({1, 2}, {1.1f, 2.1f})}}),
                   f32({1, 5}, {1, 1.1f, 3, 2.1f, 5}));
  expect_error({"Scatter", "", 11, {}, {f32({1}, {1}), i64({1}, {0}), f32({1}, {2})}},
               {"removed in opset 11", "ScatterElements"});
}

TEST(ScatterElements, InferenceAndStrings) {
  EXPECT_EQ(inferred("ScatterElements", 18, {},
                     {sym(DType::kInt32, {"N", "4"}), sym(DType::kInt64, {"K", "4"}), sym(DType::kInt32, {"K", "4"})}),
            "int32[N, 4]");
  expect_tensor_eq(
      run1({"ScatterElements", "", 13, {}, {strs({3}, {"a", "b", "c"}), i64({1}, {-1}), strs({1}, {"z"})}}),
      strs({3}, {"a", "b", "z"}));
}

// ---- ScatterND -------------------------------------------------------------------------------

TEST(ScatterND, SpecExamples) {
  expect_tensor_eq(run1({"ScatterND",
                         "",
                         13,
                         {},
                         {f32({8}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({4, 1}, {4, 3, 1, 7}), f32({4}, {9, 10, 11, 12})}}),
                   f32({8}, {1, 11, 3, 10, 9, 6, 7, 12}));
  // Slices: data [2, 2, 2], indices [[1], [0]] replace whole [2, 2] blocks.
  expect_tensor_eq(run1({"ScatterND",
                         "",
                         13,
                         {},
                         {f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({2, 1}, {1, 0}),
                          f32({2, 2, 2}, {10, 20, 30, 40, 50, 60, 70, 80})}}),
                   f32({2, 2, 2}, {50, 60, 70, 80, 10, 20, 30, 40}));
}

TEST(ScatterND, ReductionsAndNegativeIndices) {
  const Tensor data = i64({4}, {1, 2, 3, 4});
  const Tensor idx = i64({3, 1}, {1, -3, 3});
  const Tensor upd = i64({3}, {5, 6, 0});
  auto with = [&](const char* r) {
    return run1({"ScatterND", "", 18, {{"reduction", attr_string(r)}}, {data, idx, upd}});
  };
  expect_tensor_eq(with("add"), i64({4}, {1, 13, 3, 4}));
  expect_tensor_eq(with("mul"), i64({4}, {1, 60, 3, 0}));
  expect_tensor_eq(with("max"), i64({4}, {1, 6, 3, 4}));
  expect_tensor_eq(with("min"), i64({4}, {1, 2, 3, 0}));
  // k = rank: element indices into a 2x2, as in the backend test.
  expect_tensor_eq(run1({"ScatterND",
                         "",
                         18,
                         {{"reduction", attr_string("max")}},
                         {f32({2, 2}, {1, 2, 3, 4}), i64({2, 2}, {0, 0, 1, 1}), f32({2}, {5, 0})}}),
                   f32({2, 2}, {5, 2, 3, 4}));
}

TEST(ScatterND, Errors) {
  const Tensor data = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error_both({"ScatterND", "", 13, {}, {data, i64({1, 2}, {1, -4}), f32({1}, {0})}},
                    {"indices value -4", "axis 1 of size 3"});
  expect_error({"ScatterND", "", 13, {}, {data, i64({1, 1}, {0}), f32({2}, {0, 0})}}, {"must have shape", "[1, 3]"});
  expect_error({"ScatterND", "", 13, {}, {data, i64({1, 3}, {0, 0, 0}), f32({1}, {0})}}, {"exceeds the rank of data"});
  expect_error({"ScatterND", "", 13, {}, {data, i32({1, 1}, {0}), f32({1, 3}, {0, 0, 0})}}, {"int64"});
  expect_error(
      {"ScatterND", "", 16, {{"reduction", attr_string("min")}}, {data, i64({1, 1}, {0}), f32({1, 3}, {0, 0, 0})}},
      {"needs opset 18"});
}

TEST(ScatterND, Inference) {
  EXPECT_EQ(
      inferred("ScatterND", 18, {},
               {sym(DType::kFloat32, {"N", "3"}), sym(DType::kInt64, {"K", "1"}), sym(DType::kFloat32, {"K", "3"})}),
      "float32[N, 3]");
  EXPECT_NE(
      inferred("ScatterND", 18, {},
               {sym(DType::kFloat32, {"N", "3"}), sym(DType::kInt64, {"K", "1"}), sym(DType::kFloat32, {"K", "4"})})
          .find("error"),
      std::string::npos);
}

// ---- TensorScatter ---------------------------------------------------------------------------

TEST(TensorScatter, LinearCircularAndDefaultIndices) {
  const Tensor past = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  const Tensor upd = f32({2, 2, 1}, {7, 8, 9, 10});
  expect_tensor_eq(run1({"TensorScatter", "", 24, {}, {past, upd, i64({2}, {1, 0})}}),
                   f32({2, 3, 1}, {1, 7, 8, 9, 10, 6}));
  expect_tensor_eq(run1({"TensorScatter", "", 24, {{"mode", attr_string("circular")}}, {past, upd, i64({2}, {2, 4})}}),
                   f32({2, 3, 1}, {8, 2, 7, 4, 9, 10}));
  expect_tensor_eq(run1({"TensorScatter", "", 24, {}, {past, upd}}), f32({2, 3, 1}, {7, 8, 3, 9, 10, 6}));
  // A huge circular write index wraps without overflowing: INT64_MAX % 3 = 1.
  expect_tensor_eq(run1({"TensorScatter",
                         "",
                         24,
                         {{"mode", attr_string("circular")}},
                         {past, upd, i64({2}, {std::numeric_limits<int64_t>::max(), 0})}}),
                   f32({2, 3, 1}, {1, 7, 8, 9, 10, 6}));
  // Sequence axis 1 of a 4-D cache with a head dim in between: axis=2.
  expect_tensor_eq(run1({"TensorScatter",
                         "",
                         24,
                         {{"axis", attr_int(2)}},
                         {i32({1, 2, 2, 1}, {0, 0, 0, 0}), i32({1, 2, 1, 1}, {5, 6}), i64({1}, {1})}}),
                   i32({1, 2, 2, 1}, {0, 5, 0, 6}));
}

TEST(TensorScatter, Errors) {
  const Tensor past = f32({2, 3, 1}, {1, 2, 3, 4, 5, 6});
  const Tensor upd = f32({2, 2, 1}, {7, 8, 9, 10});
  expect_error({"TensorScatter", "", 24, {}, {past, upd, i64({2}, {2, 0})}},
               {"write_indices[0] = 2", "expected [0, 1]"});
  expect_error({"TensorScatter", "", 24, {{"mode", attr_string("circular")}}, {past, upd, i64({2}, {-1, 0})}},
               {"negative"});
  expect_error({"TensorScatter", "", 24, {}, {past, upd, i64({3}, {0, 0, 0})}}, {"write_indices", "[2]"});
  expect_error({"TensorScatter", "", 24, {{"axis", attr_int(0)}}, {past, upd}}, {"batch dim"});
  expect_error({"TensorScatter", "", 24, {}, {past, f32({2, 4, 1}, std::vector<float>(8, 0))}}, {"longer sequence"});
  expect_error({"TensorScatter", "", 24, {}, {past, f32({2, 2, 2}, std::vector<float>(8, 0))}},
               {"differs from past_cache"});
  expect_error({"TensorScatter", "", 24, {{"mode", attr_string("ring")}}, {past, upd}},
               {"not one of linear, circular"});
}

// ---- CenterCropPad ---------------------------------------------------------------------------

TEST(CenterCropPad, CropAndPadOddDifferences) {
  // Crop 5 -> 2 keeps [1, 3) (start 3/2 = 1); pad 2 -> 5 puts the data at [1, 3).
  expect_tensor_eq(run1({"CenterCropPad", "", 18, {}, {f32({5}, {1, 2, 3, 4, 5}), i64({1}, {2})}}), f32({2}, {2, 3}));
  expect_tensor_eq(run1({"CenterCropPad", "", 18, {}, {f32({2}, {1, 2}), i64({1}, {5})}}), f32({5}, {0, 1, 2, 0, 0}));
  // Rows cropped 3 -> 1 (middle), columns padded 2 -> 4 (one each side); int32.
  expect_tensor_eq(run1({"CenterCropPad",
                         "",
                         18,
                         {{"axes", attr_ints({-2, 1})}},
                         {i32({3, 2}, {1, 2, 3, 4, 5, 6}), i64({2}, {1, 4})}}),
                   i32({1, 4}, {0, 3, 4, 0}));
  expect_tensor_eq(run1({"CenterCropPad", "", 18, {}, {strs({1}, {"x"}), i64({1}, {2})}}), strs({2}, {"x", ""}));
}

TEST(CenterCropPad, ErrorsAndInference) {
  expect_error_both({"CenterCropPad", "", 18, {}, {f32({2, 2}, {1, 2, 3, 4}), i64({1}, {2})}},
                    {"one value per axis (2)"});
  expect_error_both({"CenterCropPad", "", 18, {}, {f32({2}, {1, 2}), i64({1}, {-1})}}, {"negative"});
  expect_error({"CenterCropPad", "", 18, {{"axes", attr_ints({0, 0})}}, {f32({2}, {1, 2}), i64({2}, {1, 1})}},
               {"more than once"});
  EXPECT_EQ(inferred("CenterCropPad", 18, {{"axes", attr_ints({1})}},
                     {sym(DType::kFloat32, {"N", "7"}), constant(i64({1}, {3}))}),
            "float32[N, 3]");
  EXPECT_EQ(inferred("CenterCropPad", 18, {}, {sym(DType::kFloat32, {"N", "7"}), sym(DType::kInt64, {"2"})}),
            "float32[?, ?]");
}

// ---- Col2Im ----------------------------------------------------------------------------------

TEST(Col2Im, OverlappingAndStridedBlocks) {
  // Image [1, 4], blocks [1, 2] at columns 0, 1, 2: column c sums block b's element c - b.
  expect_tensor_eq(
      run1({"Col2Im", "", 18, {}, {f32({1, 2, 3}, {1, 2, 3, 10, 20, 30}), i64({2}, {1, 4}), i64({2}, {1, 2})}}),
      f32({1, 1, 1, 4}, {1, 12, 23, 30}));
  expect_tensor_eq(run1({"Col2Im",
                         "",
                         18,
                         {{"strides", attr_ints({1, 2})}},
                         {f32({1, 2, 2}, {1, 2, 10, 20}), i64({2}, {1, 4}), i64({2}, {1, 2})}}),
                   f32({1, 1, 1, 4}, {1, 10, 2, 20}));
  // Padding one column on the left: block 0 starts at column -1, its first element is dropped.
  expect_tensor_eq(run1({"Col2Im",
                         "",
                         18,
                         {{"pads", attr_ints({0, 1, 0, 0})}},
                         {i32({1, 2, 2}, {1, 2, 10, 20}), i64({2}, {1, 2}), i64({2}, {1, 2})}}),
                   i32({1, 1, 1, 2}, {12, 20}));
}

TEST(Col2Im, Errors) {
  expect_error_both({"Col2Im", "", 18, {}, {f32({1, 2, 2}, {1, 2, 3, 4}), i64({2}, {1, 4}), i64({2}, {1, 2})}},
                    {"number of sliding blocks", "= 3"});
  expect_error_both(
      {"Col2Im", "", 18, {}, {f32({1, 3, 3}, std::vector<float>(9, 0)), i64({2}, {1, 4}), i64({2}, {1, 2})}},
      {"not a multiple"});
  expect_error_both({"Col2Im", "", 18, {}, {f32({1, 2, 3}, std::vector<float>(6, 0)), i64({2}, {1, 4}), i64({1}, {2})}},
                    {"same, non-zero length"});
  expect_error_both(
      {"Col2Im", "", 18, {}, {f32({1, 2, 3}, std::vector<float>(6, 0)), i64({2}, {1, 1}), i64({2}, {1, 2})}},
      {"does not fit"});
  expect_error({"Col2Im",
                "",
                18,
                {{"strides", attr_ints({0, 1})}},
                {f32({1, 2, 3}, std::vector<float>(6, 0)), i64({2}, {1, 4}), i64({2}, {1, 2})}},
               {"must be positive"});
  expect_error({"Col2Im",
                "",
                18,
                {{"dilations", attr_ints({int64_t{1} << 40, 1})}},
                {f32({1, 2, 3}, std::vector<float>(6, 0)), i64({2}, {1, 4}), i64({2}, {1, 2})}},
               {"too large"});
  EXPECT_EQ(inferred("Col2Im", 18, {},
                     {sym(DType::kFloat32, {"N", "6", "3"}), constant(i64({2}, {1, 4})), constant(i64({2}, {1, 2}))}),
            "float32[N, 3, 1, 4]");
}

// ---- MaxUnpool -------------------------------------------------------------------------------

TEST(MaxUnpool, IndicesIntoTheUnpooledTensor) {
  const Tensor x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  const Tensor ind = i64({1, 1, 2, 2}, {5, 7, 13, 15});
  const Attrs a = {{"kernel_shape", attr_ints({2, 2})}, {"strides", attr_ints({2, 2})}};
  expect_tensor_eq(run1({"MaxUnpool", "", 11, a, {x, ind}}),
                   f32({1, 1, 4, 4}, {0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 7, 0, 8}));
  // output_shape: the 4x4 result sits at the start of a 5x5 zero tensor (the backend test).
  expect_tensor_eq(run1({"MaxUnpool", "", 11, a, {x, ind, i64({4}, {1, 1, 5, 5})}}),
                   f32({1, 1, 5, 5}, {0, 0, 0, 0, 0, 0, 5, 0, 6, 0, 0, 0, 0, 0, 0, 0, 7, 0, 8, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(inferred("MaxUnpool", 11, a,
                     {sym(DType::kFloat32, {"N", "3", "2", "W"}), sym(DType::kInt64, {"N", "3", "2", "W"})}),
            "float32[N, 3, 4, W]");
}

TEST(MaxUnpool, Errors) {
  const Tensor x = f32({1, 1, 2, 2}, {5, 6, 7, 8});
  const Attrs a = {{"kernel_shape", attr_ints({2, 2})}, {"strides", attr_ints({2, 2})}};
  expect_error_both({"MaxUnpool", "", 11, a, {x, i64({1, 1, 2, 2}, {5, 7, 13, 16})}},
                    {"I value 16", "element 3", "[0, 15]"});
  expect_error_both({"MaxUnpool", "", 11, a, {x, i64({1, 1, 2, 2}, {5, 7, 13, -1})}}, {"I value -1"});
  expect_error_both({"MaxUnpool", "", 11, a, {x, i64({1, 1, 2, 2}, {0, 1, 2, 3}), i64({4}, {1, 1, 3, 4})}},
                    {"does not hold the unpooled tensor"});
  expect_error({"MaxUnpool", "", 11, {}, {x, i64({1, 1, 2, 2}, {0, 1, 2, 3})}}, {"kernel_shape"});
  expect_error({"MaxUnpool", "", 11, a, {x, i64({1, 2, 2}, {0, 1, 2, 3})}}, {"shape of X"});
  expect_error({"MaxUnpool", "", 11, {{"kernel_shape", attr_ints({2})}}, {x, i64({1, 1, 2, 2}, {0, 1, 2, 3})}},
               {"for 2 spatial dims"});
  expect_error({"MaxUnpool",
                "",
                11,
                {{"kernel_shape", attr_ints({2, 2})}, {"strides", attr_ints({int64_t{1} << 40, 1})}},
                {x, i64({1, 1, 2, 2}, {0, 1, 2, 3})}},
               {"exceed"});
}

// ---- NonMaxSuppression -----------------------------------------------------------------------

Tensor nms_boxes() {
  return f32({1, 6, 4},
             {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f, 0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
}
const Tensor kNmsScores = f32({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f});

TEST(NonMaxSuppression, SpecExampleSuppressByIou) {
  expect_tensor_eq(run1({"NonMaxSuppression",
                         "",
                         11,
                         {},
                         {nms_boxes(), kNmsScores, i64({1}, {3}), f32({1}, {0.5f}), f32({1}, {0.0f})}}),
                   i64({3, 3}, {0, 0, 3, 0, 0, 0, 0, 0, 5}));
  // A score threshold of 0.4 drops box 5 (0.3); a limit of 2 keeps the two best survivors.
  expect_tensor_eq(run1({"NonMaxSuppression",
                         "",
                         11,
                         {},
                         {nms_boxes(), kNmsScores, i64({1}, {2}), f32({1}, {0.5f}), f32({1}, {0.4f})}}),
                   i64({2, 3}, {0, 0, 3, 0, 0, 0}));
  // No max_output_boxes_per_class: nothing is selected.
  EXPECT_EQ(run1({"NonMaxSuppression", "", 11, {}, {nms_boxes(), kNmsScores}}).shape(), (Shape{0, 3}));
}

TEST(NonMaxSuppression, CenterPointBoxesAndTwoClasses) {
  // [x_center, y_center, w, h]: the first two overlap with IoU 0.75 / 1.75 = 0.43, the third is apart.
  const Tensor boxes = f32({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.75f, 0.5f, 1, 1.5f, 5, 5, 1, 1});
  const Tensor scores = f32({1, 2, 3}, {0.9f, 0.8f, 0.7f, 0.1f, 0.2f, 0.3f});
  expect_tensor_eq(run1({"NonMaxSuppression",
                         "",
                         11,
                         {{"center_point_box", attr_int(1)}},
                         {boxes, scores, i64({1}, {5}), f32({1}, {0.4f})}}),
                   i64({4, 3}, {0, 0, 0, 0, 0, 2, 0, 1, 2, 0, 1, 1}));
}

TEST(NonMaxSuppression, Errors) {
  expect_error({"NonMaxSuppression", "", 11, {}, {nms_boxes(), kNmsScores, i64({1}, {3}), f32({1}, {1.5f})}},
               {"iou_threshold 1.5", "[0, 1]"});
  expect_error({"NonMaxSuppression", "", 11, {}, {f32({1, 6, 3}, std::vector<float>(18, 0)), kNmsScores}},
               {"[batches, boxes, 4]"});
  expect_error({"NonMaxSuppression", "", 11, {}, {nms_boxes(), f32({1, 1, 5}, {1, 2, 3, 4, 5})}}, {"number of boxes"});
  expect_error({"NonMaxSuppression", "", 11, {{"center_point_box", attr_int(2)}}, {nms_boxes(), kNmsScores}},
               {"center_point_box must be 0 or 1"});
  expect_error({"NonMaxSuppression", "", 11, {}, {nms_boxes(), kNmsScores, i64({2}, {1, 2})}}, {"one value"});
  EXPECT_EQ(inferred("NonMaxSuppression", 11, {},
                     {sym(DType::kFloat32, {"B", "N", "4"}), sym(DType::kFloat32, {"B", "C", "N"})}),
            "int64[?, 3]");
}

// ---- RoiAlign --------------------------------------------------------------------------------

// X[h][w] = w on a 4x4 image.
Tensor ramp_image() {
  std::vector<float> v;
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w) v.push_back(static_cast<float>(w));
  return f32({1, 1, 4, 4}, v);
}

TEST(RoiAlign, AverageOnARampBothCoordinateModes) {
  const Tensor rois = f32({1, 4}, {0, 0, 3, 3});
  const Tensor bi = i64({1}, {0});
  Attrs a = {{"output_height", attr_int(2)},
             {"output_width", attr_int(2)},
             {"sampling_ratio", attr_int(1)},
             {"coordinate_transformation_mode", attr_string("output_half_pixel")}};
  // Bins of 1.5 pixels, one sample at each bin centre: x = 0.75 and 2.25.
  expect_tensor_near(run1({"RoiAlign", "", 16, a, {ramp_image(), rois, bi}}),
                     f32({1, 1, 2, 2}, {0.75f, 2.25f, 0.75f, 2.25f}));
  // half_pixel shifts the ROI by -0.5: samples at 0.25 and 1.75.
  a["coordinate_transformation_mode"] = attr_string("half_pixel");
  expect_tensor_near(run1({"RoiAlign", "", 16, a, {ramp_image(), rois, bi}}),
                     f32({1, 1, 2, 2}, {0.25f, 1.75f, 0.25f, 1.75f}));
  // Before opset 16 output_half_pixel is the only behaviour.
  expect_tensor_near(
      run1({"RoiAlign",
            "",
            10,
            {{"output_height", attr_int(1)}, {"output_width", attr_int(1)}, {"sampling_ratio", attr_int(1)}},
            {ramp_image(), rois, bi}}),
      f32({1, 1, 1, 1}, {1.5f}));
}

TEST(RoiAlign, MaxTakesTheLargestWeightedCorner) {
  // Samples at (0.75, 0.75), (0.75, 2.25), (2.25, 0.75), (2.25, 2.25); each bin's value is the
  // largest of the four corner products w_i * X_i (see the op's comment).
  const Attrs a = {{"output_height", attr_int(2)},
                   {"output_width", attr_int(2)},
                   {"sampling_ratio", attr_int(1)},
                   {"mode", attr_string("max")},
                   {"coordinate_transformation_mode", attr_string("output_half_pixel")}};
  expect_tensor_near(run1({"RoiAlign", "", 16, a, {ramp_image(), f32({1, 4}, {0, 0, 3, 3}), i64({1}, {0})}}),
                     f32({1, 1, 2, 2}, {0.5625f, 1.125f, 0.5625f, 1.125f}));
}

TEST(RoiAlign, ErrorsAndInference) {
  const Tensor x = ramp_image();
  expect_error({"RoiAlign", "", 16, {}, {x, f32({1, 4}, {0, 0, 1, 1}), i64({1}, {1})}},
               {"batch_indices[0] = 1", "[0, 0]"});
  expect_error({"RoiAlign", "", 16, {}, {x, f32({1, 3}, {0, 0, 1}), i64({1}, {0})}}, {"[num_rois, 4]"});
  expect_error({"RoiAlign", "", 16, {}, {x, f32({2, 4}, std::vector<float>(8, 0)), i64({1}, {0})}}, {"num_rois"});
  expect_error({"RoiAlign", "", 16, {{"mode", attr_string("min")}}, {x, f32({1, 4}, {0, 0, 1, 1}), i64({1}, {0})}},
               {"not one of avg, max"});
  expect_error({"RoiAlign",
                "",
                16,
                {{"coordinate_transformation_mode", attr_string("asymmetric")}},
                {x, f32({1, 4}, {0, 0, 1, 1}), i64({1}, {0})}},
               {"half_pixel, output_half_pixel"});
  expect_error({"RoiAlign", "", 16, {{"output_height", attr_int(0)}}, {x, f32({1, 4}, {0, 0, 1, 1}), i64({1}, {0})}},
               {"must be positive"});
  expect_error(
      {"RoiAlign", "", 16, {{"sampling_ratio", attr_int(20000)}}, {x, f32({1, 4}, {0, 0, 1, 1}), i64({1}, {0})}},
      {"more than 1e8 is refused"});
  expect_error({"RoiAlign", "", 16, {}, {x, f32({1, 4}, {0, 0, 1e6f, 1e6f}), i64({1}, {0})}},
               {"ROI 0 needs 1000000 x 1000000"});
  EXPECT_EQ(inferred("RoiAlign", 16, {{"output_height", attr_int(7)}, {"output_width", attr_int(5)}},
                     {sym(DType::kFloat32, {"N", "C", "H", "W"}), sym(DType::kFloat32, {"R", "4"}),
                      sym(DType::kInt64, {"R"})}),
            "float32[R, C, 7, 5]");
}

}  // namespace
}  // namespace hi::test
