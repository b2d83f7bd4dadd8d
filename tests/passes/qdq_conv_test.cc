// fuse_qdq_conv: a QDQ model's DequantizeLinear -> Conv -> [Relu] -> QuantizeLinear chains run as
// FusedQLinearConv on the int8 kernel, and give what the float graph gives (level 0) but for
// the rounding of values that the float path puts a hair to the other side of a half step.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/kernels/kernels.h"
#include "pass_test_util.h"

namespace hi {
namespace {

using zoo::Attr;
using zoo::ElemType;
using zoo::GraphBuilder;

constexpr float kInScale = 0.02f, kMidScale = 0.05f, kOutScale = 0.04f;

std::vector<int8_t> codes(size_t n, uint32_t seed) {
  std::vector<int8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int8_t>(static_cast<int>((i * 2654435761u + seed) % 255) - 127);
  return v;
}

// x -> float Conv 1x1 -> Q/DQ -> Conv 3x3 (per-channel int8 weights, int32 bias) -> Relu -> Q/DQ -> Conv 1x1 stride 2
// (per-tensor weights, no bias) -> Q/DQ -> y. `w_zero_point` is the second conv's weight zero point;
// `c1_groups` the first's groups.
std::string qdq_model(int8_t w_zero_point, bool bias_scale_right, int64_t c1_groups = 1) {
  GraphBuilder g("qdq_convs", 13, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {16, {}}, {9, {}}, {11, {}}});
  auto scale = [&](const std::string& name, float s) { return g.add_initializer(name, {}, {s}, true); };
  auto qdq = [&](const std::string& v, const std::string& name, float s, uint8_t zp) {
    const std::string sc = scale(name + "_scale", s), z = g.add_initializer_u8(name + "_zp", {}, {zp});
    return g.op("DequantizeLinear", "/" + name, {g.op("QuantizeLinear", "/" + name, {v, sc, z}), sc, z});
  };
  // A float convolution first, as a network's stem reads the image: the rest is channels-last.
  const std::string stem = g.op("Conv", "/stem", {"x", weights(g, "w0", {16, 16, 1, 1}, 0, 0.25)});
  const std::string x = qdq(stem, "in", kInScale, 128);
  std::vector<float> ws1(24), bs1(24);
  std::vector<int32_t> b1(24);
  for (int o = 0; o < 24; ++o) {
    ws1[static_cast<size_t>(o)] = 0.004f * (1.f + 0.1f * static_cast<float>(o % 7));
    bs1[static_cast<size_t>(o)] = kInScale * ws1[static_cast<size_t>(o)] * (bias_scale_right ? 1.f : 1.5f);
    b1[static_cast<size_t>(o)] = (o * 7919) % 4001 - 2000;
  }
  const std::string w1 = g.op(
      "DequantizeLinear", "/w1",
      {g.add_initializer_i8("w1_q", {24, 16 / c1_groups, 3, 3}, codes(static_cast<size_t>(24 * 16 / c1_groups * 9), 1)),
       g.add_initializer("w1_s", {24}, ws1, true), g.add_initializer_i8("w1_zp", {24}, std::vector<int8_t>(24, 0))},
      {Attr::i("axis", 0)});
  const std::string bias1 = g.op("DequantizeLinear", "/b1",
                                 {g.add_initializer_i32("b1_q", {24}, b1), g.add_initializer("b1_s", {24}, bs1, true),
                                  g.add_initializer_i32("b1_zp", {24}, std::vector<int32_t>(24, 0))},
                                 {Attr::i("axis", 0)});
  const std::string c1 =
      g.op("Relu", "/relu",
           {g.op("Conv", "/c1", {x, w1, bias1}, {Attr::ints_of("pads", {1, 1, 1, 1}), Attr::i("group", c1_groups)})});
  const std::string mid = qdq(c1, "mid", kMidScale, 20);  // a zero point above 0: the Relu floor matters
  const std::string w2 = g.op("DequantizeLinear", "/w2",
                              {g.add_initializer_i8("w2_q", {16, 24, 1, 1}, codes(16 * 24, 2)), scale("w2_s", 0.01f),
                               g.add_initializer_i8("w2_zp", {}, {w_zero_point})});
  const std::string c2 = g.op("Conv", "/c2", {mid, w2}, {Attr::ints_of("strides", {2, 2})});
  const std::string y = g.op("Identity", "/out", {qdq(c2, "out", kOutScale, 10)}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

TEST(QdqConv, RunsOnTheInt8KernelAndAgreesWithTheFloatGraph) {
  const std::string bytes = qdq_model(0, true);
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 3);
  if (!cpu::int8_kernels_available() || report.at("to_channels_last") == 0)
    GTEST_SKIP() << "no AVX512_VNNI (or no channels-last layout) here: QDQ convolutions stay float";
  EXPECT_EQ(report.at("fuse_qdq_conv"), 2);
  EXPECT_EQ(ops.count("FusedQLinearConv"), 2u);
  EXPECT_EQ(ops.count("FusedConv") + ops.count("Conv"), 1u);  // the float stem
  EXPECT_EQ(ops.count("Relu"), 0u);                           // the floor at the mid zero point

  SessionOptions o0, o3;
  o0.optimization_level = 0;
  o3.profile = true;
  auto s0 = Session::create_from_bytes(bytes.data(), bytes.size(), o0);
  auto s3 = Session::create_from_bytes(bytes.data(), bytes.size(), o3);
  ASSERT_TRUE(s0.is_ok() && s3.is_ok());
  const Tensor x = random_tensor({2, 16, 9, 11}, 3);
  RunStats stats;
  auto r0 = s0.value()->run({{"x", x}});
  auto r3 = s3.value()->run({{"x", x}}, {}, &stats);
  ASSERT_TRUE(r0.is_ok() && r3.is_ok());
  const Tensor& a = r0.value().at("y");
  const Tensor& b = r3.value().at("y");
  ASSERT_EQ(a.shape(), b.shape());
  int64_t same = 0, spread = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const float d = std::fabs(a.data<float>()[i] - b.data<float>()[i]);
    same += d == 0.f;
    spread += a.data<float>()[i] != a.data<float>()[0];
    ASSERT_LE(d, 2 * kOutScale + 1e-6f) << "element " << i << ": more than two steps apart";
  }
  EXPECT_GT(same, a.numel() * 95 / 100) << "the integer path should give the float graph's codes almost everywhere";
  EXPECT_GT(spread, a.numel() / 4) << "outputs should vary, not all saturate";
  for (const NodeTime& t : stats.node_times) {
    if (t.op_type.find("FusedQLinearConv") != std::string::npos) {
      EXPECT_NE(t.kernel.find("VNNI"), std::string::npos) << t.node;
    }
  }
}

// A residual block: a = QDQ(stem(x)), b = QDQ(Conv 1x1 (a)), y = QDQ(a + b): the Add of two
// dequantized values into a QuantizeLinear becomes one QLinearAdd on the codes.
TEST(QdqConv, ResidualAddRunsOnTheCodes) {
  GraphBuilder g("qdq_residual", 13, 1);
  g.add_input("x", ElemType::kFloat, {{1, {}}, {8, {}}, {7, {}}, {9, {}}});
  auto qdq = [&](const std::string& v, const std::string& name, float s, uint8_t zp) {
    const std::string sc = g.add_initializer(name + "_scale", {}, {s}, true),
                      z = g.add_initializer_u8(name + "_zp", {}, {zp});
    return g.op("DequantizeLinear", "/" + name, {g.op("QuantizeLinear", "/" + name, {v, sc, z}), sc, z});
  };
  const std::string a = qdq(g.op("Conv", "/stem", {"x", weights(g, "w0", {8, 8, 1, 1}, 0, 0.3)}), "a", 0.03f, 128);
  const std::string w1 = g.op("DequantizeLinear", "/w1",
                              {g.add_initializer_i8("w1_q", {8, 8, 1, 1}, codes(64, 5)),
                               g.add_initializer("w1_s", {}, {0.01f}, true), g.add_initializer_i8("w1_zp", {}, {0})});
  const std::string b = qdq(g.op("Conv", "/c1", {a, w1}), "b", 0.04f, 100);
  const std::string y = g.op("Identity", "/out", {qdq(g.op("Add", "/add", {a, b}), "sum", 0.05f, 90)}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops, 3);
  if (report.at("to_channels_last") == 0) GTEST_SKIP() << "no channels-last layout in this build";
  EXPECT_EQ(report.at("fuse_qdq_add"), 1);
  EXPECT_EQ(ops.count("QLinearAdd"), 1u);
  EXPECT_EQ(ops.count("Add"), 0u);
  SessionOptions o0;
  o0.optimization_level = 0;
  auto s0 = Session::create_from_bytes(bytes.data(), bytes.size(), o0);
  auto s3 = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s0.is_ok() && s3.is_ok());
  const Tensor x = random_tensor({1, 8, 7, 9}, 4);
  auto r0 = s0.value()->run({{"x", x}});
  auto r3 = s3.value()->run({{"x", x}});
  ASSERT_TRUE(r0.is_ok() && r3.is_ok());
  const Tensor& want = r0.value().at("y");
  const Tensor& got = r3.value().at("y");
  int64_t same = 0;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const float d = std::fabs(want.data<float>()[i] - got.data<float>()[i]);
    same += d == 0.f;
    ASSERT_LE(d, 2 * 0.05f + 1e-6f) << "element " << i;
  }
  EXPECT_GT(same, want.numel() * 95 / 100);
}

