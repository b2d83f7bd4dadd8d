// The inverted residual fusion (MobileNet blocks as one InvertedResidual kernel) and the Gemm
// rewrite: where each applies, and that the fused graphs give the separate convolutions' results
// on random inputs of awkward sizes (odd channel counts, tiny and tall images, both strides,
// asymmetric padding, 3x3 and 5x5 windows, one and two threads).
#include <gtest/gtest.h>

#include <onnx/onnx_pb.h>

#include <cmath>

#include "backends/cpu/kernels/inverted_residual.h"
#include "backends/cpu/kernels/kernels.h"
#include "passes/pass_test_util.h"

namespace hi {
namespace {

using zoo::Attr;
using zoo::ElemType;
using zoo::GraphBuilder;

struct Block {
  int64_t n, h, w, cin, hidden, cout, kernel, stride;
  std::vector<int64_t> pads;  // the depthwise convolution's [top, left, bottom, right]
  bool expand, residual;
  std::vector<std::string> acts;  // expand, depthwise, project: "relu", "clip" or ""
  int threads = 0;
};

std::string activate(GraphBuilder& g, const std::string& scope, const std::string& x, const std::string& act) {
  if (act == "relu") return g.op("Relu", scope, {x});
  if (act == "clip") return g.clip(scope, x, 0.f, 6.f);
  return x;
}

// x [n, 3, h, w] -> stem Conv 3x3 + Relu (so the block reads a channels-last value) -> expand
// 1x1 -> depthwise -> project 1x1 [+ the stem's output].
std::string block_model(const Block& b) {
  GraphBuilder g("block", 13, 5);
  g.add_input("x", ElemType::kFloat, {{b.n, {}}, {3, {}}, {b.h, {}}, {b.w, {}}});
  const std::string stem =
      g.op("Relu", "/stem",
           {g.op("Conv", "/stem", {"x", weights(g, "ws", {b.cin, 3, 3, 3}), weights(g, "bs", {b.cin})},
                 {Attr::ints_of("pads", {1, 1, 1, 1})})});
  std::string e = stem;
  if (b.expand)
    e = activate(
        g, "/expand",
        g.op("Conv", "/expand", {stem, weights(g, "we", {b.hidden, b.cin, 1, 1}), weights(g, "be", {b.hidden})}),
        b.acts[0]);
  const std::string d = activate(
      g, "/dw",
      g.op("Conv", "/dw", {e, weights(g, "wd", {b.hidden, 1, b.kernel, b.kernel}), weights(g, "bd", {b.hidden})},
           {Attr::i("group", b.hidden), Attr::ints_of("strides", {b.stride, b.stride}), Attr::ints_of("pads", b.pads)}),
      b.acts[1]);
  std::string p = activate(
      g, "/project",
      g.op("Conv", "/project", {d, weights(g, "wp", {b.cout, b.hidden, 1, 1}), weights(g, "bp", {b.cout})}), b.acts[2]);
  if (b.residual) p = g.op("Add", "/res", {p, stem});
  g.add_output(g.op("Identity", "/out", {p}, {}, "y"), ElemType::kFloat, {});
  EXPECT_TRUE(g.finish("test").is_ok());
  return g.serialize().value();
}

bool kernel_available() { return cpu::fast_kernels_available() && cpu::inverted_residual_available(); }

// Largest |a - b| over the largest |b|.
double relative_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  if (a.shape() != b.shape()) return 1e30;
  double scale = 1e-6, worst = 0;
  for (int64_t i = 0; i < b.numel(); ++i) scale = std::max(scale, std::fabs(double(b.data<float>()[i])));
  for (int64_t i = 0; i < b.numel(); ++i)
    worst = std::max(worst, std::fabs(double(a.data<float>()[i]) - b.data<float>()[i]));
  return worst / scale;
}

Tensor run_y(const std::string& bytes, SessionOptions o, const Tensor& x) {
  o.devices = {"cpu"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  if (!s.is_ok()) return Tensor();
  auto r = s.value()->run({{"x", x}});
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value().at("y") : Tensor();
}

class InvertedResidualBlocks : public ::testing::TestWithParam<Block> {};

TEST_P(InvertedResidualBlocks, MatchTheSeparateConvolutions) {
  if (!kernel_available()) GTEST_SKIP() << "no fused inverted residual kernel here (needs oneDNN and AVX-512)";
  const Block& b = GetParam();
  const std::string bytes = block_model(b);
  std::multiset<std::string> ops;
  const auto report = optimise(bytes, &ops);
  EXPECT_EQ(report.at("fuse_inverted_residual"), 1);
  EXPECT_EQ(ops.count("InvertedResidual"), 1u);
  EXPECT_EQ(ops.count("FusedConv"), 1u);  // the stem alone
  const Tensor x = random_tensor({b.n, 3, b.h, b.w}, 11);
  SessionOptions fused, separate, reference;
  fused.threads = separate.threads = reference.threads = b.threads;
  separate.disabled_passes = {"fuse_inverted_residual"};
  reference.optimization_level = 0;
  const Tensor y = run_y(bytes, fused, x);
  EXPECT_LT(relative_difference(y, run_y(bytes, separate, x)), 2e-6);
  EXPECT_LT(relative_difference(y, run_y(bytes, reference, x)), 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Shapes, InvertedResidualBlocks,
                         ::testing::Values(
                             // MobileNetV2-like: residual, Relu6 twice, odd sizes and channels.
                             Block{2, 9, 11, 6, 20, 6, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}},
                             // Stride 2 over an odd height, channel counts that are no multiple of 16, all Relu.
                             Block{1, 13, 7, 5, 33, 17, 3, 2, {1, 1, 1, 1}, true, false, {"relu", "relu", "relu"}},
                             // No expansion (the depthwise convolution reads the stem), 5x5 window.
                             Block{3, 5, 6, 16, 16, 7, 5, 1, {2, 2, 2, 2}, false, false, {"", "clip", ""}},
                             // No expansion, channels that need padding to 16 lanes.
                             Block{1, 8, 9, 10, 10, 12, 3, 1, {1, 1, 1, 1}, false, false, {"", "relu", ""}},
                             // A 1x1 image, and a 2x3 one with stride 2.
                             Block{1, 1, 1, 4, 24, 4, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}},
                             Block{2, 2, 3, 4, 40, 9, 3, 2, {1, 1, 1, 1}, true, false, {"relu", "", ""}},
                             // Asymmetric padding (TensorFlow's SAME for stride 2) and none at all.
                             Block{1, 12, 10, 8, 48, 8, 3, 2, {0, 0, 1, 1}, true, false, {"clip", "clip", ""}},
                             Block{1, 10, 10, 8, 32, 8, 3, 1, {0, 0, 0, 0}, true, false, {"", "", ""}},
                             // Tall images: bands walked in several groups of rows (the overlap rows carried over).
                             Block{1, 120, 30, 8, 96, 8, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}},
                             Block{2, 121, 29, 8, 96, 24, 3, 2, {1, 1, 1, 1}, true, false, {"clip", "clip", ""}},
                             // Small images at batch 1 on several threads: the threads share the hidden channels
                             // (with and without expansion, a projection activation applied after the parts' sum).
                             Block{1, 7, 7, 16, 96, 16, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}, 2},
                             Block{
                                 1, 14, 14, 24, 144, 40, 3, 2, {1, 1, 1, 1}, true, false, {"relu", "relu", "relu"}, 3},
                             Block{1, 9, 9, 64, 64, 8, 3, 1, {1, 1, 1, 1}, false, false, {"", "clip", "relu"}, 2},
                             Block{1, 9, 9, 40, 40, 40, 3, 1, {1, 1, 1, 1}, false, true, {"", "clip", ""}, 2},
                             // One thread, and a batch that does not divide among two.
                             Block{3, 14, 14, 24, 144, 24, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}, 1},
                             Block{3, 14, 14, 24, 144, 24, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}, 2}));

