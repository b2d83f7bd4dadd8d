// The normalisations (LpNorm, MVN, RMSNorm, GroupNorm), the losses (NegativeLogLikelihoodLoss,
// SoftmaxCrossEntropyLoss), Det, Einsum, TopK, Unique and MelWeightMatrix. Expected values are
// worked out by hand from the ONNX spec (MelWeightMatrix's also agree with the ONNX reference
// implementation).
#include <cmath>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

// Any numeric tensor's values as float32 (to compare 16-bit float results).
Tensor to_f32(const Tensor& t) {
  Tensor out = Tensor::empty(DType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) out.data<float>()[i] = static_cast<float>(t.as_double(i));
  return out;
}

std::vector<Tensor> run_n(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value() : std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
}
Tensor run1(const OpCase& c) { return run_n(c)[0]; }

// ---- LpNormalization, MeanVarianceNormalization --------------------------------------------

TEST(LpNormalization, L1AndL2) {
  expect_tensor_near(run1({"LpNormalization", "", 22, {}, {f32({2, 2}, {3, 4, 0, 0})}}),
                     f32({2, 2}, {0.6f, 0.8f, 0, 0}));
  expect_tensor_near(run1({"LpNormalization", "", 22, {{"p", attr_int(1)}}, {f32({2}, {1, -3})}}),
                     f32({2}, {0.25f, -0.75f}));
  expect_tensor_near(run1({"LpNormalization", "", 1, {{"axis", attr_int(0)}}, {f32({2, 2}, {3, 1, 4, 0})}}),
                     f32({2, 2}, {0.6f, 1, 0.8f, 0}));
  expect_tensor_near(to_f32(run1({"LpNormalization", "", 22, {}, {bf16({2}, {3, 4})}})), f32({2}, {0.6f, 0.8f}), 1e-2,
                     1e-2);
  expect_error({"LpNormalization", "", 22, {{"p", attr_int(3)}}, {f32({2}, {1, 2})}}, {"'p'", "3"});
  expect_error({"LpNormalization", "", 22, {{"axis", attr_int(1)}}, {f32({2}, {1, 2})}}, {"axis 1"});
}

TEST(MeanVarianceNormalization, DefaultAndCustomAxes) {
  // Default axes [0, 2, 3]: one channel, mean 2.5, std sqrt(1.25).
  expect_tensor_near(run1({"MeanVarianceNormalization", "", 13, {}, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}}),
                     f32({1, 1, 2, 2}, {-1.34164079f, -0.447213595f, 0.447213595f, 1.34164079f}));
  // Per row; a constant row gives zeros (0 / 1e-9).
  expect_tensor_near(
      run1({"MeanVarianceNormalization", "", 13, {{"axes", attr_ints({1})}}, {f32({2, 2}, {1, 3, 2, 2})}}),
      f32({2, 2}, {-1, 1, 0, 0}));
  expect_error({"MeanVarianceNormalization", "", 13, {}, {f32({2, 2}, {1, 3, 2, 2})}}, {"axes", "rank 2"});
  expect_error({"MeanVarianceNormalization", "", 13, {{"axes", attr_ints({1, -1})}}, {f32({2, 2}, {1, 3, 2, 2})}},
               {"more than once"});
  expect_error({"MeanVarianceNormalization", "", 13, {}, {i32({1, 1, 1, 1}, {1})}}, {"int32"});
}

// ---- RMSNormalization, GroupNormalization --------------------------------------------------

TEST(RMSNormalization, Rows) {
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  const Attrs eps0 = {{"epsilon", attr_float(0)}};
  expect_tensor_near(run1({"RMSNormalization", "", 23, eps0, {x, f32({2}, {1, 2})}}),
                     f32({2, 2}, {0.632455532f, 2.52982213f, 0.848528137f, 2.2627417f}));
  // axis 0: one row of all four elements, rms = sqrt(7.5).
  Attrs axis0 = eps0;
  axis0["axis"] = attr_int(0);
  expect_tensor_near(run1({"RMSNormalization", "", 23, axis0, {x, f32({1}, {2})}}),
                     f32({2, 2}, {0.730296743f, 1.46059349f, 2.19089023f, 2.92118698f}));
  // X float16 and scale float32: Y has scale's type.
  const Tensor y = run1({"RMSNormalization", "", 23, eps0, {f16({2}, {3, 4}), f32({2}, {1, 1})}});
  ASSERT_EQ(y.dtype(), DType::kFloat32);
  expect_tensor_near(y, f32({2}, {0.848632812f, 1.13183594f}), 1e-3, 1e-3);
}

