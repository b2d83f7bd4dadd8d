// ai.onnx.ml ops of support vector machines and maps: SVMClassifier, SVMRegressor, ZipMap,
// DictVectorizer and CastMap. Expected values are worked out by hand from the spec; the Python tests compare
// scikit-learn exports and every kernel against onnxruntime.
#include <cmath>

#include "ops/ml_test_util.h"

namespace hi::test {
namespace {

constexpr const char* kMl = "ai.onnx.ml";

DomainCase ml(const std::string& op, Attrs attrs, std::vector<Tensor> inputs, int outputs = 1) {
  return {op, kMl, 1, std::move(attrs), std::move(inputs), outputs};
}

// ---- SVMRegressor ---------------------------------------------------------------------------

TEST(SVMRegressor, SupportVectorsLinearFormAndOneClass) {
  Attrs a = {{"support_vectors", attr_floats({1, 0, 0, 1})},
             {"coefficients", attr_floats({2, -1})},
             {"rho", attr_floats({0.5f})},
             {"n_supports", attr_int(2)}};
  const Tensor x = f32({2, 2}, {3, 4, 0, 2});
  // Linear kernel: 2 * x0 - x1 + 0.5.
  expect_tensor_near(run_domain1(ml("SVMRegressor", a, {x})), f32({2, 1}, {2.5f, -1.5f}), 1e-6, 1e-6);
  a["kernel_type"] = attr_string("RBF");
  a["kernel_params"] = attr_floats({0.5f, 0, 0});
  const float rbf0 = 2 * std::exp(-0.5f * 20) - std::exp(-0.5f * 18) + 0.5f;
  const float rbf1 = 2 * std::exp(-0.5f * 5) - std::exp(-0.5f * 1) + 0.5f;
  expect_tensor_near(run_domain1(ml("SVMRegressor", a, {x})), f32({2, 1}, {rbf0, rbf1}), 1e-6, 1e-6);
  a["one_class"] = attr_int(1);
  a["kernel_type"] = attr_string("LINEAR");
  expect_tensor_eq(run_domain1(ml("SVMRegressor", a, {x})), f32({2, 1}, {1, -1}));
  // Without support vectors the coefficients weigh the features directly.
  Attrs linear = {{"coefficients", attr_floats({1, 2})}, {"rho", attr_floats({-1})}};
  expect_tensor_near(run_domain1(ml("SVMRegressor", linear, {i64({1, 2}, {3, 4})})), f32({1, 1}, {10}), 1e-6, 1e-6);
}

TEST(SVMRegressor, Errors) {
  Attrs a = {{"support_vectors", attr_floats({1, 0, 0})},
             {"coefficients", attr_floats({2, -1})},
             {"rho", attr_floats({0.5f})},
             {"n_supports", attr_int(2)}};
  expect_domain_error(ml("SVMRegressor", a, {f32({1, 2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"SVMRegressor", "2 support vectors", "3"});
  a["support_vectors"] = attr_floats({1, 0, 0, 1});
  expect_domain_error(ml("SVMRegressor", a, {f32({1, 3}, {1, 2, 3})}), StatusCode::kInvalidModel,
                      {"X has 3 features", "2"});
  a["kernel_type"] = attr_string("CUBIC");
  expect_domain_error(ml("SVMRegressor", a, {f32({1, 2}, {1, 2})}), StatusCode::kInvalidModel, {"CUBIC"});
}

// ---- SVMClassifier --------------------------------------------------------------------------

// Three classes, one support vector each (1, 2, 3; one feature), linear kernel. Coefficient row
// r holds each vector's weight against its (r+1)-th other class, so the pair scores for x are
// (0,1) = 1*x - 1*2x, (0,2) = 2*x - 1*3x, (1,2) = 1*2x - 1*3x.
Attrs three_class_svc() {
  return {{"classlabels_strings", attr_strings({"a", "b", "c"})},
          {"vectors_per_class", attr_ints({1, 1, 1})},
          {"support_vectors", attr_floats({1, 2, 3})},
          {"coefficients", attr_floats({1, -1, -1, 2, 1, -1})},
          {"rho", attr_floats({0, 0, 0})}};
}

TEST(SVMClassifier, OneVsOneVotesAndPairScores) {
  auto out = run_domain(ml("SVMClassifier", three_class_svc(), {f32({2, 1}, {1, -1})}, 2));
  expect_tensor_eq(out[0], strs({2}, {"c", "a"}));
  expect_tensor_near(out[1], f32({2, 3}, {-1, -1, -1, 1, 1, 1}), 1e-6, 1e-6);
}

TEST(SVMClassifier, ProbabilitiesAreCoupledPerClass) {
  Attrs a = three_class_svc();
  a["prob_a"] = attr_floats({-2, -2, -2});
  a["prob_b"] = attr_floats({0, 0, 0});
  auto out = run_domain(ml("SVMClassifier", a, {f32({2, 1}, {1, -1})}, 2));
  expect_tensor_eq(out[0], strs({2}, {"c", "a"}));
  ASSERT_EQ(out[1].shape(), (Shape{2, 3}));
  for (int r = 0; r < 2; ++r) {
    const float* p = out[1].data<float>() + r * 3;
    EXPECT_NEAR(p[0] + p[1] + p[2], 1.f, 1e-5);
  }
  // x = 1 favours c over b over a; x = -1 the reverse, by the same margins (to within the
  // coupling iteration's stopping tolerance, 0.005 / 3).
  const float* p = out[1].data<float>();
  EXPECT_GT(p[2], p[1]);
  EXPECT_GT(p[1], p[0]);
  EXPECT_NEAR(p[0], p[5], 2e-3);
  EXPECT_NEAR(p[2], p[3], 2e-3);
}

TEST(SVMClassifier, BinaryScoreIsWrittenAsTwoColumns) {
  Attrs a = {{"classlabels_ints", attr_ints({7, 9})},
             {"vectors_per_class", attr_ints({1, 1})},
             {"support_vectors", attr_floats({1, 2})},
             {"coefficients", attr_floats({1, -1})},
             {"rho", attr_floats({0.5f})}};
  // s = 0.5 + x - 2x: x = 1 gives -0.5 (class 9), x = -1 gives 1.5 (class 7).
  auto out = run_domain(ml("SVMClassifier", a, {f32({2, 1}, {1, -1})}, 2));
  expect_tensor_eq(out[0], i64({2}, {9, 7}));
  expect_tensor_near(out[1], f32({2, 2}, {0.5f, -0.5f, -1.5f, 1.5f}), 1e-6, 1e-6);
  // Transformed, onnxruntime's forms: [logistic(-s), logistic(s)], and [1 - s, s] for softmax.
  a["post_transform"] = attr_string("LOGISTIC");
  out = run_domain(ml("SVMClassifier", a, {f32({2, 1}, {1, -1})}, 2));
  const auto logistic = [](float v) { return 1 / (1 + std::exp(-v)); };
  expect_tensor_near(out[1], f32({2, 2}, {logistic(0.5f), logistic(-0.5f), logistic(-1.5f), logistic(1.5f)}), 1e-6,
                     1e-6);
  a["post_transform"] = attr_string("SOFTMAX");
  out = run_domain(ml("SVMClassifier", a, {f32({2, 1}, {1, -1})}, 2));
  expect_tensor_near(out[1], f32({2, 2}, {1.5f, -0.5f, -0.5f, 1.5f}), 1e-6, 1e-6);
}

TEST(SVMClassifier, LinearFormWithoutSupportVectors) {
  Attrs a = {{"classlabels_ints", attr_ints({1, 2, 3})},
             {"coefficients", attr_floats({1, 0, 0, 1, -1, -1})},
             {"rho", attr_floats({0.5f})}};
  auto out = run_domain(ml("SVMClassifier", a, {f32({1, 2}, {2, 3})}, 2));
  expect_tensor_eq(out[0], i64({1}, {2}));
  expect_tensor_near(out[1], f32({1, 3}, {2.5f, 3.5f, -4.5f}), 1e-6, 1e-6);
}

TEST(SVMClassifier, Errors) {
  Attrs a = three_class_svc();
  a["coefficients"] = attr_floats({1, -1, -1, 2, 1});
  expect_domain_error(ml("SVMClassifier", a, {f32({1, 1}, {1})}, 2), StatusCode::kInvalidModel,
                      {"SVMClassifier", "needs 6 coefficients, got 5"});
  a = three_class_svc();
  a["rho"] = attr_floats({0});
  expect_domain_error(ml("SVMClassifier", a, {f32({1, 1}, {1})}, 2), StatusCode::kInvalidModel,
                      {"rho must hold one value per class pair (3), got 1"});
  a = three_class_svc();
  a["prob_a"] = attr_floats({1, 1, 1});
  expect_domain_error(ml("SVMClassifier", a, {f32({1, 1}, {1})}, 2), StatusCode::kInvalidModel, {"prob_a and prob_b"});
  expect_domain_error(ml("SVMClassifier", three_class_svc(), {f32({1, 2}, {1, 2})}, 2), StatusCode::kInvalidModel,
                      {"X has 2 features, the model 1"});
}

// ---- ZipMap and DictVectorizer: values that are maps ------------------------------------------

// Runs one ai.onnx.ml node on Values, with its input declared as `type`.
Result<std::vector<Value>> run_on_values(const std::string& op, Attrs attrs, const ir::ValueType& type, Value input) {
  ir::Graph g;
  ir::Node n;
  n.op_type = op;
  n.domain = kMl;
  n.attributes = std::move(attrs);
  n.inputs = {"x"};
  n.outputs = {"y"};
  g.inputs.push_back({"x", type});
  g.outputs.push_back({"y", ir::ValueType{ir::ValueKind::kUnknown, DType::kUndefined, std::nullopt, nullptr}});
  g.nodes.push_back(n);
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, {{"", 21}, {kMl, 1}}, ops::BuildOptions{}));
  std::vector<Value> ins{std::move(input)}, outs;
  HI_RETURN_IF_ERROR(ex->run(std::move(ins), &outs));
  return outs;
}

TEST(ZipMap, EachRowBecomesAMapFromLabelToScore) {
  const Tensor x = f32({2, 3}, {0.1f, 0.2f, 0.7f, 0.5f, 0.25f, 0.25f});
  auto r = run_on_values("ZipMap", {{"classlabels_strings", attr_strings({"x", "y", "z"})}},
                         ir::ValueType::concrete(DType::kFloat32, {2, 3}), Value::of(x));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Value& y = r.value()[0];
  ASSERT_EQ(y.kind, Value::Kind::kMapSequence);
  ASSERT_EQ(y.maps.size(), 2u);
  expect_tensor_eq(y.maps[1].keys, strs({3}, {"x", "y", "z"}));
  expect_tensor_eq(y.maps[1].values, f32({3}, {0.5f, 0.25f, 0.25f}));
  // Integer labels, and a 1-D X is one row.
  r = run_on_values("ZipMap", {{"classlabels_int64s", attr_ints({4, 8})}},
                    ir::ValueType::concrete(DType::kFloat32, {2}), Value::of(f32({2}, {0.3f, 0.7f})));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r.value()[0].maps.size(), 1u);
  expect_tensor_eq(r.value()[0].maps[0].keys, i64({2}, {4, 8}));
}

TEST(ZipMap, Errors) {
  auto r = run_on_values("ZipMap", {{"classlabels_int64s", attr_ints({4, 8})}},
                         ir::ValueType::concrete(DType::kFloat32, {1, 3}), Value::of(f32({1, 3}, {1, 2, 3})));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("X has 3 columns but 2 class labels"), std::string::npos)
      << r.status().to_string();
  r = run_on_values("ZipMap", {}, ir::ValueType::concrete(DType::kFloat32, {1, 2}), Value::of(f32({1, 2}, {1, 2})));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("exactly one of classlabels_strings and classlabels_int64s"), std::string::npos)
      << r.status().to_string();
}

