// The ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum), the legacy (opset < 7) Pow
// broadcasting, and MatMul inference with a not-yet-typed input. Values worked out by hand.
#include "ops/ml_test_util.h"

namespace hi::test {
namespace {

const char* const kTraining = "ai.onnx.preview.training";

Tensor scalar_f32(float v) { return f32({}, {v}); }
Tensor scalar_i64(int64_t v) { return i64({}, {v}); }

DomainCase training(const std::string& op, Attrs attrs, std::vector<Tensor> inputs, int num_outputs) {
  return {op, kTraining, 1, std::move(attrs), std::move(inputs), num_outputs};
}

TEST(Adagrad, SingleStep) {
  // r = 0.1; H_new = H + G^2 = [0.25, 4]; X_new = X - r * G / sqrt(H_new).
  const Attrs a = {{"epsilon", attr_float(0.f)}};
  auto out = run_domain(training(
      "Adagrad", a, {scalar_f32(0.1f), scalar_i64(0), f32({2}, {1, 2}), f32({2}, {0.5f, -1}), f32({2}, {0, 3})}, 2));
  expect_tensor_near(out[0], f32({2}, {0.9f, 2.05f}));
  expect_tensor_near(out[1], f32({2}, {0.25f, 4}));
}

TEST(Adagrad, DecayAndNormCoefficient) {
  // r = 0.1 / (1 + 1 * 1) = 0.05; G' = X + G = [1.5, 1]; H_new = [2.25, 4].
  const Attrs a = {
      {"epsilon", attr_float(0.f)}, {"decay_factor", attr_float(1.f)}, {"norm_coefficient", attr_float(1.f)}};
  auto out = run_domain(training(
      "Adagrad", a, {scalar_f32(0.1f), scalar_i64(1), f32({2}, {1, 2}), f32({2}, {0.5f, -1}), f32({2}, {0, 3})}, 2));
  expect_tensor_near(out[0], f32({2}, {0.95f, 1.975f}));
  expect_tensor_near(out[1], f32({2}, {2.25f, 4}));
}

TEST(Adagrad, DoubleAndDefaultEpsilon) {
  // epsilon defaults to 1e-6: X_new = 1 - 0.1 * 0.5 / (0.5 + 1e-6).
  auto out = run_domain(
      training("Adagrad", {}, {f64({}, {0.1}), scalar_i64(0), f64({1}, {1}), f64({1}, {0.5}), f64({1}, {0})}, 2));
  expect_tensor_near(out[0], f64({1}, {1 - 0.05 / (0.5 + 1e-6)}), 1e-12, 1e-12);
  expect_tensor_near(out[1], f64({1}, {0.25}), 1e-12, 1e-12);
}

TEST(Adagrad, SeveralVariables) {
  // Inputs R, T, X1, X2, G1, G2, H1, H2; outputs X1_new, X2_new, H1_new, H2_new.
  const Attrs a = {{"epsilon", attr_float(0.f)}};
  auto out = run_domain(training("Adagrad", a,
                                 {scalar_f32(0.1f), scalar_i64(0), f32({1}, {1}), f32({2, 1}, {2, 4}), f32({1}, {0.5f}),
                                  f32({2, 1}, {-1, 2}), f32({1}, {0}), f32({2, 1}, {3, 0})},
                                 4));
  expect_tensor_near(out[0], f32({1}, {0.9f}));
  expect_tensor_near(out[1], f32({2, 1}, {2.05f, 3.9f}));
  expect_tensor_near(out[2], f32({1}, {0.25f}));
  expect_tensor_near(out[3], f32({2, 1}, {4, 4}));
}

TEST(Adagrad, Errors) {
  const Tensor r = scalar_f32(0.1f), t = scalar_i64(0), x = f32({2}, {1, 2});
  // 7 inputs do not split into groups of X, G, H.
  expect_domain_error(training("Adagrad", {}, {r, t, x, x, x, x, x}, 2), StatusCode::kInvalidModel,
                      {"Adagrad", "2 + 3*n", "got 7"});
  // One variable needs two outputs.
  expect_domain_error(training("Adagrad", {}, {r, t, x, x, x}, 1), StatusCode::kInvalidModel,
                      {"Adagrad", "needs 2 outputs", "got 1"});
  expect_domain_error(training("Adagrad", {}, {r, t, x, f32({3}, {1, 2, 3}), x}, 2), StatusCode::kInvalidModel,
                      {"G_1", "X_1's shape", "float32[3]"});
  expect_domain_error(training("Adagrad", {}, {r, t, x, x, f64({2}, {1, 2})}, 2), StatusCode::kInvalidModel,
                      {"H_1", "float64"});
  expect_domain_error(training("Adagrad", {}, {r, t, i32({2}, {1, 2}), i32({2}, {1, 2}), i32({2}, {1, 2})}, 2),
                      StatusCode::kUnsupported, {"Adagrad (ai.onnx.preview.training opset 1)", "int32"});
  expect_domain_error(training("Adagrad", {}, {r, f32({}, {0}), x, x, x}, 2), StatusCode::kInvalidModel,
                      {"T must be int64", "float32"});
  expect_domain_error(training("Adagrad", {}, {f32({2}, {1, 2}), t, x, x, x}, 2), StatusCode::kInvalidModel,
                      {"R must be a scalar"});
}

TEST(Adam, FirstStepWithoutBiasCorrection) {
  // T = 0: R' = R. V_new = 0.5 * 2 = 1; H_new = 0.04 * 4 = 0.16; X_new = 1 - 0.1 * 1 / 0.4.
  Attrs a = {{"alpha", attr_float(0.5f)}, {"beta", attr_float(0.96f)}, {"epsilon", attr_float(0.f)}};
  const std::vector<Tensor> ins = {scalar_f32(0.1f), scalar_i64(0), f32({1}, {1}),
                                   f32({1}, {2}),    f32({1}, {0}), f32({1}, {0})};
  auto out = run_domain(training("Adam", a, ins, 3));
  expect_tensor_near(out[0], f32({1}, {0.75f}));
  expect_tensor_near(out[1], f32({1}, {1}));
  expect_tensor_near(out[2], f32({1}, {0.16f}));
  // norm_coefficient_post scales the result.
  a["norm_coefficient_post"] = attr_float(0.5f);
  expect_tensor_near(run_domain(training("Adam", a, ins, 3))[0], f32({1}, {0.375f}));
}

TEST(Adam, BiasCorrectionAndNormCoefficient) {
  // T = 1: R' = 0.1 * sqrt(1 - 0.96) / (1 - 0.5) = 0.04; X_new = 1 - 0.04 * 1 / 0.4 = 0.9.
  const Attrs a = {{"alpha", attr_float(0.5f)}, {"beta", attr_float(0.96f)}, {"epsilon", attr_float(0.f)}};
  auto out = run_domain(training(
      "Adam", a, {scalar_f32(0.1f), scalar_i64(1), f32({1}, {1}), f32({1}, {2}), f32({1}, {0}), f32({1}, {0})}, 3));
  expect_tensor_near(out[0], f32({1}, {0.9f}));
  // norm_coefficient 0.5, T = 0: G' = 2.5, V_new = 1.25, H_new = 0.25, X_new = 1 - 0.1 * 1.25 / 0.5.
  Attrs b = a;
  b["norm_coefficient"] = attr_float(0.5f);
  out = run_domain(training(
      "Adam", b, {scalar_f32(0.1f), scalar_i64(0), f32({1}, {1}), f32({1}, {2}), f32({1}, {0}), f32({1}, {0})}, 3));
  expect_tensor_near(out[0], f32({1}, {0.75f}));
  expect_tensor_near(out[1], f32({1}, {1.25f}));
  expect_tensor_near(out[2], f32({1}, {0.25f}));
}

TEST(Adam, TwoDoubleVariables) {
  const Attrs a = {{"alpha", attr_float(0.5f)}, {"beta", attr_float(0.75f)}, {"epsilon", attr_float(0.f)}};
  // Both variables: V_new = 0.5 * G, H_new = 0.25 * G^2, so X_new = X - 0.1 * sign(G) (T = 0).
  auto out = run_domain(
      training("Adam", a,
               {f64({}, {0.1}), scalar_i64(0), f64({1}, {1}), f64({3}, {0, 1, 2}), f64({1}, {2}), f64({3}, {-4, 2, 6}),
                f64({1}, {0}), f64({3}, {0, 0, 0}), f64({1}, {0}), f64({3}, {0, 0, 0})},
               6));
  expect_tensor_near(out[0], f64({1}, {0.9}), 1e-12, 1e-12);
  expect_tensor_near(out[1], f64({3}, {0.1, 0.9, 1.9}), 1e-12, 1e-12);
  expect_tensor_near(out[3], f64({3}, {-2, 1, 3}), 1e-12, 1e-12);
  expect_tensor_near(out[5], f64({3}, {4, 1, 9}), 1e-12, 1e-12);
}

TEST(Adam, Errors) {
  const Tensor r = scalar_f32(0.1f), t = scalar_i64(0), x = f32({2}, {1, 2});
  expect_domain_error(training("Adam", {}, {r, t, x, x, x}, 3), StatusCode::kInvalidModel,
                      {"Adam", "2 + 4*n", "got 5"});
  expect_domain_error(training("Adam", {}, {r, t, x, x, x, x}, 2), StatusCode::kInvalidModel, {"needs 3 outputs"});
  expect_domain_error(training("Adam", {}, {r, t, x, x, f32({1, 2}, {1, 2}), x}, 3), StatusCode::kInvalidModel,
                      {"V_1", "X_1's shape"});
}

Attrs momentum_attrs(const std::string& mode, float norm = 0.f) {
  return {{"alpha", attr_float(0.5f)},
          {"beta", attr_float(0.25f)},
          {"norm_coefficient", attr_float(norm)},
          {"mode", attr_string(mode)}};
}

TEST(Momentum, StandardFirstAndLaterSteps) {
  const Tensor x = f32({2}, {1, 2}), g = f32({2}, {1, -2}), v = f32({2}, {2, 4});
  // T = 0 takes beta = 1: V_new = 0.5 * V + G = [2, 0]; X_new = X - 0.1 * V_new.
  auto out =
      run_domain(training("Momentum", momentum_attrs("standard"), {scalar_f32(0.1f), scalar_i64(0), x, g, v}, 2));
  expect_tensor_near(out[0], f32({2}, {0.8f, 2}));
  expect_tensor_near(out[1], f32({2}, {2, 0}));
  // T = 1: V_new = 0.5 * V + 0.25 * G = [1.25, 1.5].
  out = run_domain(training("Momentum", momentum_attrs("standard"), {scalar_f32(0.1f), scalar_i64(1), x, g, v}, 2));
  expect_tensor_near(out[0], f32({2}, {0.875f, 1.85f}));
  expect_tensor_near(out[1], f32({2}, {1.25f, 1.5f}));
  // norm_coefficient 1: G' = X + G = [2, 0]; V_new = [1.5, 2].
  out =
      run_domain(training("Momentum", momentum_attrs("standard", 1.f), {scalar_f32(0.1f), scalar_i64(1), x, g, v}, 2));
  expect_tensor_near(out[0], f32({2}, {0.85f, 1.8f}));
  expect_tensor_near(out[1], f32({2}, {1.5f, 2}));
}

TEST(Momentum, Nesterov) {
  // T = 1: V_new = [1.25, 1.5]; X_new = X - 0.1 * (G + 0.5 * V_new) = [1 - 0.1625, 2 + 0.125].
  auto out =
      run_domain(training("Momentum", momentum_attrs("nesterov"),
                          {scalar_f32(0.1f), scalar_i64(1), f32({2}, {1, 2}), f32({2}, {1, -2}), f32({2}, {2, 4})}, 2));
  expect_tensor_near(out[0], f32({2}, {0.8375f, 2.125f}));
  expect_tensor_near(out[1], f32({2}, {1.25f, 1.5f}));
}

TEST(Momentum, TwoVariablesAndOddSizes) {
  // Variable 2 is empty, variable 1 has 7 elements: G = 1, V = 0, T = 0 so X_new = X - 0.1.
  const Tensor x1 = random_f32({7}, 3), empty = f32({0, 3}, {});
  Tensor ones = f32({7}, std::vector<float>(7, 1.f)), zeros = f32({7}, std::vector<float>(7, 0.f));
  auto out = run_domain(training("Momentum", momentum_attrs("standard"),
                                 {scalar_f32(0.1f), scalar_i64(0), x1, empty, ones, empty, zeros, empty}, 4));
  std::vector<float> expected(7);
  for (int i = 0; i < 7; ++i) expected[static_cast<size_t>(i)] = x1.data<float>()[i] - 0.1f;
  expect_tensor_near(out[0], f32({7}, expected));
  expect_tensor_eq(out[1], empty);
  expect_tensor_near(out[2], ones);
  expect_tensor_eq(out[3], empty);
}

TEST(Momentum, Errors) {
  const Tensor r = scalar_f32(0.1f), t = scalar_i64(0), x = f32({2}, {1, 2});
  Attrs no_mode = momentum_attrs("standard");
  no_mode.erase("mode");
  expect_domain_error(training("Momentum", no_mode, {r, t, x, x, x}, 2), StatusCode::kInvalidModel,
                      {"requires attribute 'mode'"});
  Attrs no_alpha = momentum_attrs("standard");
  no_alpha.erase("alpha");
  expect_domain_error(training("Momentum", no_alpha, {r, t, x, x, x}, 2), StatusCode::kInvalidModel,
                      {"requires attribute 'alpha'"});
  expect_domain_error(training("Momentum", momentum_attrs("heavy_ball"), {r, t, x, x, x}, 2), StatusCode::kUnsupported,
                      {"Momentum (ai.onnx.preview.training opset 1)", "heavy_ball"});
  expect_domain_error(training("Momentum", momentum_attrs("standard"), {r, t, x, x, x, x, x, x}, 2),
                      StatusCode::kInvalidModel, {"needs 4 outputs", "got 2"});
  expect_domain_error(training("Momentum", momentum_attrs("standard"), {r, t, x, x}, 2), StatusCode::kInvalidModel,
                      {"2 + 3*n", "got 4"});
  expect_domain_error(
      training("Momentum", momentum_attrs("standard"), {r, t, f16({2}, {1, 2}), f16({2}, {1, 2}), f16({2}, {1, 2})}, 2),
      StatusCode::kUnsupported, {"Momentum (ai.onnx.preview.training opset 1)", "float16"});
}

DomainCase pow6(Attrs attrs, std::vector<Tensor> inputs) {
  return {"Pow", "", 6, std::move(attrs), std::move(inputs), 1};
}

TEST(PowLegacy, BroadcastAtAxisAndSuffix) {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // axis 0: the exponent [2, 3] runs down the rows.
  expect_tensor_near(run_domain1(pow6({{"broadcast", attr_int(1)}, {"axis", attr_int(0)}}, {x, f32({2}, {2, 3})})),
                     f32({2, 3}, {1, 4, 9, 64, 125, 216}));
  // No axis: suffix matching along the columns.
  expect_tensor_near(run_domain1(pow6({{"broadcast", attr_int(1)}}, {x, f32({3}, {0, 1, 2})})),
                     f32({2, 3}, {1, 2, 9, 1, 5, 36}));
  expect_tensor_near(run_domain1(pow6({}, {f64({2}, {2, 3}), f64({2}, {3, 0.5})})), f64({2}, {8, std::sqrt(3.0)}),
                     1e-12, 1e-12);
}

TEST(PowLegacy, Errors) {
  expect_domain_error(pow6({}, {i32({2}, {1, 2}), i32({2}, {1, 2})}), StatusCode::kUnsupported,
                      {"Pow opset 6", "int32"});
  expect_domain_error(pow6({}, {f32({2}, {1, 2}), f64({2}, {1, 2})}), StatusCode::kInvalidModel,
                      {"Pow opset 6", "float32", "float64"});
}

// A MatMul input whose dtype is not known when the session is built (an untyped graph or Scan
// body input) takes its type from the other input instead of failing inference.
Result<std::vector<Tensor>> run_matmul_untyped_a(const Tensor& a, const Tensor& b, DType* inferred) {
  ir::Graph g;
  ir::Node n;
  n.op_type = "MatMul";
  n.name = "mm";
  n.inputs = {"a", "b"};
  n.outputs = {"y"};
  g.nodes.push_back(n);
  g.inputs.push_back({"a", ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  g.inputs.push_back({"b", ir::ValueType::concrete(b.dtype(), b.shape())});
  g.outputs.push_back({"y", ir::ValueType::tensor_unknown_shape(DType::kUndefined)});
  HI_ASSIGN_OR_RETURN(auto ex, ops::Executor::build(g, {{"", 21}}, ops::BuildOptions{}));
  const ir::ValueType* t = ex->value_type("y");
  *inferred = t ? t->dtype : DType::kUndefined;
  std::vector<ops::Value> outs;
  HI_RETURN_IF_ERROR(ex->run({ops::Value::of(a), ops::Value::of(b)}, &outs));
  return std::vector<Tensor>{outs[0].tensor};
}

TEST(MatMulInference, UndefinedInputTypeIsNotYetKnown) {
  DType inferred = DType::kUndefined;
  auto r = run_matmul_untyped_a(f32({1, 2}, {1, 2}), f32({2, 1}, {3, 4}), &inferred);
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(inferred, DType::kFloat32);
  expect_tensor_eq(r.value()[0], f32({1, 1}, {11}));
  // The kernel still rejects a pair of different types once the real one is known.
  auto bad = run_matmul_untyped_a(i64({1, 2}, {1, 2}), f32({2, 1}, {3, 4}), &inferred);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("different types"), std::string::npos) << bad.status().to_string();
}

}  // namespace
}  // namespace hi::test