TEST(RMSNormalization, Errors) {
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  expect_error({"RMSNormalization", "", 23, {}, {x, f32({3}, {1, 2, 3})}}, {"scale", "broadcast"});
  expect_error({"RMSNormalization", "", 23, {{"axis", attr_int(2)}}, {x, f32({2}, {1, 2})}}, {"axis 2"});
  expect_error({"RMSNormalization", "", 23, {}, {i32({2}, {1, 2}), f32({2}, {1, 2})}}, {"int32"});
  expect_error({"RMSNormalization", "", 22, {}, {x, f32({2}, {1, 2})}}, {"RMSNormalization"});
}

TEST(GroupNormalization, PerChannelAndPerGroup) {
  const Tensor x = f32({1, 4, 1, 1}, {1, 2, 3, 4});
  const Attrs a = {{"num_groups", attr_int(2)}, {"epsilon", attr_float(0)}};
  // Opset 21: scale and bias per channel.
  expect_tensor_near(run1({"GroupNormalization", "", 21, a, {x, f32({4}, {1, 1, 2, 2}), f32({4}, {0, 0, 1, 1})}}),
                     f32({1, 4, 1, 1}, {-1, 1, -1, 3}));
  // Opset 18: per group.
  expect_tensor_near(run1({"GroupNormalization", "", 18, a, {x, f32({2}, {1, 2}), f32({2}, {0, 1})}}),
                     f32({1, 4, 1, 1}, {-1, 1, -1, 3}));
  // Spatial dims join the group: [1, 2, 2] with one group of 4 values.
  expect_tensor_near(run1({"GroupNormalization",
                           "",
                           21,
                           {{"num_groups", attr_int(1)}, {"epsilon", attr_float(0)}},
                           {f32({1, 2, 2}, {1, 2, 3, 4}), f32({2}, {1, 1}), f32({2}, {0, 0})}}),
                     f32({1, 2, 2}, {-1.34164079f, -0.447213595f, 0.447213595f, 1.34164079f}));
}

TEST(GroupNormalization, Errors) {
  const Tensor x = f32({1, 4, 1, 1}, {1, 2, 3, 4});
  const Tensor s4 = f32({4}, {1, 1, 1, 1});
  expect_error({"GroupNormalization", "", 21, {{"num_groups", attr_int(3)}}, {x, s4, s4}}, {"multiple of num_groups"});
  expect_error({"GroupNormalization", "", 21, {}, {x, s4, s4}}, {"num_groups"});
  expect_error({"GroupNormalization", "", 21, {{"num_groups", attr_int(2)}}, {x, f32({2}, {1, 1}), s4}},
               {"scale", "per channel"});
  expect_error({"GroupNormalization", "", 18, {{"num_groups", attr_int(2)}}, {x, s4, s4}}, {"scale", "per group"});
}

// ---- losses --------------------------------------------------------------------------------

TEST(NegativeLogLikelihoodLoss, Reductions) {
  const Tensor x = f32({2, 3}, {-1, -2, -3, -4, -5, -6});
  const Tensor t = i64({2}, {2, 0});
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {{"reduction", attr_string("none")}}, {x, t}}),
                     f32({2}, {3, 4}));
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {{"reduction", attr_string("sum")}}, {x, t}}),
                     f32({}, {7}));
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {}, {x, t}}), f32({}, {3.5f}));
  // Weighted mean: sum(w * loss) / sum(w) = (2*3 + 0.5*4) / 2.5.
  const Tensor w = f32({3}, {0.5f, 1, 2});
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {}, {x, t, w}}), f32({}, {3.2f}));
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {{"reduction", attr_string("none")}}, {x, t, w}}),
                     f32({2}, {6, 2}));
  // ignore_index: the ignored sample is 0 and leaves the mean's count.
  const Attrs ii = {{"ignore_index", attr_int(0)}, {"reduction", attr_string("none")}};
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, ii, {x, t}}), f32({2}, {3, 0}));
  expect_tensor_near(run1({"NegativeLogLikelihoodLoss", "", 22, {{"ignore_index", attr_int(0)}}, {x, t}}),
                     f32({}, {3}));
  // An ignore_index outside [0, C) with int32 targets.
  expect_tensor_near(
      run1({"NegativeLogLikelihoodLoss", "", 13, {{"ignore_index", attr_int(-1)}}, {x, i32({2}, {-1, 1})}}),
      f32({}, {5}));
}

