// GPU elementwise kernels against the CPU reference: each case runs the ONNX op through a CPU
// session (the op's reference kernel) and the GPU kernel on the same random data, over awkward
// sizes (1, odd, a block plus one, over a million) and broadcasting shapes, in float32 and
// float16 (tolerances: expect_close in kernel_harness.h). Compiled once per backend; the device cases skip without a
// GPU, the host-side index checks always run.
#include "backends/gpu/kernels/elementwise.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

struct UnaryCase {
  const char* onnx_op;
  UnaryOp op;
  bool positive_input = false;
  int64_t opset = 17;
  std::vector<std::pair<const char*, float>> attrs = {};
};

std::vector<UnaryCase> unary_cases() {
  using K = UnaryKind;
  return {
      {"Relu", {K::kRelu}},
      {"LeakyRelu", {K::kLeakyRelu, 0.13f}, false, 17, {{"alpha", 0.13f}}},
      {"Sigmoid", {K::kSigmoid}},
      {"Tanh", {K::kTanh}},
      {"Exp", {K::kExp}},
      {"Log", {K::kLog}, true},
      {"Sqrt", {K::kSqrt}, true},
      {"Reciprocal", {K::kReciprocal}, true},
      {"Neg", {K::kNeg}},
      {"Abs", {K::kAbs}},
      {"Erf", {K::kErf}},
      {"Gelu", {K::kGelu}, false, 20},
      {"Clip", {K::kClip, -0.5f, 1.25f}, false, 6, {{"min", -0.5f}, {"max", 1.25f}}},
      {"HardSigmoid", {K::kHardSigmoid, 0.3f, 0.4f}, false, 17, {{"alpha", 0.3f}, {"beta", 0.4f}}},
      {"HardSwish", {K::kHardSwish}},
      {"Softplus", {K::kSoftplus}},
      {"Elu", {K::kElu, 0.7f}, false, 17, {{"alpha", 0.7f}}},
      {"Selu", {K::kSelu, 1.6732632f, 1.0507009f}, false, 17, {{"alpha", 1.6732632f}, {"gamma", 1.0507009f}}},
  };
}

TEST(HI_GPU_TEST_SUITE, UnaryKernelsMatchTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  uint32_t seed = 1;
  for (const UnaryCase& c : unary_cases())
    for (DType dtype : {DType::kFloat32, DType::kFloat16})
      for (int64_t n : {int64_t{1}, int64_t{7}, int64_t{257}, int64_t{1000003}}) {
        ModelBuilder b(c.opset);
        b.input("x", onnx_type(dtype), {n});
        b.output("y", onnx_type(dtype));
        auto& node = b.node(c.onnx_op, {"x"}, {"y"});
        for (const auto& [name, value] : c.attrs) ModelBuilder::set_float(node, name, value);
        const Tensor x = random_tensor(dtype, {n}, seed++, c.positive_input);
        const Tensor want = run_on_cpu(b, {{"x", x}});
        const Tensor got = run_on_gpu({&x}, dtype, {n}, [&](const std::vector<void*>& in, void* y) {
          return unary(c.op, dtype, in[0], y, n, nullptr);
        });
        expect_close(want, got, std::string(c.onnx_op) + " " + dtype_name(dtype) + "[" + std::to_string(n) + "]");
      }
}

struct BinaryCase {
  const char* onnx_op;
  BinaryKind kind;
};

