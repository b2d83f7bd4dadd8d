// GPU softmax, log-softmax and LayerNorm row kernels against the CPU reference ops (Softmax,
// LogSoftmax opset 13 and LayerNormalization opset 17 over the last axis) on awkward shapes: one
// element, rows shorter and longer than a block, a block plus one, many short rows.
#include "backends/gpu/kernels/rows.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::vector<Shape>& row_shapes() {
  static const std::vector<Shape> shapes = {{1, 1}, {3, 7}, {5, 1000}, {2, 3, 257}, {1000, 64}, {2, 9001}};
  return shapes;
}

int64_t cols_of(const Shape& s) { return s.back(); }
int64_t rows_of(const Shape& s) {
  int64_t r = 1;
  for (size_t i = 0; i + 1 < s.size(); ++i) r *= s[i];
  return r;
}

TEST(HI_GPU_TEST_SUITE, SoftmaxRowsMatchTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  uint32_t seed = 7;
  for (bool log : {false, true})
    for (DType dtype : {DType::kFloat32, DType::kFloat16})
      for (const Shape& shape : row_shapes()) {
        ModelBuilder b(13);
        b.input("x", onnx_type(dtype), std::vector<int64_t>(shape.begin(), shape.end()));
        b.output("y", onnx_type(dtype));
        b.node(log ? "LogSoftmax" : "Softmax", {"x"}, {"y"});
        const Tensor x = random_tensor(dtype, shape, seed++, false);
        const Tensor want = run_on_cpu(b, {{"x", x}});
        const Tensor got = run_on_gpu({&x}, dtype, shape, [&](const std::vector<void*>& in, void* y) {
          return softmax_rows(dtype, in[0], y, rows_of(shape), cols_of(shape), log, nullptr);
        });
        expect_close(want, got,
                     std::string(log ? "LogSoftmax " : "Softmax ") + dtype_name(dtype) + " " +
                         std::to_string(rows_of(shape)) + "x" + std::to_string(cols_of(shape)));
      }
}

TEST(HI_GPU_TEST_SUITE, LayerNormRowsMatchTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  uint32_t seed = 70;
  for (bool with_bias : {true, false})
    for (DType dtype : {DType::kFloat32, DType::kFloat16})
      for (const Shape& shape : row_shapes()) {
        const int64_t cols = cols_of(shape);
        ModelBuilder b(17);
        b.input("x", onnx_type(dtype), std::vector<int64_t>(shape.begin(), shape.end()));
        b.input("scale", onnx_type(dtype), {cols});
        if (with_bias) b.input("bias", onnx_type(dtype), {cols});
        b.output("y", onnx_type(dtype));
        auto& node = b.node(
            "LayerNormalization",
            with_bias ? std::vector<std::string>{"x", "scale", "bias"} : std::vector<std::string>{"x", "scale"}, {"y"});
        ModelBuilder::set_float(node, "epsilon", 1e-5f);
        // Rows with a common offset of 4x their spread: a one-pass E[x^2] - E[x]^2 would lose
        // digits the two-pass variance keeps.
        Tensor x = random_tensor(dtype, shape, seed++, false);
        if (dtype == DType::kFloat32)
          for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] += 8.f;
        const Tensor scale = random_tensor(dtype, {cols}, seed++, false);
        const Tensor bias = random_tensor(dtype, {cols}, seed++, false);
        TensorMap feeds = {{"x", x}, {"scale", scale}};
        if (with_bias) feeds["bias"] = bias;
        const Tensor want = run_on_cpu(b, feeds);
        const Tensor got = run_on_gpu({&x, &scale, &bias}, dtype, shape, [&](const std::vector<void*>& in, void* y) {
          return layer_norm_rows(dtype, in[0], in[1], with_bias ? in[2] : nullptr, y, rows_of(shape), cols, 1e-5f,
                                 nullptr);
        });
        // atol 1e-5: the row mean is summed in another order on each side, and outputs near zero
        // are differences of O(1) terms.
        expect_close(want, got,
                     std::string("LayerNormalization ") + dtype_name(dtype) + " " + std::to_string(rows_of(shape)) +
                         "x" + std::to_string(cols),
                     1e-5);
      }
}

TEST(HI_GPU_TEST_SUITE, RowKernelsRejectBadArgumentsWithoutAGpu) {
  EXPECT_EQ(softmax_rows(DType::kFloat32, nullptr, nullptr, -1, 4, false, nullptr).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(softmax_rows(DType::kFloat32, nullptr, nullptr, 0, 4, false, nullptr).is_ok());
  EXPECT_EQ(layer_norm_rows(DType::kFloat32, nullptr, nullptr, nullptr, nullptr, 2, -3, 1e-5f, nullptr).code(),
            StatusCode::kInvalidArgument);
  const Status s = layer_norm_rows(DType::kFloat64, reinterpret_cast<void*>(64), reinterpret_cast<void*>(64), nullptr,
                                   reinterpret_cast<void*>(64), 2, 3, 1e-5f, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("float64"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
