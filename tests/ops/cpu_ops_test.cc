// The CPU backend's ops (src/backends/cpu/ops/) against their ops' reference kernels, on random inputs of
// awkward sizes: each case runs the reference alone, then the CPU's op with its inputs as graph
// inputs (weights not constant) and as constants (folded at build time, weights packed once).
#include <cmath>

#include "ops/op_test_util.h"

namespace hi::test {
namespace {

void expect_cpu_matches_reference(const OpCase& c, double rtol = 1e-4, double atol = 1e-5) {
  SCOPED_TRACE(c.op_type);
  auto ref = run_op_once(c, false, false);
  ASSERT_TRUE(ref.is_ok()) << ref.status().to_string();
  for (bool constants : {false, true}) {
    SCOPED_TRACE(constants ? "inputs as constants" : "inputs as graph inputs");
    auto cpu = run_op_once(c, constants, true);
    ASSERT_TRUE(cpu.is_ok()) << cpu.status().to_string();
    ASSERT_EQ(cpu.value().size(), ref.value().size());
    for (size_t i = 0; i < ref.value().size(); ++i) expect_tensor_near(cpu.value()[i], ref.value()[i], rtol, atol);
  }
}

TEST(CpuOps, SoftmaxAlongTheLastAxisAndAnother) {
  const Tensor x = random_f32({3, 5, 37}, 1, -4.f, 4.f);
  expect_cpu_matches_reference({"Softmax", "", 13, {{"axis", attr_int(-1)}}, {x}});
  expect_cpu_matches_reference({"Softmax", "", 13, {{"axis", attr_int(1)}}, {x}});
  expect_cpu_matches_reference({"Softmax", "", 11, {{"axis", attr_int(1)}}, {x}});  // the 2-D view
}

TEST(CpuOps, LayerNormalizationRows) {
  const Tensor x = random_f32({4, 6, 29}, 2, -3.f, 3.f);
  expect_cpu_matches_reference(
      {"LayerNormalization", "", 17, {{"axis", attr_int(-1)}}, {x, random_f32({29}, 3), random_f32({29}, 4)}});
  // Over two dims, without B.
  expect_cpu_matches_reference({"LayerNormalization", "", 17, {{"axis", attr_int(1)}}, {x, random_f32({6, 29}, 5)}});
}

TEST(CpuOps, GemmAndMatMulProducts) {
  expect_cpu_matches_reference({"Gemm",
                                "",
                                13,
                                {{"transB", attr_int(1)}, {"alpha", attr_float(0.7f)}, {"beta", attr_float(1.3f)}},
                                {random_f32({7, 13}, 6), random_f32({9, 13}, 7), random_f32({9}, 8)}});
  expect_cpu_matches_reference({"MatMul", "", 13, {}, {random_f32({2, 5, 11}, 9), random_f32({11, 6}, 10)}});
  expect_cpu_matches_reference({"MatMul", "", 13, {}, {random_f32({3, 1, 4, 7}, 11), random_f32({2, 7, 5}, 12)}});
}

TEST(CpuOps, TanhAndSigmoidOnTheVectorKernels) {
  const Tensor x = random_f32({3, 7001}, 13, -9.f, 9.f);  // more than one thread's chunk
  expect_cpu_matches_reference({"Tanh", "", 13, {}, {x}}, 1e-5, 1e-6);
  expect_cpu_matches_reference({"Sigmoid", "", 13, {}, {x}}, 1e-5, 1e-6);
}

TEST(CpuOps, ConvolutionsStridedGroupedAndTransposed) {
  expect_cpu_matches_reference({"Conv",
                                "",
                                13,
                                {{"pads", attr_ints({1, 0, 1, 2})}, {"strides", attr_ints({2, 1})}},
                                {random_f32({2, 3, 11, 13}, 14), random_f32({5, 3, 3, 3}, 15), random_f32({5}, 16)}});
  expect_cpu_matches_reference({"Conv",
                                "",
                                13,
                                {{"group", attr_int(3)}, {"dilations", attr_ints({2, 2})}},
                                {random_f32({1, 6, 9, 9}, 17), random_f32({6, 2, 3, 3}, 18)}});
  expect_cpu_matches_reference({"ConvTranspose",
                                "",
                                13,
                                {{"strides", attr_ints({2, 2})}, {"pads", attr_ints({1, 1, 1, 1})}},
                                {random_f32({1, 4, 5, 7}, 19), random_f32({4, 3, 3, 3}, 20), random_f32({3}, 21)}});
}

TEST(CpuOps, FusedConvWithResidualAndActivationInBothLayouts) {
  std::map<std::string, ir::Attribute> attrs = {{"pads", attr_ints({1, 1, 1, 1})}, {"activation", attr_string("Relu")}};
  expect_cpu_matches_reference({"FusedConv",
                                "com.hipinfer",
                                13,
                                attrs,
                                {random_f32({1, 3, 9, 11}, 22), random_f32({8, 3, 3, 3}, 23), random_f32({8}, 24),
                                 random_f32({1, 8, 9, 11}, 25)}});
  attrs["channels_last"] = attr_int(1);
  attrs["activation"] = attr_string("Clip");
  attrs["activation_params"] = attr_floats({0.f, 0.5f});
  expect_cpu_matches_reference({"FusedConv",
                                "com.hipinfer",
                                13,
                                attrs,
                                {random_f32({2, 9, 11, 5}, 26), random_f32({7, 5, 3, 3}, 27), random_f32({7}, 28),
                                 random_f32({2, 9, 11, 7}, 29)}});
}

TEST(CpuOps, FusedMatMulWithBiasResidualAndActivation) {
  expect_cpu_matches_reference(
      {"FusedMatMul",
       "com.hipinfer",
       13,
       {{"activation", attr_string("GeluTanh")}},
       {random_f32({3, 5, 17}, 30), random_f32({17, 23}, 31), random_f32({23}, 32), random_f32({3, 5, 23}, 33)}});
  // A residual that broadcasts over the product.
  expect_cpu_matches_reference(
      {"FusedMatMul",
       "com.hipinfer",
       13,
       {},
       {random_f32({3, 5, 17}, 34), random_f32({17, 23}, 35), random_f32({23}, 36), random_f32({1, 5, 23}, 37)}});
}

TEST(CpuOps, FusedAttentionWithAMask) {
  Tensor mask = random_f32({2, 1, 1, 7}, 38);
  mask.data<float>()[6] = -10000.f;  // a padded key in the first batch
  expect_cpu_matches_reference(
      {"FusedAttention",
       "com.hipinfer",
       13,
       {{"scale", attr_float(1.f / std::sqrt(8.f))}},
       {random_f32({2, 7, 3, 8}, 39), random_f32({2, 9, 3, 8}, 40), random_f32({2, 9, 3, 5}, 41), Tensor()}});
  expect_cpu_matches_reference(
      {"FusedAttention",
       "com.hipinfer",
       13,
       {{"scale", attr_float(0.5f)}},
       {random_f32({2, 7, 3, 8}, 42), random_f32({2, 7, 3, 8}, 43), random_f32({2, 7, 3, 8}, 44), mask}});
}

TEST(CpuOps, InvertedResidualBlocks) {
  std::map<std::string, ir::Attribute> attrs = {{"kernel_shape", attr_ints({3, 3})},
                                                {"strides", attr_ints({1, 1})},
                                                {"pads", attr_ints({1, 1, 1, 1})},
                                                {"expand_activation", attr_string("Clip")},
                                                {"expand_activation_params", attr_floats({0.f, 6.f})},
                                                {"depthwise_activation", attr_string("Relu")}};
  expect_cpu_matches_reference({"InvertedResidual",
                                "com.hipinfer",
                                1,
                                attrs,
                                {random_f32({1, 9, 11, 8}, 45), random_f32({24, 8, 1, 1}, 46), random_f32({24}, 47),
                                 random_f32({24, 1, 3, 3}, 48), random_f32({24}, 49), random_f32({8, 24, 1, 1}, 50),
                                 random_f32({8}, 51), random_f32({1, 9, 11, 8}, 52)}});
  // No expansion, stride 2, no residual.
  attrs["strides"] = attr_ints({2, 2});
  expect_cpu_matches_reference({"InvertedResidual",
                                "com.hipinfer",
                                1,
                                attrs,
                                {random_f32({2, 13, 10, 16}, 53), Tensor(), Tensor(), random_f32({16, 1, 3, 3}, 54),
                                 random_f32({16}, 55), random_f32({12, 16, 1, 1}, 56), Tensor()}});
}

TEST(CpuOps, RecurrentOpsOnSgemmAndTheVectorGates) {
  const int64_t seq = 5, batch = 3, input = 7, hidden = 9;
  for (auto [op, gates] : {std::pair{"RNN", 1}, std::pair{"GRU", 3}, std::pair{"LSTM", 4}}) {
    OpCase c{op,
             "",
             14,
             {{"hidden_size", attr_int(hidden)}},
             {random_f32({seq, batch, input}, 57), random_f32({1, gates * hidden, input}, 58),
              random_f32({1, gates * hidden, hidden}, 59), random_f32({1, 2 * gates * hidden}, 60)},
             std::string(op) == "LSTM" ? 3 : 2};
    expect_cpu_matches_reference(c);
  }
}

}  // namespace
}  // namespace hi::test
