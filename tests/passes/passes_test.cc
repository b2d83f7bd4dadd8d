// The graph passes: each rewrite happens where it should, leaves alone what it must, and keeps
// the outputs within float32 rounding of the unoptimised graph (level 0) on random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "hipinfer/session.h"
#include "onnx/model_reader.h"
#include "passes/passes.h"
#include "runtime/executor.h"
#include "passes/pass_test_util.h"
#include "zoo/graph_builder.h"

namespace hi {
namespace {

using zoo::Attr;
using zoo::ElemType;
using zoo::GraphBuilder;

// Runs the model at level 0 and level 3 on the same random input; returns the max abs
// difference relative to the output's scale.
double level_difference(const std::string& bytes, const std::string& input, const Shape& shape) {
  SessionOptions o0, o3;
  o0.optimization_level = 0;
  auto s0 = Session::create_from_bytes(bytes.data(), bytes.size(), o0);
  auto s3 = Session::create_from_bytes(bytes.data(), bytes.size(), o3);
  EXPECT_TRUE(s0.is_ok() && s3.is_ok());
  if (!s0.is_ok() || !s3.is_ok()) return 1e30;
  TensorMap in = {{input, random_tensor(shape, 7)}};
  auto r0 = s0.value()->run(in);
  auto r3 = s3.value()->run(in);
  EXPECT_TRUE(r0.is_ok()) << r0.status().to_string();
  EXPECT_TRUE(r3.is_ok()) << r3.status().to_string();
  if (!r0.is_ok() || !r3.is_ok()) return 1e30;
  double worst = 0;
  for (const auto& [name, a] : r0.value()) {
    const Tensor& b = r3.value().at(name);
    EXPECT_EQ(a.shape(), b.shape());
    double scale = 1e-6;
    for (int64_t i = 0; i < a.numel(); ++i) scale = std::max(scale, std::fabs(double(a.data<float>()[i])));
    for (int64_t i = 0; i < a.numel(); ++i)
      worst = std::max(worst, std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]) / scale);
  }
  return worst;
}

// x -> Conv -> BatchNorm -> Add(Conv(x)) -> Relu -> Conv(grouped) -> Clip, odd sizes.
std::string conv_model(int64_t opset) {
  GraphBuilder g("conv_block", opset, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {6, {}}, {9, {}}, {11, {}}});
  const std::string c1 = g.op("Conv", "/c1", {"x", weights(g, "w1", {8, 6, 3, 3}), weights(g, "b1", {8})},
                              {Attr::ints_of("pads", {1, 1, 1, 1})});
  const std::string bn = g.op("BatchNormalization", "/bn",
                              {c1, weights(g, "gamma", {8}, 1.0), weights(g, "beta", {8}), weights(g, "mean", {8}),
                               g.add_initializer("var", {8}, std::vector<float>{0.5f, 1, 2, 3, 0.25f, 1.5f, 4, 0.75f})},
                              {Attr::f("epsilon", 1e-3f)});
  const std::string c2 = g.op("Conv", "/c2", {"x", weights(g, "w2", {8, 6, 1, 1})});
  const std::string sum = g.op("Add", "/add", {bn, c2});
  const std::string relu = g.op("Relu", "/relu", {sum});
  const std::string c3 = g.op("Conv", "/c3", {relu, weights(g, "w3", {8, 2, 3, 3}), weights(g, "b3", {8})},
                              {Attr::i("group", 4), Attr::ints_of("strides", {2, 2})});
  const std::string out = g.op("Identity", "/out", {g.clip("/clip", c3, 0.f, 6.f)}, {}, "y");
  g.add_output(out, ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

TEST(Passes, ConvBatchNormResidualActivationFuse) {
  const std::string bytes = conv_model(13);
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops);
  EXPECT_EQ(report.at("fold_conv_batchnorm"), 1);
  EXPECT_EQ(report.at("fuse_conv"), 2);  // c1 + bn + add(c2) + relu; c3 + clip
  EXPECT_EQ(ops.count("BatchNormalization"), 0u);
  EXPECT_EQ(ops.count("Relu"), 0u);
  EXPECT_EQ(ops.count("Add"), 0u);
  EXPECT_EQ(ops.count("FusedConv") + ops.count("Conv"), 3u);  // c2 feeds the residual
  EXPECT_LT(level_difference(bytes, "x", {2, 6, 9, 11}), 1e-5);
}