TEST(NegativeLogLikelihoodLoss, SpatialDims) {
  // N=1, C=2, d=2: target [[1, 0]] picks x[0,1,0] and x[0,0,1].
  const Tensor x = f64({1, 2, 2}, {-1, -2, -3, -4});
  expect_tensor_near(
      run1({"NegativeLogLikelihoodLoss", "", 22, {{"reduction", attr_string("none")}}, {x, i64({1, 2}, {1, 0})}}),
      f64({1, 2}, {3, 2}));
  EXPECT_EQ(inferred("NegativeLogLikelihoodLoss", 22, {{"reduction", attr_string("none")}},
                     {sym(DType::kFloat32, {"N", "5", "D"}), sym(DType::kInt64, {"N", "D"})}),
            "float32[N, D]");
  EXPECT_EQ(
      inferred("NegativeLogLikelihoodLoss", 22, {}, {sym(DType::kFloat32, {"N", "5"}), sym(DType::kInt64, {"N"})}),
      "float32[]");
}

TEST(NegativeLogLikelihoodLoss, Errors) {
  const Tensor x = f32({2, 3}, {-1, -2, -3, -4, -5, -6});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {}, {x, i64({2}, {3, 0})}}, {"target value 3", "[0, 3)"});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {{"ignore_index", attr_int(1)}}, {x, i64({2}, {-1, 0})}},
               {"target value -1", "ignore_index 1"});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {{"reduction", attr_string("avg")}}, {x, i64({2}, {0, 0})}},
               {"reduction", "avg"});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {}, {x, i64({3}, {0, 0, 0})}}, {"without its class dim"});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {}, {x, i64({2}, {0, 0}), f32({2}, {1, 1})}}, {"weight"});
  expect_error({"NegativeLogLikelihoodLoss", "", 22, {}, {x, f32({2}, {0, 0})}}, {"target", "int32 or int64"});
}

TEST(SoftmaxCrossEntropyLoss, LossAndLogProb) {
  const Tensor x = f32({2, 3}, {0, 0, 0, 1, 2, 3});
  const Tensor t = i64({2}, {1, 2});
  const auto out = run_n({"SoftmaxCrossEntropyLoss", "", 13, {{"reduction", attr_string("none")}}, {x, t}, 2});
  expect_tensor_near(out[0], f32({2}, {1.09861229f, 0.407605964f}));
  expect_tensor_near(
      out[1], f32({2, 3}, {-1.09861229f, -1.09861229f, -1.09861229f, -2.40760596f, -1.40760596f, -0.407605964f}));
  expect_tensor_near(run1({"SoftmaxCrossEntropyLoss", "", 13, {}, {x, t}}), f32({}, {0.753109127f}));
  // Weighted and ignored: only sample 1 counts, weight 2.
  expect_tensor_near(
      run1({"SoftmaxCrossEntropyLoss", "", 13, {{"ignore_index", attr_int(1)}}, {x, t, f32({3}, {1, 1, 2})}}),
      f32({}, {0.407605964f}));
  expect_tensor_near(
      run1({"SoftmaxCrossEntropyLoss", "", 13, {{"reduction", attr_string("sum")}}, {x, t, f32({3}, {1, 1, 2})}}),
      f32({}, {1.09861229f + 2 * 0.407605964f}));
}

