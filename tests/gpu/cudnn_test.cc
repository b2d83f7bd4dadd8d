// cuDNN (CUDA backend only): the library loads or says why not; what it cannot do comes back as
// kUnsupported (both without a GPU); on a GPU, cudnn_conv2d against the own kernel (conv2d) and
// the CPU Conv op (followed by Add and an activation where the case has a residual and one) on
// awkward shapes, and inside a graph capture.
#include "backends/gpu/cuda_libs/cudnn.h"

#include <cmath>
#include <cstdio>

#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

Conv2dDesc geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t k, int64_t kernel, int64_t stride,
                    int64_t dilation, int64_t pad) {
  Conv2dDesc d;
  d.batch = n;
  d.in_channels = c;
  d.in_h = h;
  d.in_w = w;
  d.out_channels = k;
  d.kernel_h = d.kernel_w = kernel;
  d.stride_h = d.stride_w = stride;
  d.dilation_h = d.dilation_w = dilation;
  d.pad_top = d.pad_left = pad;
  d.out_h = (h + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
  d.out_w = (w + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
  return d;
}

void* fake(uintptr_t p) { return reinterpret_cast<void*>(p); }

TEST(HI_GPU_TEST_SUITE, CudnnLoadsOrSaysWhyNot) {
  const VendorLibrary& lib = cudnn_library();
  if (lib.available) {
    EXPECT_EQ(lib.version.rfind("cuDNN 9.", 0), 0u) << lib.version;
    EXPECT_TRUE(lib.reason.empty()) << lib.reason;
  } else {
    EXPECT_FALSE(lib.reason.empty());
  }
  EXPECT_EQ(&cudnn_library(), &lib);  // loaded once
  std::printf("cuDNN: %s\n", lib.available ? lib.version.c_str() : lib.reason.c_str());
}

// Everything here is refused before any device call, so it runs without a GPU.
TEST(HI_GPU_TEST_SUITE, CudnnSaysUnsupportedRatherThanCrashing) {
  const bool available = cudnn_library().available;
  const auto code = [](DType dtype, const Conv2dDesc& d) {
    const Status s = cudnn_conv2d(dtype, d, fake(256), fake(256), nullptr, nullptr, fake(256), nullptr, 0, nullptr);
    const auto ws = cudnn_conv2d_workspace(dtype, d);
    EXPECT_EQ(s.code(), ws.status().code()) << s.to_string() << " / " << ws.status().to_string();
    EXPECT_FALSE(s.message().empty());
    return s.code();
  };
  // Not float32 or float16.
  EXPECT_EQ(code(DType::kInt32, geometry(1, 3, 8, 8, 4, 3, 1, 1, 1)), StatusCode::kUnsupported);
  EXPECT_EQ(code(DType::kFloat64, geometry(1, 3, 8, 8, 4, 3, 1, 1, 1)), StatusCode::kUnsupported);
  // Pads unlike on the two sides: top 0 with an output that needs a bottom pad of 1 (SAME_UPPER
  // with an even kernel), and top 1 with an output that has no bottom pad.
  Conv2dDesc upper = geometry(1, 3, 8, 8, 4, 2, 1, 1, 0);
  upper.out_h = upper.out_w = 8;
  EXPECT_EQ(code(DType::kFloat32, upper), StatusCode::kUnsupported);
  Conv2dDesc top_only = geometry(1, 3, 8, 8, 4, 3, 1, 1, 1);
  top_only.out_h = 7;
  EXPECT_EQ(code(DType::kFloat32, top_only), StatusCode::kUnsupported);
  // Beyond cuDNN's ints.
  Conv2dDesc huge = geometry(1, 3, 8, 8, 4, 1, 1, 1, 0);
  huge.in_w = huge.out_w = int64_t{1} << 33;
  EXPECT_EQ(code(DType::kFloat32, huge), StatusCode::kUnsupported);
  Conv2dDesc many = geometry(1, 3, 8, 8, 4, 1, 1, 1, 0);
  many.batch = int64_t{1} << 28;  // 2^28 * 4 * 64 outputs
  EXPECT_EQ(code(DType::kFloat16, many), StatusCode::kUnsupported);
  // Invalid geometry is the caller's error, as for conv2d() (once the library is there to ask).
  Conv2dDesc groups = geometry(1, 6, 8, 8, 4, 3, 1, 1, 1);
  groups.groups = 4;
  EXPECT_EQ(code(DType::kFloat32, groups), available ? StatusCode::kInvalidArgument : StatusCode::kUnsupported);
  // Buffers cuDNN's vectorised kernels may not take.
  const Conv2dDesc plain = geometry(1, 3, 8, 8, 4, 3, 1, 1, 1);
  if (available) {
    const Status s =
        cudnn_conv2d(DType::kFloat32, plain, fake(258), fake(256), nullptr, nullptr, fake(256), nullptr, 0, nullptr);
    EXPECT_EQ(s.code(), StatusCode::kUnsupported) << s.to_string();
    EXPECT_EQ(cudnn_conv2d(DType::kFloat32, plain, nullptr, fake(256), nullptr, nullptr, fake(256), nullptr, 0, nullptr)
                  .code(),
              StatusCode::kInvalidArgument);
    // An empty output is nothing to do.
    Conv2dDesc none = plain;
    none.batch = 0;
    EXPECT_TRUE(
        cudnn_conv2d(DType::kFloat32, none, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr).is_ok());
    auto ws = cudnn_conv2d_workspace(DType::kFloat32, none);
    ASSERT_TRUE(ws.is_ok()) << ws.status().to_string();
    EXPECT_EQ(ws.value(), 0u);
  }
  // A supported geometry without a device fails cleanly (with one, it is checked below).
  if (!no_gpu_reason().empty()) {
    const auto ws = cudnn_conv2d_workspace(DType::kFloat32, plain);
    EXPECT_FALSE(ws.is_ok());
    std::printf("without a GPU: %s\n", ws.status().to_string().c_str());
  }
}

struct ConvCase {
  Shape x, w;
  int64_t group = 1;
  int64_t stride = 1, dilation = 1, pad = 0;
  bool bias = true, residual = false;
  const char* activation = nullptr;  // ONNX op after the Add, or none
  UnaryOp act = {};
};

// float32: as conv_test (rtol 1e-4, atol 1e-6 per product summed). float16: 2^-8 relative (two
// to four ulps) plus 2^-10 of the typical output magnitude, 4 sqrt(K) for these N(0, 2) inputs
// (about one ulp of it): the CPU reference rounds after Conv and after Add, cuDNN's fused call once,
// its separate path after the convolution, the bias and the residual, and cuDNN may use tensor
// cores with another summation order.
void expect_conv_close(const Tensor& want, const Tensor& got, const std::string& what, int64_t k) {
  if (want.dtype() == DType::kFloat32) return expect_close(want, got, what, 1e-6 * static_cast<double>(k));
  ASSERT_EQ(want.shape(), got.shape()) << what;
  const double atol = 0x1p-10 * 4.0 * std::sqrt(static_cast<double>(k));
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.as_double(i), g = got.as_double(i);
    if (!(std::fabs(w - g) <= 0x1p-8 * std::fabs(w) + atol)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.numel() << " differ; first at " << first << ": want "
                    << (first >= 0 ? want.as_double(first) : 0) << ", got " << (first >= 0 ? got.as_double(first) : 0);
}

TEST(HI_GPU_TEST_SUITE, CudnnConv2dMatchesTheOwnKernelAndTheCpu) {
  SKIP_WITHOUT_GPU();
  if (!cudnn_library().available) GTEST_SKIP() << "cuDNN: " << cudnn_library().reason;
  ASSERT_TRUE(set_device(0).is_ok());
  const UnaryOp relu = {UnaryKind::kRelu};
  const std::vector<ConvCase> cases = {
      // x, w, group, stride, dilation, pad, bias, residual, activation
      {{1, 3, 17, 19}, {8, 3, 3, 3}, 1, 1, 1, 1},                              // odd channels, 3x3
      {{3, 5, 15, 13}, {7, 5, 1, 1}, 1, 1, 1, 0, true, false, "Relu", relu},   // 1x1, batch 3, fused
      {{3, 6, 16, 15}, {10, 3, 3, 3}, 2, 2, 1, 1, true, true, "Relu", relu},   // groups 2, stride 2, fused + residual
      {{1, 9, 14, 14}, {9, 1, 3, 3}, 9, 1, 2, 2, true, false, "Relu", relu},   // depthwise, dilation 2
      {{3, 8, 15, 15}, {8, 1, 3, 3}, 8, 2, 1, 1, false, true, "Relu", relu},   // depthwise, ReLU without bias
      {{1, 3, 33, 31}, {16, 3, 7, 7}, 1, 2, 1, 3, true, false, "Relu", relu},  // 7x7 stem
      {{1, 7, 11, 9}, {5, 7, 3, 3}, 1, 1, 2, 0, false},                        // dilation 2, no pads, no bias
      {{3, 4, 9, 9}, {6, 4, 3, 3}, 1, 1, 1, 1, true, true, "HardSwish", {UnaryKind::kHardSwish}},
      {{1, 16, 7, 7}, {32, 16, 5, 5}, 1, 1, 1, 2, true, true},                 // residual, no activation
      {{3, 10, 12, 12}, {6, 5, 3, 3}, 2, 2, 2, 2, true, false, "Relu", relu},  // groups 2, stride 2, dilation 2
  };
  uint32_t seed = 4200;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const ConvCase& c : cases) {
      const Conv2dDesc base = geometry(c.x[0], c.x[1], c.x[2], c.x[3], c.w[0], c.w[2], c.stride, c.dilation, c.pad);
      ASSERT_EQ(c.w[2], c.w[3]);
      Conv2dDesc d = base;
      d.groups = c.group;
      d.has_activation = c.activation != nullptr;
      d.activation = c.act;
      const Shape y_shape = {d.batch, d.out_channels, d.out_h, d.out_w};
      const ModelBuilder b = conv_model(dtype, c.x, c.w, c.group, {c.stride, c.stride}, {c.dilation, c.dilation},
                                        {c.pad, c.pad, c.pad, c.pad}, c.bias, c.residual, c.activation, y_shape);
      const Tensor x = random_tensor(dtype, c.x, seed++, false), w = random_tensor(dtype, c.w, seed++, false);
      const Tensor bias = random_tensor(dtype, {c.w[0]}, seed++, false),
                   r = random_tensor(dtype, y_shape, seed++, false);
      TensorMap feeds = {{"x", x}, {"w", w}};
      if (c.bias) feeds["b"] = bias;
      if (c.residual) feeds["r"] = r;
      const Tensor want = run_on_cpu(b, feeds);
      const std::string what = std::string(dtype_name(dtype)) + " x " + shape_to_string(c.x) + " w " +
                               shape_to_string(c.w) + " group " + std::to_string(c.group) + " stride " +
                               std::to_string(c.stride) + " dilation " + std::to_string(c.dilation) + " pad " +
                               std::to_string(c.pad) + (c.bias ? " bias" : "") + (c.residual ? " residual" : "") +
                               (c.activation ? std::string(" ") + c.activation : "");
      auto ws = cudnn_conv2d_workspace(dtype, d);
      ASSERT_TRUE(ws.is_ok()) << what << ": " << ws.status().to_string();
      void* workspace = nullptr;
      if (ws.value() > 0) {
        ASSERT_TRUE(device_malloc(&workspace, ws.value()).is_ok());
      }
      const auto launch = [&](bool vendor) {
        return run_on_gpu({&x, &w, &bias, &r}, dtype, y_shape, [&](const std::vector<void*>& in, void* y) {
          const void* bp = c.bias ? in[2] : nullptr;
          const void* rp = c.residual ? in[3] : nullptr;
          return vendor ? cudnn_conv2d(dtype, d, in[0], in[1], bp, rp, y, workspace, ws.value(), nullptr)
                        : conv2d(dtype, d, in[0], in[1], bp, rp, y, nullptr);
        });
      };
      const Tensor own = launch(false);
      const Tensor cudnn = launch(true);
      const Tensor again = launch(true);  // the cached choice (and, for bias + ReLU, what the first call learned)
      if (workspace) {
        EXPECT_TRUE(device_free(workspace).is_ok());
      }
      const int64_t k = c.w[1] * c.w[2] * c.w[3];
      expect_conv_close(want, cudnn, "cuDNN vs CPU, " + what + " (workspace " + std::to_string(ws.value()) + ")", k);
      expect_conv_close(want, again, "cuDNN (second call) vs CPU, " + what, k);
      expect_conv_close(want, own, "own kernel vs CPU, " + what, k);
      expect_conv_close(own, cudnn, "cuDNN vs own kernel, " + what, k);
    }
}

// The way an executor uses it: the workspace asked for and allocated first, then the convolution
// recorded into a graph and replayed; also with no workspace at all, where cuDNN either has an
// algorithm that needs none or says kUnsupported.
TEST(HI_GPU_TEST_SUITE, CudnnConv2dInsideAGraphCapture) {
  SKIP_WITHOUT_GPU();
  if (!cudnn_library().available) GTEST_SKIP() << "cuDNN: " << cudnn_library().reason;
  ASSERT_TRUE(set_device(0).is_ok());
  const DType dtype = DType::kFloat32;
  Conv2dDesc d = geometry(2, 16, 20, 20, 24, 3, 1, 1, 1);
  d.has_activation = true;
  const Shape x_shape = {2, 16, 20, 20}, w_shape = {24, 16, 3, 3}, y_shape = {2, 24, 20, 20};
  const Tensor x = random_tensor(dtype, x_shape, 77, false), w = random_tensor(dtype, w_shape, 78, false);
  const Tensor bias = random_tensor(dtype, {24}, 79, false);
  const Tensor own = run_on_gpu({&x, &w, &bias}, dtype, y_shape, [&](const std::vector<void*>& in, void* y) {
    return conv2d(dtype, d, in[0], in[1], in[2], nullptr, y, nullptr);
  });
  const int64_t k = 16 * 9;
  const Tensor no_workspace = run_on_gpu({&x, &w, &bias}, dtype, y_shape, [&](const std::vector<void*>& in, void* y) {
    const Status s = cudnn_conv2d(dtype, d, in[0], in[1], in[2], nullptr, y, nullptr, 0, nullptr);
    if (s.code() == StatusCode::kUnsupported) {
      std::printf("no algorithm without workspace: %s\n", s.message().c_str());
      return conv2d(dtype, d, in[0], in[1], in[2], nullptr, y, nullptr);
    }
    return s;
  });
  expect_conv_close(own, no_workspace, "cuDNN without workspace vs own kernel", k);

  auto ws = cudnn_conv2d_workspace(dtype, d);
  ASSERT_TRUE(ws.is_ok()) << ws.status().to_string();
  auto stream = stream_create();
  ASSERT_TRUE(stream.is_ok()) << stream.status().to_string();
  void* workspace = nullptr;
  if (ws.value() > 0) {
    ASSERT_TRUE(device_malloc(&workspace, ws.value()).is_ok());
  }
  const Tensor captured = run_on_gpu({&x, &w, &bias}, dtype, y_shape, [&](const std::vector<void*>& in, void* y) {
    // Once outside the capture (what an executor's first run does), then recorded and replayed.
    HI_RETURN_IF_ERROR(cudnn_conv2d(dtype, d, in[0], in[1], in[2], nullptr, y, workspace, ws.value(), stream.value()));
    HI_RETURN_IF_ERROR(synchronize(stream.value()));
    HI_RETURN_IF_ERROR(memset_async(y, 0, shape_numel(y_shape) * sizeof(float), stream.value()));
    HI_RETURN_IF_ERROR(begin_capture(stream.value(), CaptureMode::kGlobal));
    const Status s = cudnn_conv2d(dtype, d, in[0], in[1], in[2], nullptr, y, workspace, ws.value(), stream.value());
    auto graph = end_capture(stream.value());
    HI_RETURN_IF_ERROR(s);
    HI_RETURN_IF_ERROR(graph.status());
    HI_RETURN_IF_ERROR(graph_launch(graph.value(), stream.value()));
    HI_RETURN_IF_ERROR(synchronize(stream.value()));
    return graph_destroy(graph.value());
  });
  if (workspace) {
    EXPECT_TRUE(device_free(workspace).is_ok());
  }
  EXPECT_TRUE(stream_destroy(stream.value()).is_ok());
  expect_conv_close(own, captured, "cuDNN in a graph vs own kernel (workspace " + std::to_string(ws.value()) + ")", k);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