TEST(HI_GPU_TEST_SUITE, BinaryKernelsMatchTheCpuReferenceWithBroadcasting) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const std::vector<BinaryCase> ops = {{"Add", BinaryKind::kAdd}, {"Sub", BinaryKind::kSub}, {"Mul", BinaryKind::kMul},
                                       {"Div", BinaryKind::kDiv}, {"Max", BinaryKind::kMax}, {"Min", BinaryKind::kMin},
                                       {"Pow", BinaryKind::kPow}};
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{3, 5, 7}, {3, 5, 7}}, {{2, 1, 5}, {3, 1}},  {{1}, {4, 33}}, {{6, 1, 1, 3}, {5, 4, 1}},
      {{0, 3}, {3}},          {{1000, 257}, {257}}, {{}, {17}},     {{2, 3, 1, 1, 1, 1, 1, 2}, {1, 2}}};
  uint32_t seed = 100;
  for (const BinaryCase& c : ops)
    for (DType dtype : {DType::kFloat32, DType::kFloat16})
      for (const auto& [sa, sb] : shapes) {
        auto index = make_broadcast_index(sa, sb);
        ASSERT_TRUE(index.is_ok()) << index.status().to_string();
        Shape out(index.value().dims, index.value().dims + index.value().rank);
        ModelBuilder b(17);
        b.input("a", onnx_type(dtype), std::vector<int64_t>(sa.begin(), sa.end()));
        b.input("b", onnx_type(dtype), std::vector<int64_t>(sb.begin(), sb.end()));
        b.output("y", onnx_type(dtype));
        b.node(c.onnx_op, {"a", "b"}, {"y"});
        // Pow on a positive base keeps the results real.
        const bool pow = c.kind == BinaryKind::kPow;
        const Tensor a = random_tensor(dtype, sa, seed++, pow);
        Tensor bt = random_tensor(dtype, sb, seed++, false);
        if (c.kind == BinaryKind::kDiv)  // keep divisors away from zero
          for (int64_t i = 0; i < bt.numel(); ++i) {
            const double v = bt.as_double(i);
            const float safe = static_cast<float>(v >= 0 ? v + 0.5 : v - 0.5);
            if (dtype == DType::kFloat16) bt.data<Float16>()[i] = Float16(safe);
            else bt.data<float>()[i] = safe;
          }
        const Tensor want = run_on_cpu(b, {{"a", a}, {"b", bt}});
        const Tensor got = run_on_gpu({&a, &bt}, dtype, out, [&](const std::vector<void*>& in, void* y) {
          return binary(c.kind, dtype, in[0], in[1], y, index.value(), nullptr);
        });
        expect_close(want, got, std::string(c.onnx_op) + " " + dtype_name(dtype));
      }
}

// Host side: these run in every build, GPU or not.
TEST(HI_GPU_TEST_SUITE, BroadcastIndexFollowsNumpyRules) {
  auto r = make_broadcast_index({2, 1, 5}, {3, 1});
  ASSERT_TRUE(r.is_ok());
  const BroadcastIndex& i = r.value();
  EXPECT_EQ(i.rank, 3);
  EXPECT_EQ(i.numel, 30);
  EXPECT_FALSE(i.same_shape);
  EXPECT_EQ((std::vector<int64_t>(i.dims, i.dims + 3)), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ((std::vector<int64_t>(i.a_strides, i.a_strides + 3)), (std::vector<int64_t>{5, 0, 1}));
  EXPECT_EQ((std::vector<int64_t>(i.b_strides, i.b_strides + 3)), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_TRUE(make_broadcast_index({4, 4}, {4, 4}).value().same_shape);
  EXPECT_EQ(make_broadcast_index({}, {}).value().numel, 1);

  auto bad = make_broadcast_index({2, 3}, {4});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("shapes [2, 3] and [4] do not broadcast: dim 1 is 3 against 4"),
            std::string::npos)
      << bad.status().message();
  auto deep = make_broadcast_index(Shape(9, 1), {1});
  EXPECT_EQ(deep.status().code(), StatusCode::kUnsupported);
}

TEST(HI_GPU_TEST_SUITE, ElementwiseRejectsBadArgumentsWithoutAGpu) {
  EXPECT_EQ(unary({UnaryKind::kRelu}, DType::kFloat32, nullptr, nullptr, -1, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(unary({UnaryKind::kRelu}, DType::kFloat32, nullptr, nullptr, 0, nullptr).is_ok());
  const Status s =
      unary({UnaryKind::kRelu}, DType::kInt32, reinterpret_cast<void*>(16), reinterpret_cast<void*>(16), 4, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("int32"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