ir::ValueType map_type(DType key, DType value) {
  ir::ValueType t;
  t.kind = ir::ValueKind::kMap;
  t.dtype = key;
  t.elem = std::make_shared<ir::ValueType>(ir::ValueType::tensor(value, {}));
  return t;
}

TEST(DictVectorizer, KeysLandAtTheirVocabularyIndex) {
  Attrs a = {{"string_vocabulary", attr_strings({"h", "w", "d"})}};
  const Map m{strs({3}, {"d", "zz", "h"}), f32({3}, {4, 9, 1})};
  auto r = run_on_values("DictVectorizer", a, map_type(DType::kString, DType::kFloat32), Value::of_map(m));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  // "w" is absent (0); "zz" is outside the vocabulary (ignored).
  expect_tensor_eq(r.value()[0].tensor, f32({1, 3}, {1, 0, 4}));
  Attrs ints = {{"int64_vocabulary", attr_ints({5, 6})}};
  const Map mi{i64({1}, {6}), make<double>({1}, {2.5})};
  r = run_on_values("DictVectorizer", ints, map_type(DType::kInt64, DType::kFloat64), Value::of_map(mi));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, make<double>({1, 2}, {0, 2.5}));
}

TEST(DictVectorizer, WrongKeyTypeIsNamed) {
  Attrs a = {{"string_vocabulary", attr_strings({"h"})}};
  auto r = run_on_values("DictVectorizer", a, map_type(DType::kInt64, DType::kFloat32),
                         Value::of_map(Map{i64({1}, {1}), f32({1}, {1})}));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("the vocabulary is string but X's keys are int64"), std::string::npos)
      << r.status().to_string();
}