TEST(QdqConv, LeavesAloneWhatTheIntegerFormWouldChange) {
  if (!cpu::int8_kernels_available()) GTEST_SKIP() << "no AVX512_VNNI here: the pass does not run";
  std::multiset<std::string> ops;
  // A weight zero point other than 0 (the second convolution) stays float...
  const auto report = optimise(qdq_model(3, true), &ops, 3);
  if (report.at("to_channels_last") == 0) GTEST_SKIP() << "no channels-last layout in this build";
  EXPECT_EQ(report.at("fuse_qdq_conv"), 1);
  // ...and so does a bias whose scale is not x_scale * w_scale (the first).
  std::multiset<std::string> ops2;
  EXPECT_EQ(optimise(qdq_model(0, false), &ops2, 3).at("fuse_qdq_conv"), 1);
  std::multiset<std::string> ops3;
  EXPECT_EQ(optimise(qdq_model(3, false), &ops3, 3).at("fuse_qdq_conv"), 0);
  // A grouped convolution has no int8 kernel: it stays a float32 FusedConv between its Q and DQ.
  std::multiset<std::string> ops4;
  const std::string grouped = qdq_model(0, true, 8);
  EXPECT_EQ(optimise(grouped, &ops4, 3).at("fuse_qdq_conv"), 1);
  EXPECT_EQ(ops4.count("FusedQLinearConv"), 1u);
}

}  // namespace
}  // namespace hi