TEST(SoftmaxCrossEntropyLoss, InferenceAndErrors) {
  auto r = infer_types("SoftmaxCrossEntropyLoss", 13, {{"reduction", attr_string("none")}},
                       {sym(DType::kFloat32, {"N", "4", "D"}), sym(DType::kInt64, {"N", "D"})}, 2);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r.value()[0], "float32[N, D]");
  EXPECT_EQ(r.value()[1], "float32[N, 4, D]");
  expect_error({"SoftmaxCrossEntropyLoss", "", 13, {}, {f32({2}, {0, 0}), i64({2}, {0, 0})}}, {"[N, C, ...]"});
  expect_error({"SoftmaxCrossEntropyLoss", "", 13, {}, {f32({1, 2}, {0, 0}), i64({1}, {5})}}, {"target value 5"});
}

// ---- Det -----------------------------------------------------------------------------------

TEST(Det, Values) {
  expect_tensor_near(run1({"Det", "", 22, {}, {f32({2, 2}, {1, 2, 3, 4})}}), f32({}, {-2}));
  expect_tensor_near(run1({"Det", "", 22, {}, {f32({3, 2, 2}, {2, 0, 0, 3, 1, 2, 2, 4, 0, 1, 1, 0})}}),
                     f32({3}, {6, 0, -1}));
  expect_tensor_near(run1({"Det", "", 11, {}, {f64({3, 3}, {2, -3, 1, 2, 0, -1, 1, 4, 5})}}), f64({}, {49}), 1e-12,
                     1e-12);
  EXPECT_EQ(run1({"Det", "", 22, {}, {f32({0, 3, 3}, {})}}).shape(), (Shape{0}));
  expect_tensor_near(run1({"Det", "", 22, {}, {f32({0, 0}, {})}}), f32({}, {1}));  // empty product
  EXPECT_EQ(inferred("Det", 22, {}, {sym(DType::kFloat32, {"B", "M", "M"})}), "float32[B]");
  expect_error({"Det", "", 22, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}}, {"square"});
  expect_error({"Det", "", 22, {}, {f32({2}, {1, 2})}}, {"[*, M, M]"});
  expect_error({"Det", "", 22, {}, {i32({1, 1}, {1})}}, {"int32"});
}

// ---- Einsum --------------------------------------------------------------------------------

Tensor einsum(const std::string& eq, std::vector<Tensor> inputs) {
  return run1({"Einsum", "", 12, {{"equation", attr_string(eq)}}, std::move(inputs)});
}

