// The GPU convolution against the CPU Conv op (followed by Add and an activation where the case
// fuses a residual and an activation): plain, depthwise, grouped 1x1, dilated with uneven pads,
// strided, the ResNet stem, float32 and float16; and the float16 matrix-core kernel against the
// tiled kernel and the CPU on those and on channel counts that straddle the 64 x 64 x 32 tile.
#include <cstring>

#include "backends/gpu/kernels/conv.h"
#include "backends/gpu/matrix_cores.h"
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

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {{1, 3, 17, 19}, {8, 3, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}},
      {{2, 8, 15, 15}, {8, 1, 3, 3}, 8, {2, 2}, {1, 1}, {1, 1, 1, 1}, true, false, "Relu", {UnaryKind::kRelu}},
      {{2, 6, 9, 11}, {4, 3, 1, 1}, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}, false},
      {{1, 4, 12, 12}, {5, 4, 3, 3}, 1, {1, 1}, {2, 2}, {0, 1, 2, 1}},
      {{1, 16, 7, 7}, {32, 16, 5, 5}, 1, {1, 1}, {1, 1}, {2, 2, 2, 2}, true, true, "Relu", {UnaryKind::kRelu}},
      {{2, 5, 10, 8}, {6, 5, 2, 3}, 1, {3, 2}, {1, 1}, {1, 0, 0, 2}, true, true, "HardSwish", {UnaryKind::kHardSwish}},
      {{1, 3, 224, 224}, {64, 3, 7, 7}, 1, {2, 2}, {1, 1}, {3, 3, 3, 3}}};
  return cases;
}

// One case ready to run: inputs, the CPU's result and the descriptor.
struct PreparedConv {
  std::string what;
  Tensor x, w, bias, r, want;
  Conv2dDesc d;
  bool has_bias = false, has_residual = false;
  int64_t k = 0;  // products per output element: input channels per group x kernel area
};

Tensor widen_to_float32(const Tensor& t) {
  Tensor out = Tensor::empty(DType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) out.data<float>()[i] = static_cast<float>(t.as_double(i));
  return out;
}

PreparedConv prepare_conv(const ConvCase& c, DType dtype, uint32_t& seed) {
  const int64_t kh = c.w[2], kw = c.w[3];
  const int64_t oh = (c.x[2] + c.pads[0] + c.pads[2] - c.dilations[0] * (kh - 1) - 1) / c.strides[0] + 1;
  const int64_t ow = (c.x[3] + c.pads[1] + c.pads[3] - c.dilations[1] * (kw - 1) - 1) / c.strides[1] + 1;
  const Shape y_shape = {c.x[0], c.w[0], oh, ow};
  const ModelBuilder b =
      conv_model(dtype, c.x, c.w, c.group, c.strides, c.dilations, c.pads, c.bias, c.residual, c.activation, y_shape);
  PreparedConv p;
  p.what = std::string("Conv ") + dtype_name(dtype) + " x " + shape_to_string(c.x) + " w " + shape_to_string(c.w) +
           " group " + std::to_string(c.group);
  p.x = random_tensor(dtype, c.x, seed++, false);
  p.w = random_tensor(dtype, c.w, seed++, false);
  p.bias = random_tensor(dtype, {c.w[0]}, seed++, false);
  p.r = random_tensor(dtype, y_shape, seed++, false);
  p.has_bias = c.bias;
  p.has_residual = c.residual;
  TensorMap feeds = {{"x", p.x}, {"w", p.w}};
  if (c.bias) feeds["b"] = p.bias;
  if (c.residual) feeds["r"] = p.r;
  p.want = run_on_cpu(b, feeds);
  if (dtype == DType::kFloat16 && (c.residual || c.activation)) {
    // The CPU graph rounds the convolution to float16 before the Add and the activation, where the
    // kernels round once at the end: with a residual that cancels, the two differ by many ulps.
    // So the reference is the float32 graph on the same (exactly widened) values, rounded once.
    const ModelBuilder b32 = conv_model(DType::kFloat32, c.x, c.w, c.group, c.strides, c.dilations, c.pads, c.bias,
                                        c.residual, c.activation, y_shape);
    TensorMap feeds32;
    for (const auto& [name, t] : feeds) feeds32[name] = widen_to_float32(t);
    const Tensor want32 = run_on_cpu(b32, feeds32);
    p.want = Tensor::empty(DType::kFloat16, want32.shape());
    for (int64_t i = 0; i < want32.numel(); ++i) p.want.data<Float16>()[i] = Float16(want32.data<float>()[i]);
  }
  Conv2dDesc& d = p.d;
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
  p.k = c.w[1] * kh * kw;
  return p;
}

