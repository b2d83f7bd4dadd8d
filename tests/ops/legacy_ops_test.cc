// The opset-1 experimental ops older exporters (classic image classifiers) still emit:
// ImageScaler, Crop, ScaledTanh, ParametricSoftplus, Affine. Values worked out by hand.
#include <cmath>

#include "ops/ml_test_util.h"

namespace hi::test {
namespace {

DomainCase op1(const std::string& op, Attrs attrs, std::vector<Tensor> inputs) {
  return {op, "", 1, std::move(attrs), std::move(inputs), 1};
}

TEST(ImageScaler, ScaleThenBiasPerChannel) {
  const Tensor x = f32({1, 2, 1, 2}, {1, 2, 3, 4});
  Attrs a = {{"scale", attr_float(2.f)}, {"bias", attr_floats({10, -1})}};
  expect_tensor_eq(run_domain1(op1("ImageScaler", a, {x})), f32({1, 2, 1, 2}, {12, 14, 5, 7}));
  expect_tensor_eq(run_domain1(op1("ImageScaler", {}, {x})), x);
  // float16 rounds once per element.
  expect_tensor_eq(run_domain1(op1("ImageScaler", a, {f16({1, 2, 1, 1}, {0.5f, 1.5f})})), f16({1, 2, 1, 1}, {11, 2}));
  expect_domain_error(op1("ImageScaler", {{"bias", attr_floats({1, 2, 3})}}, {x}), StatusCode::kInvalidModel,
                      {"ImageScaler", "bias has 3 values", "2 channels"});
  expect_domain_error(op1("ImageScaler", {}, {i64({1, 1}, {1})}), StatusCode::kUnsupported,
                      {"ImageScaler (ai.onnx opset 1)", "int64"});
}

TEST(Crop, BordersAndScale) {
  Tensor x = Tensor::empty(DType::kFloat32, {1, 1, 3, 4});
  for (int i = 0; i < 12; ++i) x.data<float>()[i] = static_cast<float>(i);
  // border = [left 1, top 0, right 1, bottom 1]: rows 0..1, columns 1..2.
  expect_tensor_eq(run_domain1(op1("Crop", {{"border", attr_ints({1, 0, 1, 1})}}, {x})),
                   f32({1, 1, 2, 2}, {1, 2, 5, 6}));
  // With scale [2, 3] from (top 1, left 1): rows 1..2, columns 1..3.
  expect_tensor_eq(run_domain1(op1("Crop", {{"border", attr_ints({1, 1, 0, 0})}, {"scale", attr_ints({2, 3})}}, {x})),
                   f32({1, 1, 2, 3}, {5, 6, 7, 9, 10, 11}));
  expect_tensor_eq(run_domain1(op1("Crop", {{"border", attr_ints({0, 2, 3, 0})}},
                                   {strs({1, 1, 3, 4}, {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"})})),
                   strs({1, 1, 1, 1}, {"i"}));
  expect_domain_error(op1("Crop", {{"border", attr_ints({0, 0, 3, 2})}, {"scale", attr_ints({2, 5})}}, {x}),
                      StatusCode::kInvalidModel, {"Crop", "width window [0, 5)", "4"});
  expect_domain_error(op1("Crop", {{"border", attr_ints({0, 0, 1})}}, {x}), StatusCode::kInvalidModel,
                      {"border", "3 values"});
}

TEST(ScaledTanh, AlphaTanhBeta) {
  const Tensor x = f32({3}, {-1, 0, 2});
  Attrs a = {{"alpha", attr_float(2.f)}, {"beta", attr_float(0.5f)}};
  expect_tensor_near(run_domain1(op1("ScaledTanh", a, {x})), f32({3}, {2 * std::tanh(-0.5f), 0, 2 * std::tanh(1.f)}),
                     1e-6, 1e-7);
  expect_domain_error(op1("ScaledTanh", {{"alpha", attr_float(1.f)}}, {x}), StatusCode::kInvalidModel,
                      {"ScaledTanh", "beta"});
}

TEST(ParametricSoftplus, StableForLargeInputs) {
  const Tensor x = f64({4}, {-1000, 0, 1, 1000});
  Attrs a = {{"alpha", attr_float(3.f)}, {"beta", attr_float(2.f)}};
  expect_tensor_near(run_domain1(op1("ParametricSoftplus", a, {x})),
                     f64({4}, {0, 3 * std::log(2.0), 3 * std::log1p(std::exp(2.0)), 6000}), 1e-12, 1e-12);
  expect_domain_error(op1("ParametricSoftplus", {}, {x}), StatusCode::kInvalidModel, {"ParametricSoftplus", "alpha"});
}

TEST(Affine, DefaultsAndValues) {
  const Tensor x = bf16({2}, {1, -2});
  expect_tensor_eq(run_domain1(op1("Affine", {}, {x})), x);
  expect_tensor_eq(run_domain1(op1("Affine", {{"alpha", attr_float(-2.f)}, {"beta", attr_float(0.5f)}}, {x})),
                   bf16({2}, {-1.5f, 4.5f}));
}

}  // namespace
}  // namespace hi::test
