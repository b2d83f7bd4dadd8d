// The GPU convolution against the CPU Conv op (followed by Add and an activation where the case
// fuses a residual and an activation): plain, depthwise, grouped 1x1, dilated with uneven pads,
// strided, the ResNet stem, float32 and float16.
#include "backends/gpu/kernels/conv.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

struct ConvCase {
  Shape x, w;
  int64_t group = 1;
  std::vector<int64_t> strides = {1, 1}, dilations = {1, 1}, pads = {0, 0, 0, 0};  // top, left, bottom, right
  bool bias = true, residual = false;
  const char* activation = nullptr;  // ONNX op after the Add, or none
  UnaryOp act = {};
};

void set_ints(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

TEST(HI_GPU_TEST_SUITE, Conv2dMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const std::vector<ConvCase> cases = {
      {{1, 3, 17, 19}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 8, 15, 15}, {8, 1, 3, 3}, 8, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, false, "Relu", {UnaryKind::kRelu}},
      {{2, 6, 9, 11}, {4, 3, 1, 1}, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}, false},
      {{1, 4, 12, 12}, {5, 4, 3, 3}, 1, {1, 1}, {2, 2}, {0, 1, 2, 1}},
      {{1, 16, 7, 7}, {32, 16, 5, 5}, 1, {1, 1}, {1, 1}, {2, 2, 2, 2}, true, true, "Relu", {UnaryKind::kRelu}},
      {{2, 5, 10, 8}, {6, 5, 2, 3}, 1, {3, 2}, {1, 1}, {1, 0, 0, 2}, true, true, "HardSwish", {UnaryKind::kHardSwish}},
      {{1, 3, 224, 224}, {64, 3, 7, 7}, 1, {2, 2}, {1, 1}, {3, 3, 3, 3}}};
  uint32_t seed = 800;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const ConvCase& c : cases) {
      const int64_t kh = c.w[2], kw = c.w[3];
      const int64_t oh = (c.x[2] + c.pads[0] + c.pads[2] - c.dilations[0] * (kh - 1) - 1) / c.strides[0] + 1;
      const int64_t ow = (c.x[3] + c.pads[1] + c.pads[3] - c.dilations[1] * (kw - 1) - 1) / c.strides[1] + 1;
      const Shape y_shape = {c.x[0], c.w[0], oh, ow};
      ModelBuilder b(14);
      b.input("x", onnx_type(dtype), std::vector<int64_t>(c.x.begin(), c.x.end()));
      b.input("w", onnx_type(dtype), std::vector<int64_t>(c.w.begin(), c.w.end()));
      std::vector<std::string> conv_in = {"x", "w"};
      if (c.bias) {
        b.input("b", onnx_type(dtype), {c.w[0]});
        conv_in.push_back("b");
      }
      if (c.residual) b.input("r", onnx_type(dtype), std::vector<int64_t>(y_shape.begin(), y_shape.end()));
      b.output("y", onnx_type(dtype));
      std::string last = c.residual || c.activation ? "conv" : "y";
      auto& conv = b.node("Conv", conv_in, {last});
      ModelBuilder::set_int(conv, "group", c.group);
      set_ints(conv, "strides", c.strides);
      set_ints(conv, "dilations", c.dilations);
      set_ints(conv, "pads", c.pads);
      if (c.residual) {
        const std::string out = c.activation ? "sum" : "y";
        b.node("Add", {last, "r"}, {out});
        last = out;
      }
      if (c.activation) b.node(c.activation, {last}, {"y"});
      const Tensor x = random_tensor(dtype, c.x, seed++, false), w = random_tensor(dtype, c.w, seed++, false);
      const Tensor bias = random_tensor(dtype, {c.w[0]}, seed++, false), r = random_tensor(dtype, y_shape, seed++, false);
      TensorMap feeds = {{"x", x}, {"w", w}};
      if (c.bias) feeds["b"] = bias;
      if (c.residual) feeds["r"] = r;
      const Tensor want = run_on_cpu(b, feeds);
      Conv2dDesc d;
      d.batch = c.x[0];
      d.in_channels = c.x[1];
      d.in_h = c.x[2];
      d.in_w = c.x[3];
      d.out_channels = c.w[0];
      d.out_h = oh;
      d.out_w = ow;
      d.groups = c.group;
      d.kernel_h = kh;
      d.kernel_w = kw;
      d.stride_h = c.strides[0];
      d.stride_w = c.strides[1];
      d.dilation_h = c.dilations[0];
      d.dilation_w = c.dilations[1];
      d.pad_top = c.pads[0];
      d.pad_left = c.pads[1];
      d.has_activation = c.activation != nullptr;
      d.activation = c.act;
      const Tensor got = run_on_gpu({&x, &w, &bias, &r}, dtype, y_shape, [&](const std::vector<void*>& in, void* y) {
        return conv2d(dtype, d, in[0], in[1], c.bias ? in[2] : nullptr, c.residual ? in[3] : nullptr, y, nullptr);
      });
      const int64_t k = c.w[1] * kh * kw;
      expect_close(want, got, std::string("Conv ") + dtype_name(dtype) + " x " + shape_to_string(c.x) + " w " +
                                  shape_to_string(c.w), 1e-6 * static_cast<double>(k));
    }
}

TEST(HI_GPU_TEST_SUITE, Conv2dRejectsBadGeometryWithoutAGpu) {
  Conv2dDesc d;
  d.batch = 1;
  d.in_channels = 6;
  d.out_channels = 4;
  d.groups = 4;  // 6 input channels do not divide into 4 groups
  d.in_h = d.in_w = d.out_h = d.out_w = 3;
  const Status s = conv2d(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("do not divide into 4 groups"), std::string::npos) << s.message();
  d.groups = 0;
  EXPECT_EQ(conv2d(DType::kFloat32, d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