// Runs `kernel` (conv2d or one of its two kernels) on the case.
template <typename Kernel>
Tensor run_conv(const PreparedConv& p, DType dtype, Kernel kernel) {
  return run_on_gpu({&p.x, &p.w, &p.bias, &p.r}, dtype, p.want.shape(), [&](const std::vector<void*>& in, void* y) {
    return kernel(dtype, p.d, in[0], in[1], p.has_bias ? in[2] : nullptr, p.has_residual ? in[3] : nullptr, y, nullptr);
  });
}

// For every output element, the sum of |w| |x| over its window (padding contributes nothing).
std::vector<double> abs_conv(const PreparedConv& p) {
  const Conv2dDesc& d = p.d;
  const int64_t ocg = d.out_channels / d.groups, icg = d.in_channels / d.groups;
  std::vector<double> out(static_cast<size_t>(p.want.numel()), 0.0);
  size_t at = 0;
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t oc = 0; oc < d.out_channels; ++oc)
      for (int64_t oh = 0; oh < d.out_h; ++oh)
        for (int64_t ow = 0; ow < d.out_w; ++ow, ++at) {
          const int64_t g = oc / ocg;
          double s = 0;
          for (int64_t c = 0; c < icg; ++c)
            for (int64_t kr = 0; kr < d.kernel_h; ++kr)
              for (int64_t kc = 0; kc < d.kernel_w; ++kc) {
                const int64_t ih = oh * d.stride_h - d.pad_top + kr * d.dilation_h;
                const int64_t iw = ow * d.stride_w - d.pad_left + kc * d.dilation_w;
                if (ih < 0 || ih >= d.in_h || iw < 0 || iw >= d.in_w) continue;
                s += std::fabs(p.w.as_double(((oc * icg + c) * d.kernel_h + kr) * d.kernel_w + kc)) *
                     std::fabs(p.x.as_double(((n * d.in_channels + g * icg + c) * d.in_h + ih) * d.in_w + iw));
              }
          out[at] = s;
        }
  return out;
}

// float16 within the accumulation allowance of expect_close_f16_sums, scaled by 2 for an
// activation (HardSwish's slope is at most 1.5); float32 as expect_close.
void expect_close_conv(const PreparedConv& p, const Tensor& want, const Tensor& got, const std::vector<double>* abs,
                       const std::string& what) {
  if (want.dtype() == DType::kFloat16)
    expect_close_f16_sums(want, got, *abs, p.d.has_activation ? 2.0 : 1.0, p.k, what);
  else expect_close(want, got, what, 1e-6 * static_cast<double>(p.k));
}

// The descriptor's contract (conv.h) computed on the host in double and rounded once; with
// abs_conv's sums alongside.
Tensor host_conv(const PreparedConv& p) {
  const Conv2dDesc& d = p.d;
  const int64_t ocg = d.out_channels / d.groups, icg = d.in_channels / d.groups;
  Tensor y = Tensor::empty(p.want.dtype(), p.want.shape());
  int64_t at = 0;
  for (int64_t n = 0; n < d.batch; ++n)
    for (int64_t oc = 0; oc < d.out_channels; ++oc)
      for (int64_t oh = 0; oh < d.out_h; ++oh)
        for (int64_t ow = 0; ow < d.out_w; ++ow, ++at) {
          const int64_t g = oc / ocg;
          double s = p.has_bias ? p.bias.as_double(oc) : 0.0;
          for (int64_t c = 0; c < icg; ++c)
            for (int64_t kr = 0; kr < d.kernel_h; ++kr)
              for (int64_t kc = 0; kc < d.kernel_w; ++kc) {
                const int64_t ih = oh * d.stride_h - d.pad_top + kr * d.dilation_h;
                const int64_t iw = ow * d.stride_w - d.pad_left + kc * d.dilation_w;
                if (ih < 0 || ih >= d.in_h || iw < 0 || iw >= d.in_w) continue;
                s += p.w.as_double(((oc * icg + c) * d.kernel_h + kr) * d.kernel_w + kc) *
                     p.x.as_double(((n * d.in_channels + g * icg + c) * d.in_h + ih) * d.in_w + iw);
              }
          if (p.has_residual) s += p.r.as_double(at);
          if (d.has_activation && d.activation.kind == UnaryKind::kRelu) s = std::max(s, 0.0);
          if (d.has_activation && d.activation.kind == UnaryKind::kHardSwish) s = s * std::clamp(s / 6 + 0.5, 0.0, 1.0);
          if (y.dtype() == DType::kFloat16) y.data<Float16>()[at] = Float16(static_cast<float>(s));
          else y.data<float>()[at] = static_cast<float>(s);
        }
  return y;
}