TEST(Passes, ClipAsAttributesBeforeOpset11) {
  const std::string bytes = conv_model(10);
  std::multiset<std::string> ops;
  optimise(bytes, &ops);
  EXPECT_EQ(ops.count("Clip"), 0u);  // min and max as attributes fuse too
  EXPECT_LT(level_difference(bytes, "x", {2, 6, 9, 11}), 1e-5);
}

// A QDQ model's activations: convolutions with per-tensor QuantizeLinear -> DequantizeLinear
// pairs between them (and into a residual Add) stay in one channels-last region.
TEST(Passes, PerTensorQuantizeDequantizeFollowTheChannelsLastLayout) {
  GraphBuilder g("qdq_block", 13, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {6, {}}, {9, {}}, {11, {}}});
  auto qdq = [&](const std::string& v, const std::string& scope, float scale) {
    const std::string s = g.constant_f32(scope, scale);
    return g.op("DequantizeLinear", scope, {g.op("QuantizeLinear", scope, {v, s}), s});
  };
  const std::string c1 =
      g.op("Relu", "/r1",
           {g.op("Conv", "/c1", {"x", weights(g, "w1", {8, 6, 3, 3})}, {Attr::ints_of("pads", {1, 1, 1, 1})})});
  const std::string a = qdq(c1, "/q1", 0.05f);
  const std::string b = qdq(g.op("Conv", "/c2", {a, weights(g, "w2", {8, 8, 1, 1})}), "/q2", 0.05f);
  const std::string y = g.op("Identity", "/out", {qdq(g.op("Add", "/add", {a, b}), "/q3", 0.05f)}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 3);
  if (report.at("to_channels_last") == 0) GTEST_SKIP() << "built without the fast CPU kernels: no channels-last layout";
  EXPECT_EQ(ops.count("QuantizeLinear"), 3u);
  EXPECT_EQ(ops.count("Transpose"), 1u);  // y out: nothing in the region goes back to channels-first
  // Quantization steps of 0.05 (about 1 % of the output's scale): a convolution summing in
  // another order may move a value across a rounding boundary, one step.
  EXPECT_LT(level_difference(bytes, "x", {2, 6, 9, 11}), 0.03);
}

// Hard-swish as Paddle2ONNX writes it, x * Clip(x + 3, 0, 6) / 6, the same with the division
// before the product, x * HardSigmoid(x), and an SE block multiplying [N, C, H, W] by
// [N, C, 1, 1]: each hard-swish becomes one HardSwish folded into its convolution, and the
// broadcast multiply stays in the channels-last region (one Transpose, out).
TEST(Passes, HardSwishPatternsFuseAndBroadcastsStayChannelsLast) {
  GraphBuilder g("hard_swish", 11, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {5, {}}, {9, {}}, {13, {}}});
  auto conv = [&](const std::string& in, const std::string& name, int64_t cin, int64_t cout, int64_t k) {
    return g.op("Conv", "/" + name, {in, weights(g, name + "_w", {cout, cin, k, k}), weights(g, name + "_b", {cout})},
                {Attr::ints_of("pads", {k / 2, k / 2, k / 2, k / 2})});
  };
  auto clip6_of_x_plus_3 = [&](const std::string& x, const std::string& scope) {
    return g.clip(scope, g.op("Add", scope, {x, g.constant_f32(scope, 3.f)}), 0.f, 6.f);
  };
  const std::string c1 = conv("x", "c1", 5, 8, 3);
  const std::string h1 =
      g.op("Div", "/h1", {g.op("Mul", "/h1", {c1, clip6_of_x_plus_3(c1, "/h1")}), g.constant_f32("/h1", 6.f)});
  const std::string c2 = conv(h1, "c2", 8, 8, 1);
  const std::string h2 =
      g.op("Mul", "/h2", {g.op("Div", "/h2", {clip6_of_x_plus_3(c2, "/h2"), g.constant_f32("/h2", 6.f)}), c2});
  const std::string c3 = conv(h2, "c3", 8, 8, 3);
  const std::string h3 =
      g.op("Mul", "/h3", {c3, g.op("HardSigmoid", "/h3", {c3}, {Attr::f("alpha", 1.f / 6.f), Attr::f("beta", 0.5f)})});
  // SE: a per-(image, channel) gate from the pooled values.
  const std::string pooled = g.op("GlobalAveragePool", "/se", {h3});
  const std::string gate =
      g.op("HardSigmoid", "/se", {conv(g.op("Relu", "/se", {conv(pooled, "se1", 8, 4, 1)}), "se2", 4, 8, 1)});
  const std::string scaled = g.op("Mul", "/se_mul", {h3, gate});
  // Not hard-swish (+ 2.5): left as it is.
  const std::string c4 = conv(scaled, "c4", 8, 6, 1);
  const std::string other =
      g.op("Div", "/o",
           {g.op("Mul", "/o", {c4, g.clip("/o", g.op("Add", "/o", {c4, g.constant_f32("/o", 2.5f)}), 0.f, 6.f)}),
            g.constant_f32("/o", 6.f)});
  g.add_output(g.op("Identity", "/out", {other}, {}, "y"), ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 3);
  EXPECT_EQ(report.at("fuse_hard_swish"), 3);
  EXPECT_EQ(ops.count("HardSwish"), 0u);  // all three folded into their convolutions
  EXPECT_EQ(ops.count("Clip"), 1u);       // the + 2.5 one
  EXPECT_EQ(ops.count("Div"), 1u);
  if (report.at("to_channels_last") != 0) {
    EXPECT_EQ(ops.count("Transpose"), 1u);
  }
  EXPECT_LT(level_difference(bytes, "x", {2, 5, 9, 13}), 1e-5);
}

