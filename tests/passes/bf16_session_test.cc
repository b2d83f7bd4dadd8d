// --precision bf16 end to end: a bottleneck block (1x1, 3x3, 1x1 + residual, the shapes
// ResNet-50 is made of) and a two-layer MLP through sessions in bfloat16 against the same in
// float32, and the profile naming bfloat16 kernels for every convolution and matrix product
// where the CPU computes bfloat16.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/kernels/kernels.h"
#include "pass_test_util.h"

namespace hi {
namespace {

using zoo::Attr;
using zoo::ElemType;
using zoo::GraphBuilder;

std::string bottleneck_model() {
  GraphBuilder g("bottleneck", 13, 1);
  g.add_input("x", ElemType::kFloat, {{2, {}}, {48, {}}, {13, {}}, {11, {}}});
  const std::string a = g.op(
      "Relu", "/r1", {g.op("Conv", "/c1", {"x", weights(g, "w1", {40, 48, 1, 1}, 0, 0.15), weights(g, "b1", {40})})});
  const std::string b =
      g.op("Relu", "/r2",
           {g.op("Conv", "/c2", {a, weights(g, "w2", {40, 40, 3, 3}, 0, 0.05), weights(g, "b2", {40})},
                 {Attr::ints_of("pads", {1, 1, 1, 1})})});
  const std::string c = g.op("Conv", "/c3", {b, weights(g, "w3", {48, 40, 1, 1}, 0, 0.15), weights(g, "b3", {48})});
  const std::string y = g.op("Relu", "/out", {g.op("Add", "/add", {c, "x"})}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

Result<Tensor> run_at(const std::string& bytes, const std::string& precision, const Tensor& x, RunStats* stats) {
  SessionOptions so;
  so.precision = precision;
  so.threads = 2;
  so.profile = true;
  auto session = Session::create_from_bytes(bytes.data(), bytes.size(), so);
  if (!session.is_ok()) return session.status();
  auto out = session.value()->run({{"x", x}}, {}, stats);
  if (!out.is_ok()) return out.status();
  return out.value().at("y").clone();
}

TEST(Bf16Session, BottleneckAgreesWithFloat32) {
  const std::string bytes = bottleneck_model();
  const Tensor x = random_tensor({2, 48, 13, 11}, 7);
  RunStats fp32_stats, bf16_stats;
  auto want = run_at(bytes, "fp32", x, &fp32_stats);
  auto got = run_at(bytes, "bf16", x, &bf16_stats);
  ASSERT_TRUE(want.is_ok()) << want.status().to_string();
  ASSERT_TRUE(got.is_ok()) << got.status().to_string();
  const float* w = want.value().data<float>();
  const float* y = got.value().data<float>();
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < want.value().numel(); ++i) {
    scale = std::max(scale, std::fabs(double(w[i])));
    worst = std::max(worst, std::fabs(double(y[i]) - w[i]));
  }
  // Three bfloat16 layers: each input and weight rounded to 8 bits (2^-9 relative).
  EXPECT_LT(worst, 2e-2 * scale) << "scale " << scale;
  if (!cpu::cpu_has_bf16()) GTEST_SKIP() << "no AVX512_BF16 on this CPU: bf16 computes in float32 here";
  EXPECT_GT(worst, 0.0) << "bf16 gave float32's result exactly: nothing was rounded";
  int convs = 0;
  for (const NodeTime& t : bf16_stats.node_times) {
    if (t.op_type.find("Conv") == std::string::npos) continue;
    ++convs;
    const bool bf16_kernel = t.kernel.find("BF16") != std::string::npos || t.kernel.find("bf16") != std::string::npos;
    EXPECT_TRUE(bf16_kernel) << t.node << " ran on '" << t.kernel << "'";
  }
  EXPECT_EQ(convs, 3);
  for (const NodeTime& t : fp32_stats.node_times)
    EXPECT_EQ(t.kernel.find("BF16"), std::string::npos) << t.node << " ran on '" << t.kernel << "' in float32";
}

// x -> MatMul + bias -> Relu -> MatMul + bias + residual: both products become FusedMatMul
// marked bf16 and run on the bfloat16 product.
TEST(Bf16Session, MatMulsRunInBfloat16) {
  GraphBuilder g("mlp", 14, 1);
  g.add_input("x", ElemType::kFloat, {{37, {}}, {70, {}}});
  const std::string h =
      g.op("Relu", "/r",
           {g.op("Add", "/fc1", {g.op("MatMul", "/fc1", {"x", weights(g, "w1", {70, 90})}), weights(g, "b1", {90})})});
  const std::string o =
      g.op("Add", "/fc2", {g.op("MatMul", "/fc2", {h, weights(g, "w2", {90, 70})}), weights(g, "b2", {70})});
  const std::string y = g.op("Add", "/res", {o, "x"}, {}, "y");
  g.add_output(y, ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  optimise(bytes, &ops, 3, "bf16");
  EXPECT_EQ(ops.count("FusedMatMul"), 2u);
  const Tensor x = random_tensor({37, 70}, 9);
  RunStats stats;
  SessionOptions so;
  so.threads = 2;
  so.profile = true;
  auto fp32 = Session::create_from_bytes(bytes.data(), bytes.size(), so);
  so.precision = "bf16";
  auto bf16 = Session::create_from_bytes(bytes.data(), bytes.size(), so);
  ASSERT_TRUE(fp32.is_ok() && bf16.is_ok());
  auto want = fp32.value()->run({{"x", x}});
  auto got = bf16.value()->run({{"x", x}}, {}, &stats);
  ASSERT_TRUE(want.is_ok() && got.is_ok());
  const Tensor& w = want.value().at("y");
  const Tensor& t = got.value().at("y");
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < w.numel(); ++i) {
    scale = std::max(scale, std::fabs(double(w.data<float>()[i])));
    worst = std::max(worst, std::fabs(double(t.data<float>()[i]) - w.data<float>()[i]));
  }
  EXPECT_LT(worst, 2e-2 * scale);
  if (!cpu::cpu_has_bf16()) GTEST_SKIP() << "no AVX512_BF16 on this CPU: bf16 computes in float32 here";
  EXPECT_GT(worst, 0.0);
  int products = 0;
  for (const NodeTime& n : stats.node_times) {
    if (n.op_type.find("FusedMatMul") == std::string::npos) continue;
    ++products;
    EXPECT_NE(n.kernel.find("BF16"), std::string::npos) << n.node << " ran on '" << n.kernel << "'";
  }
  EXPECT_EQ(products, 2);
}

}  // namespace
}  // namespace hi