TEST(Einsum, Products) {
  const Tensor a = f32({2, 2}, {1, 2, 3, 4});
  const Tensor b = f32({2, 2}, {5, 6, 7, 8});
  expect_tensor_near(einsum("ij,jk->ik", {a, b}), f32({2, 2}, {19, 22, 43, 50}));
  expect_tensor_near(einsum("ij, jk", {a, b}), f32({2, 2}, {19, 22, 43, 50}));  // implicit, spaces
  expect_tensor_near(einsum("i,i", {f32({3}, {1, 2, 3}), f32({3}, {4, 5, 6})}), f32({}, {32}));
  expect_tensor_near(einsum("i,j->ij", {f32({2}, {1, 2}), f32({3}, {1, 10, 100})}),
                     f32({2, 3}, {1, 10, 100, 2, 20, 200}));
  const Tensor x = f64({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor y = f64({2, 3, 1}, {1, 1, 1, 1, 0, -1});
  expect_tensor_near(einsum("bij,bjk->bik", {x, y}), f64({2, 2, 1}, {6, 15, -2, -2}));
  // Implicit output keeps only labels used once, so the batch label b is summed too.
  expect_tensor_near(einsum("bij,bjk", {x, y}), f64({2, 1}, {4, 13}));
}

TEST(Einsum, DiagonalsSumsAndTransposes) {
  const Tensor a = f32({2, 2}, {1, 2, 3, 4});
  expect_tensor_near(einsum("ii->i", {a}), f32({2}, {1, 4}));
  expect_tensor_near(einsum("ii", {a}), f32({}, {5}));  // trace
  expect_tensor_near(einsum("ij->ji", {a}), f32({2, 2}, {1, 3, 2, 4}));
  expect_tensor_near(einsum("ij->", {a}), f32({}, {10}));
  expect_tensor_near(einsum("ij->j", {a}), f32({2}, {4, 6}));
  expect_tensor_near(einsum("ba", {a}), f32({2, 2}, {1, 3, 2, 4}));  // implicit output sorts labels
  const Tensor x = f32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_tensor_near(einsum("...ij->...ji", {x}), f32({2, 2, 2}, {1, 3, 2, 4, 5, 7, 6, 8}));
  expect_tensor_near(einsum("...ii->...i", {x}), f32({2, 2}, {1, 4, 5, 8}));
  expect_tensor_near(einsum("i...->...", {x}), f32({2, 2}, {6, 8, 10, 12}));
}

TEST(Einsum, BroadcastingAndIntegers) {
  // "..." dims broadcast numpy style; a size-1 label dim broadcasts too.
  const Tensor y =
      einsum("...j,...j->...", {f32({2, 1, 3}, {1, 1, 1, 2, 2, 2}), f32({4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1})});
  expect_tensor_near(y, f32({2, 4}, {1, 1, 1, 3, 2, 2, 2, 6}));
  expect_tensor_near(einsum("ij,jk", {f32({2, 1}, {1, 2}), f32({3, 2}, {1, 1, 1, 1, 1, 1})}),
                     f32({2, 2}, {3, 3, 6, 6}));
  // int8 wraps like numpy: 600 mod 256 = 88.
  expect_tensor_eq(einsum("i,i", {make<int8_t>({3}, {100, 100, 100}), make<int8_t>({3}, {2, 2, 2})}),
                   make<int8_t>({}, {88}));
  expect_tensor_eq(einsum("ij->i", {i64({2, 2}, {1, 2, 3, 4})}), i64({2}, {3, 7}));
}

TEST(Einsum, InferenceAndErrors) {
  EXPECT_EQ(inferred("Einsum", 12, {{"equation", attr_string("bij,bjk->bik")}},
                     {sym(DType::kFloat32, {"B", "2", "3"}), sym(DType::kFloat32, {"B", "3", "4"})}),
            "float32[B, 2, 4]");
  EXPECT_EQ(
      inferred("Einsum", 12, {{"equation", attr_string("...ij->...ji")}}, {sym(DType::kFloat32, {"N", "T", "2", "3"})}),
      "float32[N, T, 3, 2]");
  const Tensor a = f32({2, 2}, {1, 2, 3, 4});
  const Tensor b = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  auto bad = [&](const std::string& eq, std::vector<Tensor> in, std::vector<std::string> frags) {
    SCOPED_TRACE(eq);
    expect_error({"Einsum", "", 12, {{"equation", attr_string(eq)}}, std::move(in)}, frags);
  };
  bad("ij,jk->ik", {a, b}, {"input 1", "does not match"});
  bad("ij->k", {a}, {"output label 'k'"});
  bad("ij->ii", {a}, {"appears twice"});
  bad("ij,jk", {a}, {"2 input terms", "1 inputs"});
  bad("i$", {f32({2}, {1, 2})}, {"unexpected character"});
  bad("ijk", {a}, {"does not fit input 0 of rank 2"});
  bad("...ij->ij", {f32({1, 2, 2}, {1, 2, 3, 4})}, {"no \"...\""});
  bad("i..j", {a}, {"\"...\""});
  expect_error({"Einsum", "", 12, {}, {a}}, {"equation"});
  expect_error({"Einsum", "", 12, {{"equation", attr_string("i,i")}}, {a.reshaped({4}), i64({4}, {1, 2, 3, 4})}},
               {"input 1"});
}

// ---- TopK ----------------------------------------------------------------------------------

TEST(TopK, LargestSmallestAndAxis) {
  const Tensor x = f32({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  auto out = run_n({"TopK", "", 11, {{"axis", attr_int(1)}}, {x, i64({1}, {3})}, 2});
  expect_tensor_eq(out[0], f32({3, 3}, {3, 2, 1, 7, 6, 5, 11, 10, 9}));
  expect_tensor_eq(out[1], i64({3, 3}, {3, 2, 1, 3, 2, 1, 3, 2, 1}));
  out = run_n({"TopK", "", 11, {{"axis", attr_int(0)}, {"largest", attr_int(0)}}, {x, i64({1}, {2})}, 2});
  expect_tensor_eq(out[0], f32({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}));
  expect_tensor_eq(out[1], i64({2, 4}, {0, 0, 0, 0, 1, 1, 1, 1}));
  out = run_n({"TopK", "", 24, {}, {x, i64({1}, {0})}, 2});
  EXPECT_EQ(out[0].shape(), (Shape{3, 0}));
}

TEST(TopK, TiesNaNAndOldOpsets) {
  auto out = run_n({"TopK", "", 11, {}, {i64({4}, {1, 3, 3, 2}), i64({1}, {2})}, 2});
  expect_tensor_eq(out[0], i64({2}, {3, 3}));
  expect_tensor_eq(out[1], i64({2}, {1, 2}));  // ties: lower index first
  out = run_n({"TopK", "", 11, {{"largest", attr_int(0)}}, {i64({4}, {2, 1, 1, 3}), i64({1}, {2})}, 2});
  expect_tensor_eq(out[0], i64({2}, {1, 1}));
  expect_tensor_eq(out[1], i64({2}, {1, 2}));
  out = run_n({"TopK", "", 11, {}, {f32({3}, {1, std::nanf(""), 3}), i64({1}, {2})}, 2});
  expect_tensor_eq(out[0], f32({2}, {std::nanf(""), 3}));
  expect_tensor_eq(out[1], i64({2}, {1, 2}));
  out = run_n({"TopK", "", 1, {{"k", attr_int(2)}}, {f32({1, 3}, {1, 5, 3})}, 2});
  expect_tensor_eq(out[0], f32({1, 2}, {5, 3}));
  expect_tensor_eq(out[1], i64({1, 2}, {1, 2}));
  out = run_n({"TopK", "", 10, {}, {make<uint64_t>({3}, {5, ~uint64_t{0}, 7}), i64({1}, {1})}, 2});
  expect_tensor_eq(out[0], make<uint64_t>({1}, {~uint64_t{0}}));
}

TEST(TopK, InferenceAndErrors) {
  auto r = infer_types("TopK", 11, {}, {sym(DType::kFloat32, {"N", "10"}), constant(i64({1}, {3}))}, 2);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r.value()[0], "float32[N, 3]");
  EXPECT_EQ(r.value()[1], "int64[N, 3]");
  const Tensor x = f32({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_error({"TopK", "", 11, {}, {x, i64({1}, {5})}, 2}, {"k = 5", "larger than axis 1"});
  expect_error({"TopK", "", 11, {}, {x, i64({1}, {-1})}, 2}, {"K must be >= 0"});
  expect_error({"TopK", "", 11, {}, {x, f32({1}, {1})}, 2}, {"'K'", "float32"});
  expect_error({"TopK", "", 11, {{"largest", attr_int(2)}}, {x, i64({1}, {1})}, 2}, {"largest"});
  expect_error({"TopK", "", 1, {}, {x}, 2}, {"'k'"});
  expect_error({"TopK", "", 11, {{"axis", attr_int(2)}}, {x, i64({1}, {1})}, 2}, {"axis 2"});
}

// ---- Unique --------------------------------------------------------------------------------

TEST(Unique, SortedAndUnsorted) {
  const Tensor x = f32({6}, {2, 1, 1, 3, 4, 3});
  auto out = run_n({"Unique", "", 11, {}, {x}, 4});
  expect_tensor_eq(out[0], f32({4}, {1, 2, 3, 4}));
  expect_tensor_eq(out[1], i64({4}, {1, 0, 3, 4}));
  expect_tensor_eq(out[2], i64({6}, {1, 0, 0, 2, 3, 2}));
  expect_tensor_eq(out[3], i64({4}, {2, 1, 2, 1}));
  out = run_n({"Unique", "", 11, {{"sorted", attr_int(0)}}, {x}, 4});
  expect_tensor_eq(out[0], f32({4}, {2, 1, 3, 4}));
  expect_tensor_eq(out[1], i64({4}, {0, 1, 3, 4}));
  expect_tensor_eq(out[2], i64({6}, {0, 1, 1, 2, 3, 2}));
  expect_tensor_eq(out[3], i64({4}, {1, 2, 2, 1}));
  // Only Y asked for; strings; a 2-D input is flattened.
  expect_tensor_eq(run1({"Unique", "", 11, {}, {strs({3}, {"b", "a", "b"})}}), strs({2}, {"a", "b"}));
  expect_tensor_eq(run1({"Unique", "", 11, {}, {i32({2, 2}, {4, 4, 0, 4})}}), i32({2}, {0, 4}));
  EXPECT_EQ(run1({"Unique", "", 11, {}, {f32({0}, {})}}).shape(), (Shape{0}));
}

TEST(Unique, WithAxis) {
  auto out = run_n({"Unique", "", 11, {{"axis", attr_int(0)}}, {f32({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4})}, 4});
  expect_tensor_eq(out[0], f32({2, 3}, {1, 0, 0, 2, 3, 4}));
  expect_tensor_eq(out[1], i64({2}, {0, 2}));
  expect_tensor_eq(out[2], i64({3}, {0, 0, 1}));
  expect_tensor_eq(out[3], i64({2}, {2, 1}));
  // The spec's 3-D example along axis 1.
  const Tensor x = f32({2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1});
  out = run_n({"Unique", "", 11, {{"axis", attr_int(1)}}, {x}, 4});
  expect_tensor_eq(out[0], f32({2, 3, 2}, {0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  expect_tensor_eq(out[1], i64({3}, {1, 0, 2}));
  expect_tensor_eq(out[2], i64({4}, {1, 0, 2, 0}));
  expect_tensor_eq(out[3], i64({3}, {2, 1, 1}));
  auto r = infer_types("Unique", 11, {{"axis", attr_int(-1)}}, {sym(DType::kFloat32, {"N", "5"})}, 4);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r.value()[0], "float32[N, ?]");
  EXPECT_EQ(r.value()[2], "int64[5]");
  expect_error({"Unique", "", 11, {{"axis", attr_int(2)}}, {f32({2, 2}, {1, 2, 3, 4})}}, {"axis 2"});
  expect_error({"Unique", "", 11, {{"sorted", attr_int(3)}}, {f32({2}, {1, 2})}}, {"sorted"});
}

// ---- MelWeightMatrix -----------------------------------------------------------------------

TEST(MelWeightMatrix, SmallCase) {
  // 3 mel bins over 0..4000 Hz, dft_length 16 at 8 kHz: the filter edges land on bins
  // 0, 0, 1, 3, 5 (hand-computed, and what the ONNX reference gives).
  const Tensor y = run1(
      {"MelWeightMatrix", "", 17, {}, {i32({}, {3}), i32({}, {16}), i32({}, {8000}), f32({}, {0}), f32({}, {4000})}});
  expect_tensor_near(
      y, f32({9, 3}, {1, 0, 0, 0, 1, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0.5f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const Tensor d = run1({"MelWeightMatrix",
                         "",
                         17,
                         {{"output_datatype", attr_int(11)}},
                         {i64({}, {3}), i64({}, {16}), i64({}, {8000}), f64({}, {0}), f64({}, {4000})}});
  EXPECT_EQ(d.dtype(), DType::kFloat64);
  EXPECT_EQ(inferred("MelWeightMatrix", 17, {},
                     {constant(i32({}, {3})), constant(i32({}, {16})), sym(DType::kInt32, {}), sym(DType::kFloat32, {}),
                      sym(DType::kFloat32, {})}),
            "float32[9, 3]");
}

TEST(MelWeightMatrix, Errors) {
  auto mel = [](int32_t bins, int32_t dft, int32_t rate, float lo, float hi) -> OpCase {
    return {"MelWeightMatrix",
            "",
            17,
            {},
            {i32({}, {bins}), i32({}, {dft}), i32({}, {rate}), f32({}, {lo}), f32({}, {hi})}};
  };
  expect_error(mel(0, 16, 8000, 0, 4000), {"num_mel_bins"});
  expect_error(mel(3, 0, 8000, 0, 4000), {"dft_length"});
  expect_error(mel(3, 16, 0, 0, 4000), {"sample_rate"});
  expect_error(mel(3, 16, 8000, 100, 50), {"lower_edge_hertz"});
  expect_error(mel(3, 16, 8000, 0, 40000), {"past the last spectrogram bin"});
}

}  // namespace
}  // namespace hi::test
