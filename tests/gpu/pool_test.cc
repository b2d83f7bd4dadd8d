// GPU pooling against the CPU MaxPool and AveragePool ops: padding on every side, ceil_mode
// windows past the end, dilation (max), both count_include_pad settings (average), and a kernel
// far larger than the input.
#include "backends/gpu/kernels/pool.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

struct PoolCase {
  Shape x;
  int64_t kernel, stride, dilation;
  std::vector<int64_t> pads;  // top, left, bottom, right
  bool ceil_mode;
};

TEST(HI_GPU_TEST_SUITE, PoolingMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const std::vector<PoolCase> cases = {
      {{1, 3, 17, 19}, 3, 2, 1, {1, 1, 1, 1}, false},
      {{2, 4, 8, 8}, 2, 2, 1, {0, 0, 0, 0}, false},
      {{1, 2, 7, 7}, 3, 2, 1, {0, 0, 0, 0}, true},
      {{1, 2, 11, 11}, 3, 1, 2, {2, 2, 2, 2}, false},
      {{1, 1, 6, 5}, 3, 2, 1, {1, 0, 2, 1}, true},
      // Issue 24: a window of 1e9 x 1e9 taps, nearly all padding, walked
      // tap by tap; now each window costs what it reads of the input.
      {{1, 2, 5, 4}, 1000000000, 1000000000, 1, {999999999, 999999999, 999999999, 999999999}, false}};
  uint32_t seed = 900;
  for (DType dtype : {DType::kFloat32, DType::kFloat16})
    for (const PoolCase& c : cases)
      for (int variant = 0; variant < 3; ++variant) {  // max, average, average counting pads
        const PoolKind kind = variant == 0 ? PoolKind::kMax : PoolKind::kAverage;
        if (kind == PoolKind::kAverage && c.dilation != 1) continue;  // AveragePool has dilations only from opset 19
        ModelBuilder b(12);
        b.input("x", onnx_type(dtype), std::vector<int64_t>(c.x.begin(), c.x.end()));
        b.output("y", onnx_type(dtype));
        auto& node = b.node(kind == PoolKind::kMax ? "MaxPool" : "AveragePool", {"x"}, {"y"});
        ModelBuilder::set_ints(node, "kernel_shape", {c.kernel, c.kernel});
        ModelBuilder::set_ints(node, "strides", {c.stride, c.stride});
        ModelBuilder::set_ints(node, "pads", c.pads);
        if (kind == PoolKind::kMax) ModelBuilder::set_ints(node, "dilations", {c.dilation, c.dilation});
        ModelBuilder::set_int(node, "ceil_mode", c.ceil_mode);
        if (variant == 2) ModelBuilder::set_int(node, "count_include_pad", 1);
        const Tensor x = random_tensor(dtype, c.x, seed++, false);
        const Tensor want = run_on_cpu(b, {{"x", x}});
        ASSERT_EQ(want.rank(), 4);
        Pool2dDesc d;
        d.batch = c.x[0];
        d.channels = c.x[1];
        d.in_h = c.x[2];
        d.in_w = c.x[3];
        d.out_h = want.dim(2);
        d.out_w = want.dim(3);
        d.kernel_h = d.kernel_w = c.kernel;
        d.stride_h = d.stride_w = c.stride;
        d.dilation_h = d.dilation_w = c.dilation;
        d.pad_top = c.pads[0];
        d.pad_left = c.pads[1];
        d.pad_bottom = c.pads[2];
        d.pad_right = c.pads[3];
        d.count_include_pad = variant == 2;
        const Tensor got = run_on_gpu({&x}, dtype, want.shape(), [&](const std::vector<void*>& in, void* y) {
          return pool2d(kind, dtype, d, in[0], y, nullptr);
        });
        expect_close(want, got,
                     std::string(variant == 0   ? "MaxPool "
                                 : variant == 1 ? "AveragePool "
                                                : "AveragePool (pads) ") +
                         dtype_name(dtype) + " " + shape_to_string(c.x));
      }
}

TEST(HI_GPU_TEST_SUITE, PoolingRejectsBadGeometryWithoutAGpu) {
  Pool2dDesc d;
  d.batch = d.channels = 1;
  d.in_h = d.in_w = d.out_h = d.out_w = 4;
  d.stride_h = 0;
  EXPECT_EQ(pool2d(PoolKind::kMax, DType::kFloat32, d, nullptr, nullptr, nullptr).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
