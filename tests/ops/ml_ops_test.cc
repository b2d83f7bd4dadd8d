// ai.onnx.ml ops: LabelEncoder, TreeEnsemble, TreeEnsembleRegressor/Classifier, LinearClassifier,
// LinearRegressor, Binarizer, ArrayFeatureExtractor, Normalizer, Scaler, Imputer, OneHotEncoder,
// FeatureVectorizer, CategoryMapper. Expected values are worked out by hand from the spec.
#include <cmath>
#include <limits>

#include "ops/ml_test_util.h"

namespace hi::test {
namespace {

constexpr const char* kMl = "ai.onnx.ml";
const float kNaN = std::numeric_limits<float>::quiet_NaN();

DomainCase ml(const std::string& op, int64_t opset, Attrs attrs, std::vector<Tensor> inputs, int outputs = 1) {
  return {op, kMl, opset, std::move(attrs), std::move(inputs), outputs};
}
float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }

// ---- LabelEncoder --------------------------------------------------------------------------

TEST(LabelEncoder, Opset1ClassesBothWays) {
  Attrs a = {{"classes_strings", attr_strings({"a", "b", "c"})},
             {"default_int64", attr_int(9)},
             {"default_string", attr_string("?")}};
  expect_tensor_eq(run_domain1(ml("LabelEncoder", 1, a, {strs({4}, {"c", "a", "z", "b"})})), i64({4}, {2, 0, 9, 1}));
  expect_tensor_eq(run_domain1(ml("LabelEncoder", 1, a, {i64({2, 2}, {1, 0, 3, -1})})),
                   strs({2, 2}, {"b", "a", "?", "?"}));
}

TEST(LabelEncoder, Opset2FloatsToStringsWithNaNKey) {
  Attrs a = {{"keys_floats", attr_floats({1.5f, kNaN, -2.f})}, {"values_strings", attr_strings({"x", "nan", "y"})}};
  expect_tensor_eq(run_domain1(ml("LabelEncoder", 2, a, {f32({4}, {-2.f, kNaN, 0.f, 1.5f})})),
                   strs({4}, {"y", "nan", "_Unused", "x"}));
  // Default default_float is -0.0; a repeated key takes its last value.
  Attrs b = {{"keys_int64s", attr_ints({5, 7, 5})}, {"values_floats", attr_floats({1.f, 2.f, 3.f})}};
  const Tensor y = run_domain1(ml("LabelEncoder", 2, b, {i64({3}, {5, 7, 6})}));
  expect_tensor_eq(y, f32({3}, {3.f, 2.f, -0.f}));
  EXPECT_TRUE(std::signbit(y.data<float>()[2]));
}

TEST(LabelEncoder, Opset4Tensors) {
  Attrs a = {{"keys_tensor", attr_tensor(i32({3}, {10, 20, 30}))},
             {"values_tensor", attr_tensor(f64({3}, {0.5, 1.5, 2.5}))},
             {"default_tensor", attr_tensor(f64({1}, {-7.0}))}};
  expect_tensor_eq(run_domain1(ml("LabelEncoder", 4, a, {i32({2, 2}, {30, 11, 10, 20})})),
                   f64({2, 2}, {2.5, -7.0, 0.5, 1.5}));
  // Without default_tensor: -1 for integer values.
  Attrs b = {{"keys_strings", attr_strings({"p"})}, {"values_tensor", attr_tensor(make<int16_t>({1}, {4}))}};
  expect_tensor_eq(run_domain1(ml("LabelEncoder", 4, b, {strs({2}, {"p", "q"})})), make<int16_t>({2}, {4, -1}));
}

TEST(LabelEncoder, Errors) {
  Attrs a = {{"keys_strings", attr_strings({"a"})}, {"values_int64s", attr_ints({1, 2})}};
  expect_domain_error(ml("LabelEncoder", 2, a, {strs({1}, {"a"})}), StatusCode::kInvalidModel,
                      {"LabelEncoder", "ai.onnx.ml opset 2", "1 entries"});
  Attrs b = {{"keys_strings", attr_strings({"a"})}, {"values_int64s", attr_ints({1})}};
  expect_domain_error(ml("LabelEncoder", 2, b, {i64({1}, {1})}), StatusCode::kInvalidModel,
                      {"int64", "keys are string"});
  Attrs c = {{"keys_strings", attr_strings({"a"})}, {"keys_int64s", attr_ints({1})}, {"values_int64s", attr_ints({1})}};
  expect_domain_error(ml("LabelEncoder", 2, c, {strs({1}, {"a"})}), StatusCode::kInvalidModel,
                      {"exactly one of keys_"});
  Attrs d = {{"keys_strings", attr_strings({"a"})},
             {"values_tensor", attr_tensor(i32({1}, {1}))},
             {"default_tensor", attr_tensor(i64({1}, {0}))}};
  expect_domain_error(ml("LabelEncoder", 4, d, {strs({1}, {"a"})}), StatusCode::kInvalidModel,
                      {"default_tensor", "int32"});
}

// ---- TreeEnsemble (opset 5) ----------------------------------------------------------------

// Tree 0: node 0 "x0 <= 2" -> true: leaf 0 (target 0, 1.0); false: node 1 "x1 < 5" -> leaf 1
// (target 1, 10.0) / leaf 2 (target 0, 4.0). Tree 1: node 2 "x1 in {1, 3}" -> leaf 3 (target 1,
// 100) / leaf 4 (target 0, -1). Node 1 sends NaN to the true branch.
Attrs tree_attrs(int64_t aggregate, int64_t transform) {
  return {{"nodes_featureids", attr_ints({0, 1, 1})},
          {"nodes_modes", attr_tensor(make<uint8_t>({3}, {0, 1, 6}))},
          {"nodes_splits", attr_tensor(f32({3}, {2.f, 5.f, 0.f}))},
          {"nodes_truenodeids", attr_ints({0, 1, 3})},
          {"nodes_trueleafs", attr_ints({1, 1, 1})},
          {"nodes_falsenodeids", attr_ints({1, 2, 4})},
          {"nodes_falseleafs", attr_ints({0, 1, 1})},
          {"nodes_missing_value_tracks_true", attr_ints({0, 1, 0})},
          {"membership_values", attr_tensor(f32({3}, {1.f, 3.f, kNaN}))},
          {"leaf_targetids", attr_ints({0, 1, 0, 1, 0})},
          {"leaf_weights", attr_tensor(f32({5}, {1.f, 10.f, 4.f, 100.f, -1.f}))},
          {"tree_roots", attr_ints({0, 2})},
          {"n_targets", attr_int(2)},
          {"aggregate_function", attr_int(aggregate)},
          {"post_transform", attr_int(transform)}};
}

TEST(TreeEnsemble, SumOverTreesWithMembershipAndMissing) {
  // Rows: [1, 3] -> leaf 0 + leaf 3 = [1, 100]; [4, 7] -> leaf 2 + leaf 4 = [3, 0];
  //       [4, NaN] -> leaf 1 + leaf 4 = [-1, 10]; [NaN, 1] -> (NaN <= 2 false) leaf 1, leaf 3 = [0, 110].
  const Tensor x = f32({4, 2}, {1, 3, 4, 7, 4, kNaN, kNaN, 1});
  expect_tensor_eq(run_domain1(ml("TreeEnsemble", 5, tree_attrs(1, 0), {x})),
                   f32({4, 2}, {1, 100, 3, 0, -1, 10, 0, 110}));
}

TEST(TreeEnsemble, AverageMinMaxAndLogistic) {
  const Tensor x = f32({2, 2}, {1, 3, 4, 7});
  expect_tensor_eq(run_domain1(ml("TreeEnsemble", 5, tree_attrs(0, 0), {x})), f32({2, 2}, {0.5f, 50, 1.5f, 0}));
  // MIN / MAX over the votes each target gets; a target with no vote stays 0.
  expect_tensor_eq(run_domain1(ml("TreeEnsemble", 5, tree_attrs(2, 0), {x})), f32({2, 2}, {1, 100, -1, 0}));
  expect_tensor_eq(run_domain1(ml("TreeEnsemble", 5, tree_attrs(3, 0), {x})), f32({2, 2}, {1, 100, 4, 0}));
  expect_tensor_near(run_domain1(ml("TreeEnsemble", 5, tree_attrs(1, 2), {x})),
                     f32({2, 2}, {sigmoid(1), sigmoid(100), sigmoid(3), sigmoid(0)}), 1e-6, 1e-7);
  // double input gives double output.
  expect_tensor_eq(run_domain1(ml("TreeEnsemble", 5, tree_attrs(1, 0), {f64({1, 2}, {1, 3})})), f64({1, 2}, {1, 100}));
}

TEST(TreeEnsemble, Errors) {
  Attrs cyc = tree_attrs(1, 0);
  cyc["nodes_falsenodeids"] = attr_ints({1, 0, 4});  // node 1's false branch goes back to node 0
  cyc["nodes_falseleafs"] = attr_ints({0, 0, 1});
  expect_domain_error(ml("TreeEnsemble", 5, cyc, {f32({1, 2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"TreeEnsemble", "cycle"});
  expect_domain_error(ml("TreeEnsemble", 5, tree_attrs(1, 0), {f32({1, 1}, {1})}), StatusCode::kInvalidModel,
                      {"1 features", "feature 1"});
  expect_domain_error(ml("TreeEnsemble", 5, tree_attrs(7, 0), {f32({1, 2}, {1, 2})}), StatusCode::kUnsupported,
                      {"aggregate_function 7"});
  expect_domain_error(ml("TreeEnsemble", 5, tree_attrs(1, 0), {i64({1, 2}, {1, 2})}), StatusCode::kUnsupported,
                      {"TreeEnsemble (ai.onnx.ml opset 5)", "int64"});
  Attrs no_set = tree_attrs(1, 0);
  no_set["membership_values"] = attr_tensor(f32({2}, {1.f, 3.f}));
  expect_domain_error(ml("TreeEnsemble", 5, no_set, {f32({1, 2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"membership_values"});
  // Opset 5 is the oldest ai.onnx.ml opset with TreeEnsemble.
  expect_domain_error(ml("TreeEnsemble", 4, tree_attrs(1, 0), {f32({1, 2}, {1, 2})}), StatusCode::kUnsupported,
                      {"TreeEnsemble"});
}

// ---- TreeEnsembleRegressor / Classifier (opsets 1-3) ---------------------------------------

// Two trees over feature 0: tree 0 "x0 <= 1" -> node 1 (leaf) / node 2 (leaf); tree 1 "x0 == 2"
// -> node 1 (leaf) / node 2 (leaf). Node ids restart per tree.
Attrs legacy_nodes(const std::string& mode0, const std::string& mode1) {
  return {{"nodes_treeids", attr_ints({0, 0, 0, 1, 1, 1})},
          {"nodes_nodeids", attr_ints({0, 1, 2, 0, 1, 2})},
          {"nodes_featureids", attr_ints({0, 0, 0, 0, 0, 0})},
          {"nodes_modes", attr_strings({mode0, "LEAF", "LEAF", mode1, "LEAF", "LEAF"})},
          {"nodes_values", attr_floats({1, 0, 0, 2, 0, 0})},
          {"nodes_truenodeids", attr_ints({1, 0, 0, 1, 0, 0})},
          {"nodes_falsenodeids", attr_ints({2, 0, 0, 2, 0, 0})}};
}

TEST(TreeEnsembleRegressor, AggregatesAndBaseValues) {
  Attrs a = legacy_nodes("BRANCH_LEQ", "BRANCH_EQ");
  a["target_treeids"] = attr_ints({0, 0, 1, 1});
  a["target_nodeids"] = attr_ints({1, 2, 1, 2});
  a["target_ids"] = attr_ints({0, 0, 0, 0});
  a["target_weights"] = attr_floats({1, 2, 10, 20});
  a["n_targets"] = attr_int(1);
  // x = 0: leaves 1 (1) and 2 of tree 1 (20); x = 2: leaf 2 (2) and leaf 1 (10).
  const Tensor x = f32({2, 1}, {0, 2});
  expect_tensor_eq(run_domain1(ml("TreeEnsembleRegressor", 1, a, {x})), f32({2, 1}, {21, 12}));
  a["aggregate_function"] = attr_string("AVERAGE");
  a["base_values"] = attr_floats({100});
  expect_tensor_eq(run_domain1(ml("TreeEnsembleRegressor", 1, a, {x})), f32({2, 1}, {110.5f, 106}));
  a["aggregate_function"] = attr_string("MAX");
  a.erase("base_values");
  expect_tensor_eq(run_domain1(ml("TreeEnsembleRegressor", 3, a, {i64({2, 1}, {0, 2})})), f32({2, 1}, {20, 10}));
  a["aggregate_function"] = attr_string("MIN");
  expect_tensor_eq(run_domain1(ml("TreeEnsembleRegressor", 1, a, {x})), f32({2, 1}, {1, 2}));
}

TEST(TreeEnsembleRegressor, ModesAndErrors) {
  Attrs a = legacy_nodes("BRANCH_GT", "BRANCH_NEQ");
  a["target_treeids"] = attr_ints({0, 0, 1, 1});
  a["target_nodeids"] = attr_ints({1, 2, 1, 2});
  a["target_ids"] = attr_ints({0, 0, 0, 0});
  a["target_weights"] = attr_floats({1, 2, 10, 20});
  // x = 0: "0 > 1" false -> 2; "0 != 2" true -> 10. x = 2: true -> 1; false -> 20.
  expect_tensor_eq(run_domain1(ml("TreeEnsembleRegressor", 1, a, {f32({2}, {0, 2}).reshaped({2, 1})})),
                   f32({2, 1}, {12, 21}));
  Attrs bad = a;
  bad["nodes_modes"] = attr_strings({"BRANCH_XOR", "LEAF", "LEAF", "BRANCH_EQ", "LEAF", "LEAF"});
  expect_domain_error(ml("TreeEnsembleRegressor", 1, bad, {f32({1, 1}, {0})}), StatusCode::kUnsupported,
                      {"TreeEnsembleRegressor (ai.onnx.ml opset 1)", "BRANCH_XOR"});
  bad = a;
  bad["nodes_truenodeids"] = attr_ints({5, 0, 0, 1, 0, 0});
  expect_domain_error(ml("TreeEnsembleRegressor", 1, bad, {f32({1, 1}, {0})}), StatusCode::kInvalidModel,
                      {"branches to node 5"});
  bad = a;
  bad["aggregate_function"] = attr_string("MEDIAN");
  expect_domain_error(ml("TreeEnsembleRegressor", 1, bad, {f32({1, 1}, {0})}), StatusCode::kUnsupported, {"MEDIAN"});
  bad = a;
  bad["post_transform"] = attr_string("EXP");
  expect_domain_error(ml("TreeEnsembleRegressor", 1, bad, {f32({1, 1}, {0})}), StatusCode::kUnsupported,
                      {"post_transform 'EXP'"});
}

Attrs classifier_votes(Attrs a, std::vector<int64_t> ids, std::vector<float> weights) {
  a["class_treeids"] = attr_ints({0, 0, 1, 1});
  a["class_nodeids"] = attr_ints({1, 2, 1, 2});
  a["class_ids"] = attr_ints(std::move(ids));
  a["class_weights"] = attr_floats(std::move(weights));
  return a;
}

TEST(TreeEnsembleClassifier, MulticlassSoftmax) {
  Attrs a = classifier_votes(legacy_nodes("BRANCH_LEQ", "BRANCH_EQ"), {0, 1, 2, 0}, {1, 2, 3, 4});
  a["classlabels_strings"] = attr_strings({"a", "b", "c"});
  a["base_values"] = attr_floats({0.5f, 0, 0});
  // x = 0: class 0 gets 1 + 4 (+0.5) -> [5.5, 0, 0]; x = 2: class 1 gets 2, class 2 gets 3 -> [0.5, 2, 3].
  const Tensor x = f32({2, 1}, {0, 2});
  auto out = run_domain(ml("TreeEnsembleClassifier", 1, a, {x}, 2));
  expect_tensor_eq(out[0], strs({2}, {"a", "c"}));
  expect_tensor_eq(out[1], f32({2, 3}, {5.5f, 0, 0, 0.5f, 2, 3}));
  a["post_transform"] = attr_string("SOFTMAX");
  out = run_domain(ml("TreeEnsembleClassifier", 1, a, {x}, 2));
  // Row 0: softmax([5.5, 0, 0]); row 1: softmax([0.5, 2, 3]).
  const float a0 = 1 + 2 * std::exp(-5.5f);
  const float b0 = std::exp(0.5f - 3), b1 = std::exp(2.f - 3), b2 = 1.f, bs = b0 + b1 + b2;
  expect_tensor_near(
      out[1], f32({2, 3}, {1 / a0, std::exp(-5.5f) / a0, std::exp(-5.5f) / a0, b0 / bs, b1 / bs, b2 / bs}), 1e-5, 1e-6);
}

TEST(TreeEnsembleClassifier, BinaryNoneAndLogistic) {
  // All weights for class 0: s = sum of votes; columns [1 - s, s] (NONE) or [-s, s] (LOGISTIC).
  Attrs a = classifier_votes(legacy_nodes("BRANCH_LEQ", "BRANCH_EQ"), {0, 0, 0, 0}, {0.1f, 0.3f, 0.5f, 0.2f});
  a["classlabels_int64s"] = attr_ints({7, 9});
  const Tensor x = f32({2, 1}, {0, 2});  // s = 0.1 + 0.2 = 0.3; s = 0.3 + 0.5 = 0.8
  auto out = run_domain(ml("TreeEnsembleClassifier", 1, a, {x}, 2));
  expect_tensor_eq(out[0], i64({2}, {7, 9}));
  expect_tensor_near(out[1], f32({2, 2}, {0.7f, 0.3f, 0.2f, 0.8f}), 1e-6, 1e-6);
  a["post_transform"] = attr_string("LOGISTIC");
  out = run_domain(ml("TreeEnsembleClassifier", 1, a, {x}, 2));
  expect_tensor_eq(out[0], i64({2}, {9, 9}));
  expect_tensor_near(out[1], f32({2, 2}, {sigmoid(-0.3f), sigmoid(0.3f), sigmoid(-0.8f), sigmoid(0.8f)}), 1e-6, 1e-6);
}

TEST(TreeEnsembleClassifier, Errors) {
  Attrs a = classifier_votes(legacy_nodes("BRANCH_LEQ", "BRANCH_EQ"), {0, 1, 2, 3}, {1, 1, 1, 1});
  a["classlabels_int64s"] = attr_ints({0, 1, 2});
  expect_domain_error(ml("TreeEnsembleClassifier", 1, a, {f32({1, 1}, {0})}, 2), StatusCode::kInvalidModel,
                      {"class_ids[3] = 3"});
  a["class_ids"] = attr_ints({0, 1, 2, 2});
  a["classlabels_strings"] = attr_strings({"x", "y", "z"});
  expect_domain_error(ml("TreeEnsembleClassifier", 1, a, {f32({1, 1}, {0})}, 2), StatusCode::kInvalidModel,
                      {"exactly one of classlabels"});
}

// ---- LinearClassifier / LinearRegressor ----------------------------------------------------

// Three classes over two features: scores = [x0, x1, -x0 - x1] + [0, 0, 1].
Attrs linear3(const std::string& transform) {
  return {{"coefficients", attr_floats({1, 0, 0, 1, -1, -1})},
          {"intercepts", attr_floats({0, 0, 1})},
          {"classlabels_ints", attr_ints({10, 20, 30})},
          {"post_transform", attr_string(transform)}};
}

TEST(LinearClassifier, MulticlassEachTransform) {
  const Tensor x = f32({2, 2}, {2, 1, -1, -2});  // scores [2, 1, -2] and [-1, -2, 4]
  auto none = run_domain(ml("LinearClassifier", 1, linear3("NONE"), {x}, 2));
  expect_tensor_eq(none[0], i64({2}, {10, 30}));
  expect_tensor_eq(none[1], f32({2, 3}, {2, 1, -2, -1, -2, 4}));
  auto logistic = run_domain(ml("LinearClassifier", 1, linear3("LOGISTIC"), {x}, 2));
  expect_tensor_near(logistic[1],
                     f32({2, 3}, {sigmoid(2), sigmoid(1), sigmoid(-2), sigmoid(-1), sigmoid(-2), sigmoid(4)}), 1e-6,
                     1e-7);
  auto softmax = run_domain(ml("LinearClassifier", 1, linear3("SOFTMAX"), {x}, 2));
  const float s0 = std::exp(2.f) + std::exp(1.f) + std::exp(-2.f);
  EXPECT_NEAR(softmax[1].data<float>()[0], std::exp(2.f) / s0, 1e-6);
  EXPECT_NEAR(softmax[1].data<float>()[2], std::exp(-2.f) / s0, 1e-6);
  auto probit = run_domain(ml("LinearClassifier", 1,
                              {{"coefficients", attr_floats({1, 0, 0, 1})},
                               {"classlabels_ints", attr_ints({0, 1})},
                               {"post_transform", attr_string("PROBIT")}},
                              {f32({1, 2}, {0.5f, 0.975f})}, 2));
  // probit(0.5) = 0; probit(0.975) ~ 1.96 (the approximation is within 2e-3).
  EXPECT_NEAR(probit[1].data<float>()[0], 0.f, 1e-6);
  EXPECT_NEAR(probit[1].data<float>()[1], 1.96f, 5e-3);
}

TEST(LinearClassifier, SoftmaxZeroKeepsZeros) {
  Attrs a = {{"coefficients", attr_floats({1, 0, 0, 1})},
             {"classlabels_strings", attr_strings({"n", "p"})},
             {"post_transform", attr_string("SOFTMAX_ZERO")}};
  auto out = run_domain(ml("LinearClassifier", 1, a, {f32({2, 2}, {0, 1, 0, 0})}, 2));
  expect_tensor_eq(out[0], strs({2}, {"p", "n"}));
  // Row 0: [0, 1] -> 0 stays 0, the other gets all the mass; row 1 all zero -> 0.5 each.
  expect_tensor_near(out[1], f32({2, 2}, {0, 1, 0.5f, 0.5f}), 1e-6, 1e-7);
}

TEST(LinearClassifier, BinaryOneScore) {
  Attrs a = {{"coefficients", attr_floats({2, -1})},
             {"intercepts", attr_floats({0.5f})},
             {"classlabels_ints", attr_ints({3, 4})}};
  const Tensor x = i32({2, 2}, {1, 1, 0, 1});  // scores 1.5 and -0.5
  auto out = run_domain(ml("LinearClassifier", 1, a, {x}, 2));
  expect_tensor_eq(out[0], i64({2}, {4, 3}));
  expect_tensor_eq(out[1], f32({2, 2}, {-1.5f, 1.5f, 0.5f, -0.5f}));
  a["post_transform"] = attr_string("LOGISTIC");
  out = run_domain(ml("LinearClassifier", 1, a, {x}, 2));
  expect_tensor_near(out[1], f32({2, 2}, {sigmoid(-1.5f), sigmoid(1.5f), sigmoid(0.5f), sigmoid(-0.5f)}), 1e-6, 1e-7);
}

TEST(LinearClassifier, Errors) {
  expect_domain_error(ml("LinearClassifier", 1, linear3("NONE"), {f32({1, 3}, {1, 2, 3})}, 2),
                      StatusCode::kInvalidModel,
                      {"LinearClassifier (ai.onnx.ml opset 1)", "6 coefficients", "3 features"});
  expect_domain_error(ml("LinearClassifier", 1, linear3("CUBE"), {f32({1, 2}, {1, 2})}, 2), StatusCode::kUnsupported,
                      {"CUBE"});
  expect_domain_error(ml("LinearClassifier", 1, linear3("NONE"), {strs({1, 2}, {"a", "b"})}, 2),
                      StatusCode::kUnsupported, {"LinearClassifier", "string"});
}

TEST(LinearRegressor, TargetsAndTransform) {
  Attrs a = {{"coefficients", attr_floats({1, 2, 3, -1, 0, 1})},
             {"intercepts", attr_floats({1, -1})},
             {"targets", attr_int(2)}};
  expect_tensor_eq(run_domain1(ml("LinearRegressor", 1, a, {f64({2, 3}, {1, 1, 1, 2, 0, 1})})),
                   f32({2, 2}, {7, -1, 6, -2}));
  expect_tensor_eq(run_domain1(ml("LinearRegressor", 1, a, {i64({3}, {0, 0, 1})})), f32({1, 2}, {4, 0}));
  a["post_transform"] = attr_string("SOFTMAX");
  const float e = std::exp(-8.f);
  expect_tensor_near(run_domain1(ml("LinearRegressor", 1, a, {f32({1, 3}, {1, 1, 1})})),
                     f32({1, 2}, {1 / (1 + e), e / (1 + e)}), 1e-6, 1e-7);
  expect_domain_error(ml("LinearRegressor", 1, a, {f32({1, 2}, {1, 1})}), StatusCode::kInvalidModel, {"2 features"});
}

// ---- Small encoders and transforms ---------------------------------------------------------

TEST(Binarizer, ThresholdPerType) {
  expect_tensor_eq(
      run_domain1(ml("Binarizer", 1, {{"threshold", attr_float(0.5f)}}, {f32({4}, {0.5f, 0.6f, -1, kNaN})})),
      f32({4}, {0, 1, 0, 0}));
  expect_tensor_eq(run_domain1(ml("Binarizer", 1, {}, {i64({3}, {-2, 0, 5})})), i64({3}, {0, 0, 1}));
  expect_domain_error(ml("Binarizer", 1, {}, {f16({1}, {1})}), StatusCode::kUnsupported,
                      {"Binarizer (ai.onnx.ml opset 1)", "float16"});
}

TEST(ArrayFeatureExtractor, LastAxisAndVector) {
  const Tensor x = strs({2, 3}, {"a", "b", "c", "d", "e", "f"});
  expect_tensor_eq(run_domain1(ml("ArrayFeatureExtractor", 1, {}, {x, i64({1, 2}, {2, 0})})),
                   strs({2, 2}, {"c", "a", "f", "d"}));
  expect_tensor_eq(run_domain1(ml("ArrayFeatureExtractor", 1, {}, {i32({3}, {7, 8, 9}), i64({1}, {1})})),
                   i32({1, 1}, {8}));
  expect_domain_error(ml("ArrayFeatureExtractor", 1, {}, {x, i64({1}, {3})}), StatusCode::kInvalidArgument,
                      {"index 3", "[0, 3)"});
}

TEST(Normalizer, MaxL1L2AndZeroRows) {
  const Tensor x = f32({3, 2}, {3, -4, 0, 0, -1, -3});
  expect_tensor_near(run_domain1(ml("Normalizer", 1, {{"norm", attr_string("MAX")}}, {x})),
                     f32({3, 2}, {1, -4.f / 3, 0, 0, 1, 3}), 1e-6, 1e-7);
  expect_tensor_near(run_domain1(ml("Normalizer", 1, {{"norm", attr_string("L1")}}, {x})),
                     f32({3, 2}, {3.f / 7, -4.f / 7, 0, 0, -0.25f, -0.75f}), 1e-6, 1e-7);
  const float n3 = std::sqrt(10.f);
  expect_tensor_near(run_domain1(ml("Normalizer", 1, {{"norm", attr_string("L2")}}, {x})),
                     f32({3, 2}, {0.6f, -0.8f, 0, 0, -1 / n3, -3 / n3}), 1e-6, 1e-7);
  expect_tensor_eq(run_domain1(ml("Normalizer", 1, {{"norm", attr_string("L1")}}, {i64({2}, {1, 3})})),
                   f32({2}, {0.25f, 0.75f}));
  expect_domain_error(ml("Normalizer", 1, {{"norm", attr_string("L3")}}, {x}), StatusCode::kInvalidModel, {"L3"});
}

TEST(Scaler, PerFeatureAndScalar) {
  Attrs a = {{"offset", attr_floats({1, 2})}, {"scale", attr_floats({2})}};
  expect_tensor_eq(run_domain1(ml("Scaler", 1, a, {i32({2, 2}, {1, 2, 3, 4})})), f32({2, 2}, {0, 0, 4, 4}));
  a["offset"] = attr_floats({1, 2, 3});
  expect_domain_error(ml("Scaler", 1, a, {f32({1, 2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"offset has 3 values", "2 features"});
}

TEST(Imputer, FloatNaNAndIntegers) {
  Attrs f = {{"imputed_value_floats", attr_floats({-1, -2})}, {"replaced_value_float", attr_float(kNaN)}};
  expect_tensor_eq(run_domain1(ml("Imputer", 1, f, {f32({2, 2}, {kNaN, 1, 2, kNaN})})), f32({2, 2}, {-1, 1, 2, -2}));
  Attrs i = {{"imputed_value_int64s", attr_ints({7})}, {"replaced_value_int64", attr_int(0)}};
  expect_tensor_eq(run_domain1(ml("Imputer", 1, i, {i32({3}, {0, 5, 0})})), i32({3}, {7, 5, 7}));
  expect_domain_error(ml("Imputer", 1, i, {f32({1}, {0})}), StatusCode::kInvalidModel,
                      {"float32", "imputed_value_int64s"});
}

TEST(OneHotEncoder, StringsIntsAndZeros) {
  expect_tensor_eq(
      run_domain1(ml("OneHotEncoder", 1, {{"cats_strings", attr_strings({"r", "g", "b"})}}, {strs({2}, {"b", "x"})})),
      f32({2, 3}, {0, 0, 1, 0, 0, 0}));
  expect_tensor_eq(run_domain1(ml("OneHotEncoder", 1, {{"cats_int64s", attr_ints({4, 2})}}, {f64({1, 2}, {2.7, 4.0})})),
                   f32({1, 2, 2}, {0, 1, 1, 0}));
  expect_domain_error(
      ml("OneHotEncoder", 1, {{"cats_int64s", attr_ints({4, 2})}, {"zeros", attr_int(0)}}, {i64({1}, {3})}),
      StatusCode::kInvalidArgument, {"OneHotEncoder", "no category"});
}

TEST(FeatureVectorizer, ConcatenatesWithPadAndCut) {
  Attrs a = {{"inputdimensions", attr_ints({1, 3, 1})}};
  const std::vector<Tensor> in = {i64({2, 1}, {1, 2}), f32({2, 2}, {3, 4, 5, 6}), f64({2, 2}, {7, 8, 9, 10})};
  expect_tensor_eq(run_domain1(ml("FeatureVectorizer", 1, a, in)), f32({2, 5}, {1, 3, 4, 0, 7, 2, 5, 6, 0, 9}));
  expect_domain_error(ml("FeatureVectorizer", 1, a, {f32({2, 1}, {1, 2}), f32({3, 1}, {1, 2, 3}), f32({2, 1}, {1, 2})}),
                      StatusCode::kInvalidArgument, {"3 rows"});
}

TEST(CategoryMapper, BothDirections) {
  Attrs a = {{"cats_strings", attr_strings({"cat", "dog"})},
             {"cats_int64s", attr_ints({1, 2})},
             {"default_string", attr_string("none")}};
  expect_tensor_eq(run_domain1(ml("CategoryMapper", 1, a, {strs({3}, {"dog", "cow", "cat"})})), i64({3}, {2, -1, 1}));
  expect_tensor_eq(run_domain1(ml("CategoryMapper", 1, a, {i64({3}, {1, 3, 2})})), strs({3}, {"cat", "none", "dog"}));
  expect_domain_error(ml("CategoryMapper", 1, a, {f32({1}, {1})}), StatusCode::kUnsupported,
                      {"CategoryMapper", "float32"});
}

}  // namespace
}  // namespace hi::test