// LayerNorm as exporters before opset 17 write it: ReduceMean, Sub, Pow (or Mul(d, d)),
// ReduceMean, Add eps, Sqrt, Div, then * gamma and + beta (either optional). Over the last axis
// it becomes one LayerNormalization; over another axis it stays as it is.
TEST(Passes, LayerNormPatternsFuseOverTheLastAxisOnly) {
  GraphBuilder g("layer_norm", 13, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {7, {}}, {19, {}}});
  auto mean = [&](const std::string& v, const std::string& scope, int64_t axis) {
    return g.op("ReduceMean", scope, {v}, {Attr::ints_of("axes", {axis})});
  };
  auto layer_norm = [&](const std::string& x, const std::string& scope, int64_t axis, bool pow) {
    const std::string d = g.op("Sub", scope, {x, mean(x, scope, axis)});
    const std::string sq = pow ? g.op("Pow", scope, {d, g.constant_f32(scope, 2.f)}) : g.op("Mul", scope, {d, d});
    const std::string sd =
        g.op("Sqrt", scope, {g.op("Add", scope, {mean(sq, scope, axis), g.constant_f32(scope, 1e-5f)})});
    return g.op("Div", scope, {d, sd});
  };
  const std::string n1 = layer_norm("x", "/ln1", -1, true);
  const std::string y1 =
      g.op("Add", "/ln1", {g.op("Mul", "/ln1", {n1, weights(g, "gamma1", {19}, 1.0)}), weights(g, "beta1", {19})});
  const std::string n2 = layer_norm(g.op("Relu", "/r", {y1}), "/ln2", 2, false);
  const std::string y2 = g.op("Mul", "/ln2", {weights(g, "gamma2", {19}, 1.0), n2});  // gamma first, no beta
  const std::string y3 = layer_norm(y2, "/ln3", 1, true);  // the middle axis: not a LayerNormalization
  g.add_output(g.op("Identity", "/out", {y3}, {}, "y"), ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 2);
  EXPECT_EQ(report.at("fuse_layer_norm"), 2);
  EXPECT_EQ(ops.count("LayerNormalization"), 2u);
  EXPECT_EQ(ops.count("ReduceMean"), 2u);  // ln3's
  EXPECT_EQ(ops.count("Sqrt"), 1u);
  EXPECT_LT(level_difference(bytes, "x", {2, 7, 19}), 1e-5);
}