// ---- CastMap ----------------------------------------------------------------------------------

Value int_map(std::vector<int64_t> keys, Tensor values) {
  const auto n = static_cast<int64_t>(keys.size());
  return Value::of_map(Map{i64({n}, keys), std::move(values)});
}

TEST(CastMap, DenseInKeyOrderEachCast) {
  const Value m = int_map({3, 1, 2}, f32({3}, {1.5f, 2.75f, -0.9f}));
  const ir::ValueType t = map_type(DType::kInt64, DType::kFloat32);
  auto r = run_on_values("CastMap", {}, t, m);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({1, 3}, {2.75f, -0.9f, 1.5f}));
  r = run_on_values("CastMap", {{"cast_to", attr_string("TO_INT64")}}, t, m);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, i64({1, 3}, {2, 0, 1}));  // truncated
  r = run_on_values("CastMap", {{"cast_to", attr_string("TO_STRING")}}, t, m);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, strs({1, 3}, {"2.750000", "-0.900000", "1.500000"}));
}

TEST(CastMap, SparseAtKeyIndexAndStringsParsed) {
  const ir::ValueType t = map_type(DType::kInt64, DType::kString);
  Attrs a = {{"map_form", attr_string("SPARSE")}, {"max_map", attr_int(4)}};
  auto r = run_on_values("CastMap", a, t, int_map({3, 0, 9}, strs({3}, {"1.5", "-2", "7"})));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0].tensor, f32({1, 4}, {-2, 0, 0, 1.5f}));  // key 9 is past max_map
  a["cast_to"] = attr_string("TO_INT64");
  r = run_on_values("CastMap", a, t, int_map({1}, strs({1}, {"1.5"})));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("the value of key 1, '1.5', is not an integer"), std::string::npos)
      << r.status().to_string();
  r = run_on_values("CastMap", {{"cast_to", attr_string("TO_DOUBLE")}}, t, int_map({1}, strs({1}, {"1"})));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("cast_to must be TO_FLOAT, TO_STRING or TO_INT64, got 'TO_DOUBLE'"),
            std::string::npos)
      << r.status().to_string();
}

}  // namespace
}  // namespace hi::test
