// GPU reductions against the CPU Reduce* ops (opset 18, one axis, keepdims 0) over shapes that
// take both kernel paths: the last axis (a block per row) and an inner axis (a thread per output).
#include "backends/gpu/kernels/reduce.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

struct ReduceCase {
  const char* onnx_op;
  ReduceKind kind;
};

TEST(HI_GPU_TEST_SUITE, ReductionsMatchTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const std::vector<ReduceCase> ops = {
      {"ReduceSum", ReduceKind::kSum},       {"ReduceMean", ReduceKind::kMean},
      {"ReduceMax", ReduceKind::kMax},       {"ReduceMin", ReduceKind::kMin},
      {"ReduceProd", ReduceKind::kProd},     {"ReduceSumSquare", ReduceKind::kSumSquare},
      {"ReduceL1", ReduceKind::kL1},         {"ReduceL2", ReduceKind::kL2},
      {"ReduceLogSum", ReduceKind::kLogSum}, {"ReduceLogSumExp", ReduceKind::kLogSumExp}};
  const std::vector<std::pair<Shape, int64_t>> cases = {
      {{3, 5, 7}, 0}, {{3, 5, 7}, 1}, {{3, 5, 7}, 2}, {{2, 1000}, 1}, {{1, 1}, 0}, {{33, 257, 3}, 1}, {{4, 9001}, 1}};
  uint32_t seed = 300;
  for (const ReduceCase& c : ops)
    for (DType dtype : {DType::kFloat32, DType::kFloat16})
      for (const auto& [shape, axis] : cases) {
        ModelBuilder b(18);
        b.input("x", onnx_type(dtype), std::vector<int64_t>(shape.begin(), shape.end()));
        b.output("y", onnx_type(dtype));
        b.initializer_i64("axes", {1}, {axis});
        ModelBuilder::set_int(b.node(c.onnx_op, {"x", "axes"}, {"y"}), "keepdims", 0);
        Tensor x = random_tensor(dtype, shape, seed++, c.kind == ReduceKind::kLogSum);
        if (c.kind == ReduceKind::kProd)  // factors near 1: long products stay finite on both sides
          for (int64_t i = 0; i < x.numel(); ++i) {
            const float v = 1.f + 0.005f * static_cast<float>(x.as_double(i));
            if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(v);
            else x.data<float>()[i] = v;
          }
        const Tensor want = run_on_cpu(b, {{"x", x}});
        int64_t outer = 1, inner = 1;
        for (int64_t k = 0; k < axis; ++k) outer *= shape[static_cast<size_t>(k)];
        for (size_t k = static_cast<size_t>(axis) + 1; k < shape.size(); ++k) inner *= shape[k];
        const Tensor got = run_on_gpu({&x}, dtype, want.shape(), [&](const std::vector<void*>& in, void* y) {
          return reduce(c.kind, dtype, in[0], y, outer, shape[static_cast<size_t>(axis)], inner, nullptr);
        });
        // Sums of thousands of terms in another order: atol scaled by the row length.
        expect_close(want, got,
                     std::string(c.onnx_op) + " " + dtype_name(dtype) + " " + shape_to_string(shape) + " axis " +
                         std::to_string(axis),
                     1e-6 * static_cast<double>(shape[static_cast<size_t>(axis)]));
      }
}

TEST(HI_GPU_TEST_SUITE, ReduceRejectsBadArgumentsWithoutAGpu) {
  EXPECT_EQ(reduce(ReduceKind::kSum, DType::kFloat32, nullptr, nullptr, 1, -1, 1, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(reduce(ReduceKind::kSum, DType::kFloat32, nullptr, nullptr, 0, 4, 1, nullptr).is_ok());
  EXPECT_EQ(
      reduce(ReduceKind::kMax, DType::kInt8, reinterpret_cast<void*>(64), reinterpret_cast<void*>(64), 1, 2, 1, nullptr)
          .code(),
      StatusCode::kUnsupported);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