// Conv -> Mul -> Add (or Add -> Mul) by constants per output channel or one value (PP-LCNetV3's
// learnable affine blocks as Paddle2ONNX writes them) fold into the convolution; a constant along
// a spatial axis (even one as long as the channels), or a value with another reader, stops the
// chain.
TEST(Passes, ConvAffineChainsFoldIntoTheConvolution) {
  GraphBuilder g("conv_affine", 13, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {6, {}}, {7, {}}, {8, {}}});
  const std::string c1 = g.op("Conv", "/c1", {"x", weights(g, "w1", {8, 6, 3, 3}), weights(g, "b1", {8})},
                              {Attr::ints_of("pads", {1, 1, 1, 1})});
  const std::string a1 =
      g.op("Add", "/a1", {g.op("Mul", "/m1", {g.constant_f32("/m1", 1.7f), c1}), weights(g, "t1", {8, 1, 1})});
  const std::string r1 = g.op("Relu", "/r1", {a1});
  // Grouped, no bias: Add one value, then Mul by [1, M, 1, 1] (the shift is scaled too).
  const std::string c2 = g.op("Conv", "/c2", {r1, weights(g, "w2", {8, 2, 3, 3})},
                              {Attr::i("group", 4), Attr::ints_of("pads", {1, 1, 1, 1})});
  const std::string a2 =
      g.op("Mul", "/m2", {g.op("Add", "/a2", {c2, g.constant_f32("/a2", -0.25f)}), weights(g, "s2", {1, 8, 1, 1})});
  // Along the width (8, as many as the channels): not per channel, this Mul stays.
  const std::string c3 = g.op("Conv", "/c3", {a2, weights(g, "w3", {8, 8, 1, 1})});
  const std::string m3 = g.op("Mul", "/m3", {c3, weights(g, "s3", {1, 1, 1, 8})});
  g.add_output(g.op("Identity", "/out", {m3}, {}, "y"), ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 1);
  EXPECT_EQ(report.at("fold_conv_affine"), 2);
  EXPECT_EQ(ops.count("Mul"), 1u);
  EXPECT_EQ(ops.count("Add"), 0u);
  EXPECT_LT(level_difference(bytes, "x", {2, 6, 7, 8}), 1e-5);
}

TEST(Passes, ChannelsLastRegionReadsTheInputAsGivenAndHasOneExit) {
  const std::string bytes = conv_model(13);
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 3);
  if (report.at("to_channels_last") == 0) GTEST_SKIP() << "built without the fast CPU kernels: no channels-last layout";
  EXPECT_EQ(ops.count("Conv"), 0u);
  EXPECT_EQ(ops.count("FusedConv"), 3u);
  EXPECT_EQ(ops.count("Transpose"), 1u);  // y out; the convolutions read x channels-first
  std::multiset<std::string> ops2;
  EXPECT_EQ(optimise(bytes, &ops2, 2).count("to_channels_last"), 0u);
  EXPECT_EQ(ops2.count("Transpose"), 0u);
}

TEST(Passes, LevelZeroAndOneLeaveFusionAlone) {
  const std::string bytes = conv_model(13);
  std::multiset<std::string> ops0, ops1;
  optimise(bytes, &ops0, 0);
  EXPECT_EQ(ops0.count("BatchNormalization"), 1u);
  EXPECT_EQ(ops0.count("Identity"), 1u);
  const auto r1 = optimise(bytes, &ops1, 1);
  EXPECT_EQ(ops1.count("BatchNormalization"), 0u);
  EXPECT_EQ(ops1.count("FusedConv"), 0u);
  EXPECT_EQ(r1.at("eliminate_identity"), 0);  // its output is a graph output: kept
}

TEST(Passes, Bf16TurnsEveryConvIntoFusedConv) {
  const std::string bytes = conv_model(13);
  std::multiset<std::string> ops;
  optimise(bytes, &ops, 3, "bf16");
  EXPECT_EQ(ops.count("Conv"), 0u);
  EXPECT_EQ(ops.count("FusedConv"), 3u);
}