// Without a GPU: the cases' descriptors say what the CPU ops compute, so a failure of a device
// test is the kernel's, not the test's.
TEST(HI_GPU_TEST_SUITE, ConvDescriptorsMatchTheCpuOpsWithoutAGpu) {
  uint32_t seed = 1000;
  for (const ConvCase& c : conv_cases()) {
    if (c.activation && c.act.kind != UnaryKind::kRelu && c.act.kind != UnaryKind::kHardSwish) continue;
    const PreparedConv p = prepare_conv(c, DType::kFloat16, seed);
    const std::vector<double> abs = abs_conv(p);
    expect_close_conv(p, p.want, host_conv(p), &abs, p.what + ": host loop against the CPU op");
  }
}

TEST(HI_GPU_TEST_SUITE, Conv2dMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  uint32_t seed = 800;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const ConvCase& c : conv_cases()) {
      const PreparedConv p = prepare_conv(c, dtype, seed);
      const Tensor got = run_conv(p, dtype, &conv2d);
      const std::vector<double> abs = dtype == DType::kFloat16 ? abs_conv(p) : std::vector<double>();
      expect_close_conv(p, p.want, got, &abs, p.what);
    }
}

TEST(HI_GPU_TEST_SUITE, MatrixCoreConv2dMatchesTheTiledKernelAndTheCpu) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  if (!has_f16_matrix_cores(0)) {
    Conv2dDesc d;
    d.batch = d.in_channels = d.out_channels = d.in_h = d.in_w = d.out_h = d.out_w = 1;
    void* ptr = reinterpret_cast<void*>(64);  // refused before any launch
    EXPECT_EQ(conv2d_matrix_cores(DType::kFloat16, d, ptr, ptr, nullptr, nullptr, ptr, nullptr).code(),
              StatusCode::kUnsupported);
    GTEST_SKIP() << "device 0 has no float16 matrix cores: conv2d() keeps float16 on the tiled kernel";
  }
  std::vector<ConvCase> cases = conv_cases();
  // Channel counts and k = channels x kernel area on either side of the 64 x 64 x 32 tile.
  cases.push_back({{1, 65, 5, 7}, {129, 65, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}});
  cases.push_back({{3, 7, 6, 5}, {33, 7, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}, true, true});
  cases.push_back(
      {{1, 12, 9, 9}, {18, 4, 3, 3}, 3, {2, 1}, {1, 2}, {1, 2, 0, 2}, false, false, "Relu", {UnaryKind::kRelu}});
  uint32_t seed = 900;
  const DType f16 = DType::kFloat16;
  for (const ConvCase& c : cases) {
    const PreparedConv p = prepare_conv(c, f16, seed);
    const Tensor mma = run_conv(p, f16, &conv2d_matrix_cores), tiled = run_conv(p, f16, &conv2d_tiled),
                 chosen = run_conv(p, f16, &conv2d);
    const std::vector<double> abs = abs_conv(p);
    expect_close_conv(p, p.want, mma, &abs, p.what + ": matrix cores against the CPU");
    expect_close_conv(p, tiled, mma, &abs, p.what + ": matrix cores against the tiled kernel");
    EXPECT_EQ(std::memcmp(chosen.raw(), mma.raw(), mma.nbytes()), 0)
        << p.what << ": conv2d() did not take the matrix cores";
  }
}

TEST(HI_GPU_TEST_SUITE, MatrixCoreConv2dRefusesFloat32WithoutAGpu) {
  Conv2dDesc d;
  d.batch = d.in_channels = d.out_channels = d.in_h = d.in_w = d.out_h = d.out_w = 1;
  void* ptr = reinterpret_cast<void*>(64);  // never dereferenced: refused before any launch
  EXPECT_EQ(conv2d_matrix_cores(DType::kFloat32, d, ptr, ptr, nullptr, nullptr, ptr, nullptr).code(),
            StatusCode::kUnsupported);
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