TEST(InvertedResidualPass, LeavesBlocksWhoseValuesHaveOtherReaders) {
  if (!kernel_available()) GTEST_SKIP() << "no fused inverted residual kernel here (needs oneDNN and AVX-512)";
  // The depthwise output is also a graph output: nothing fuses.
  GraphBuilder g("shared", 13, 5);
  g.add_input("x", ElemType::kFloat, {{1, {}}, {8, {}}, {6, {}}, {6, {}}});
  const std::string stem = g.op("Conv", "/stem", {"x", weights(g, "ws", {8, 8, 1, 1})});
  const std::string d = g.op("Conv", "/dw", {stem, weights(g, "wd", {8, 1, 3, 3})},
                             {Attr::i("group", 8), Attr::ints_of("pads", {1, 1, 1, 1})}, "d");
  g.add_output(d, ElemType::kFloat, {});
  g.add_output(g.op("Conv", "/project", {d, weights(g, "wp", {4, 8, 1, 1})}, {}, "y"), ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  std::multiset<std::string> ops;
  EXPECT_EQ(optimise(g.serialize().value(), &ops).at("fuse_inverted_residual"), 0);
  EXPECT_EQ(ops.count("InvertedResidual"), 0u);
}

TEST(InvertedResidualPass, ExpansionReadTwiceStaysOutside) {
  if (!kernel_available()) GTEST_SKIP() << "no fused inverted residual kernel here (needs oneDNN and AVX-512)";
  // The expansion's output feeds the depthwise convolution and a second output: the block fuses
  // without it (the depthwise convolution reads the expansion's output).
  GraphBuilder g("expand_shared", 13, 5);
  g.add_input("x", ElemType::kFloat, {{1, {}}, {3, {}}, {7, {}}, {9, {}}});
  const std::string stem =
      g.op("Conv", "/stem", {"x", weights(g, "ws", {6, 3, 3, 3})}, {Attr::ints_of("pads", {1, 1, 1, 1})});
  const std::string e =
      g.op("Relu", "/expand", {g.op("Conv", "/expand", {stem, weights(g, "we", {18, 6, 1, 1})})}, {}, "e");
  const std::string d = g.op("Conv", "/dw", {e, weights(g, "wd", {18, 1, 3, 3})},
                             {Attr::i("group", 18), Attr::ints_of("pads", {1, 1, 1, 1})});
  g.add_output(e, ElemType::kFloat, {});
  g.add_output(g.op("Conv", "/project", {d, weights(g, "wp", {5, 18, 1, 1})}, {}, "y"), ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  const std::string bytes = g.serialize().value();
  std::multiset<std::string> ops;
  EXPECT_EQ(optimise(bytes, &ops).at("fuse_inverted_residual"), 1);
  EXPECT_EQ(ops.count("FusedConv"), 2u);  // the stem and the expansion
  const Tensor x = random_tensor({1, 3, 7, 9}, 5);
  SessionOptions reference;
  reference.optimization_level = 0;
  EXPECT_LT(relative_difference(run_y(bytes, {}, x), run_y(bytes, reference, x)), 1e-5);
}

// bf16 fuses the block too, its pointwise products in bfloat16: near float32, not equal to it.
TEST(InvertedResidualPass, Bf16FusesTheBlockWithBfloat16Products) {
  if (!cpu::inverted_residual_available()) GTEST_SKIP() << "no AVX-512: the block is not fused here";
  const Block b{1, 9, 9, 8, 24, 8, 3, 1, {1, 1, 1, 1}, true, true, {"clip", "clip", ""}};
  const std::string bytes = block_model(b);
  std::multiset<std::string> ops;
  EXPECT_EQ(optimise(bytes, &ops, 3, "bf16").at("fuse_inverted_residual"), 1);
  EXPECT_EQ(ops.count("InvertedResidual"), 1u);
  const Tensor x = random_tensor({1, 3, 9, 9}, 6);
  SessionOptions bf16;
  bf16.precision = "bf16";
  const double difference = relative_difference(run_y(bytes, bf16, x), run_y(bytes, {}, x));
  EXPECT_LT(difference, 2e-2);
  if (cpu::cpu_has_bf16()) {
    EXPECT_GT(difference, 1e-6) << "the products ran in float32";
  }
}

TEST(InvertedResidualOp, WrongWeightShapeIsAClearError) {
  if (!cpu::inverted_residual_available()) GTEST_SKIP() << "no AVX-512: the op has no kernel here";
  // A hand-written InvertedResidual whose projection weights do not fit the depthwise ones.
  GraphBuilder g("bad", 13, 5);
  g.add_input("x", ElemType::kFloat, {{1, {}}, {6, {}}, {6, {}}, {8, {}}});
  const std::string y = g.op("InvertedResidual", "/block",
                             {"x", "", "", weights(g, "wd", {8, 1, 3, 3}), "", weights(g, "wp", {4, 7, 1, 1})},
                             {Attr::ints_of("kernel_shape", {3, 3}), Attr::ints_of("pads", {1, 1, 1, 1})}, "y");
  g.add_output(y, ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  onnx::ModelProto model;
  ASSERT_TRUE(model.ParseFromString(g.serialize().value()));
  model.mutable_graph()->mutable_node(model.graph().node_size() - 1)->set_domain("com.hipinfer");
  auto* opset = model.add_opset_import();
  opset->set_domain("com.hipinfer");
  opset->set_version(1);
  const std::string bytes = model.SerializeAsString();
  SessionOptions o;
  o.devices = {"cpu"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  auto r = s.value()->run({{"x", random_tensor({1, 6, 6, 8}, 3)}});
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("project W is float32[4, 7, 1, 1], expected float32[4, 8, 1, 1]"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("/block"), std::string::npos) << r.status().message();
}

TEST(DisabledPasses, UnknownNameListsThePasses) {
  const Block b{1, 5, 5, 8, 16, 8, 3, 1, {1, 1, 1, 1}, true, false, {"", "", ""}};
  const std::string bytes = block_model(b);
  SessionOptions o;
  o.disabled_passes = {"fuse_everything"};
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().message().find("no graph pass is named 'fuse_everything'"), std::string::npos)
      << s.status().message();
  EXPECT_NE(s.status().message().find("fuse_inverted_residual"), std::string::npos) << s.status().message();
}

// Gemm(A, B^T, bias) -> Relu, as a CNN's classifier: rewritten into a FusedMatMul with B packed once.
TEST(GemmPass, ClassifierBecomesFusedMatMul) {
  for (const bool trans_b : {true, false}) {
    GraphBuilder g("classifier", 13, 5);
    g.add_input("x", ElemType::kFloat, {{3, {}}, {37, {}}});
    const std::string w = trans_b ? weights(g, "w", {19, 37}) : weights(g, "w", {37, 19});
    const std::string h = g.op("Gemm", "/fc", {"x", w, weights(g, "b", {19})}, {Attr::i("transB", trans_b ? 1 : 0)});
    g.add_output(g.op("Relu", "/relu", {h}, {}, "y"), ElemType::kFloat, {});
    ASSERT_TRUE(g.finish("test").is_ok());
    const std::string bytes = g.serialize().value();
    std::multiset<std::string> ops;
    EXPECT_EQ(optimise(bytes, &ops).at("fuse_gemm"), 1);
    EXPECT_EQ(ops.count("FusedMatMul"), 1u);
    EXPECT_EQ(ops.count("Relu"), 0u);
    const Tensor x = random_tensor({3, 37}, 9);
    SessionOptions reference;
    reference.optimization_level = 0;
    EXPECT_LT(relative_difference(run_y(bytes, {}, x), run_y(bytes, reference, x)), 1e-6) << trans_b;
  }
}

TEST(GemmPass, ScaledGemmStaysAGemm) {
  GraphBuilder g("scaled", 13, 5);
  g.add_input("x", ElemType::kFloat, {{3, {}}, {8, {}}});
  g.add_output(g.op("Gemm", "/fc", {"x", weights(g, "w", {8, 4}), weights(g, "b", {4})}, {Attr::f("alpha", 0.5f)}, "y"),
               ElemType::kFloat, {});
  ASSERT_TRUE(g.finish("test").is_ok());
  std::multiset<std::string> ops;
  EXPECT_EQ(optimise(g.serialize().value(), &ops).at("fuse_gemm"), 0);
  EXPECT_EQ(ops.count("Gemm"), 1u);
}

}  // namespace
}  // namespace hi