// x -> MatMul(W) -> Add(bias) -> exact GELU -> MatMul -> Add(bias) -> Add(residual x).
std::string mlp_model() {
  GraphBuilder g("mlp", 14, 3);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {5, {}}, {12, {}}});
  const std::string h =
      g.op("Add", "/fc1", {weights(g, "b1", {20}), g.op("MatMul", "/fc1", {"x", weights(g, "w1", {12, 20})})});
  const std::string d = g.op("Div", "/gelu", {h, g.constant_f32("/gelu", 1.41421356f)});
  const std::string e = g.op("Erf", "/gelu", {d});
  const std::string p1 = g.op("Add", "/gelu", {e, g.constant_f32("/gelu", 1.f)});
  const std::string m = g.op("Mul", "/gelu", {h, p1});
  const std::string gelu = g.op("Mul", "/gelu", {m, g.constant_f32("/gelu", 0.5f)});
  const std::string o =
      g.op("Add", "/fc2", {g.op("MatMul", "/fc2", {gelu, weights(g, "w2", {20, 12})}), weights(g, "b2", {12})});
  const std::string y = g.op("Add", "/res", {o, "x"}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

TEST(Passes, MatMulBiasGeluResidualFuse) {
  const std::string bytes = mlp_model();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops);
  EXPECT_EQ(report.at("fuse_matmul"), 2);
  EXPECT_EQ(ops.count("FusedMatMul"), 2u);
  EXPECT_EQ(ops.count("Erf"), 0u);
  EXPECT_EQ(ops.count("Add"), 0u);
  EXPECT_EQ(ops.count("MatMul"), 0u);
  EXPECT_LT(level_difference(bytes, "x", {2, 5, 12}), 1e-5);
}

// A residual whose shape the types cannot prove equal to the product's (an unnamed dim) is
// fused too; at run time it may broadcast, and the result is still the Add's.
TEST(Passes, ResidualOfUnprovenShapeFusesAndBroadcasts) {
  GraphBuilder g("residual", 14, 3);
  g.add_input("x", ElemType::kFloat, {{-1, "batch"}, {5, {}}, {12, {}}});
  g.add_input("z", ElemType::kFloat, {{-1, {}}, {5, {}}, {7, {}}});
  const std::string o =
      g.op("Add", "/fc", {g.op("MatMul", "/fc", {"x", weights(g, "w", {12, 7})}), weights(g, "b", {7})});
  const std::string y = g.op("Relu", "/act", {g.op("Add", "/res", {o, "z"})}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  optimise(bytes, &ops);
  EXPECT_EQ(ops.count("FusedMatMul"), 1u);
  EXPECT_EQ(ops.count("Add"), 0u);
  SessionOptions o0, o3;
  o0.optimization_level = 0;
  o0.devices = o3.devices = {"cpu"};
  auto s0 = Session::create_from_bytes(bytes.data(), bytes.size(), o0);
  auto s3 = Session::create_from_bytes(bytes.data(), bytes.size(), o3);
  ASSERT_TRUE(s0.is_ok() && s3.is_ok());
  // Equal shapes; z broadcast over the product; the product broadcast over z.
  for (const auto& [xb, zb] : std::vector<std::pair<int64_t, int64_t>>{{3, 3}, {3, 1}, {1, 4}}) {
    const TensorMap in = {{"x", random_tensor({xb, 5, 12}, 3)}, {"z", random_tensor({zb, 5, 7}, 4)}};
    auto r0 = s0.value()->run(in);
    auto r3 = s3.value()->run(in);
    ASSERT_TRUE(r0.is_ok() && r3.is_ok()) << r3.status().to_string();
    const Tensor& a = r0.value().at("y");
    const Tensor& b = r3.value().at("y");
    ASSERT_EQ(a.shape(), b.shape()) << xb << " " << zb;
    for (int64_t i = 0; i < a.numel(); ++i) EXPECT_NEAR(a.data<float>()[i], b.data<float>()[i], 1e-5) << i;
  }
  // Shapes that do not broadcast fail with both, naming the residual.
  const TensorMap bad = {{"x", random_tensor({3, 5, 12}, 3)}, {"z", random_tensor({2, 5, 7}, 4)}};
  auto r3 = s3.value()->run(bad);
  ASSERT_FALSE(r3.is_ok());
  EXPECT_NE(r3.status().message().find("residual"), std::string::npos) << r3.status().message();
  EXPECT_FALSE(s0.value()->run(bad).is_ok());
}

TEST(Passes, BadPrecisionIsAnError) {
  const std::string bytes = mlp_model();
  SessionOptions o;
  o.precision = "fp8";
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().message().find("precision must be fp32 or bf16, got 'fp8'"), std::string::npos)
      << s.status().to_string();
}

}  // namespace
}  // namespace hi
