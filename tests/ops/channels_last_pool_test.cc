// ChannelsLastPool (com.hipinfer, made by the layout pass) against the standard pools on the same
// data channels-first: max and average windows with padding, strides, ceil mode and
// count_include_pad, the global pools, awkward channel counts (not a vector's multiple).
#include <vector>

#include "ops/op_test_util.h"

namespace hi::test {
namespace {

// [N, C, H, W] <-> [N, H, W, C].
Tensor to_channels_last(const Tensor& x) {
  const int64_t n = x.dim(0), c = x.dim(1), h = x.dim(2), w = x.dim(3);
  Tensor y = Tensor::empty(DType::kFloat32, {n, h, w, c});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < h * w; ++i)
        y.data<float>()[(b * h * w + i) * c + ch] = x.data<float>()[(b * c + ch) * h * w + i];
  return y;
}
Tensor to_channels_first(const Tensor& y) {
  const int64_t n = y.dim(0), h = y.dim(1), w = y.dim(2), c = y.dim(3);
  Tensor x = Tensor::empty(DType::kFloat32, {n, c, h, w});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t i = 0; i < h * w; ++i)
        x.data<float>()[(b * c + ch) * h * w + i] = y.data<float>()[(b * h * w + i) * c + ch];
  return x;
}

TEST(ChannelsLastPool, MatchesTheStandardPools) {
  struct Case {
    std::string mode, op;
    Shape x;
    std::map<std::string, ir::Attribute> attrs;
  };
  const std::vector<Case> cases = {
      {"max",
       "MaxPool",
       {2, 19, 11, 13},
       {{"kernel_shape", attr_ints({3, 3})}, {"strides", attr_ints({2, 2})}, {"pads", attr_ints({1, 1, 1, 1})}}},
      {"max",
       "MaxPool",
       {1, 64, 12, 12},
       {{"kernel_shape", attr_ints({2, 3})}, {"strides", attr_ints({2, 1})}, {"ceil_mode", attr_int(1)}}},
      {"average",
       "AveragePool",
       {3, 5, 9, 7},
       {{"kernel_shape", attr_ints({3, 3})}, {"pads", attr_ints({1, 0, 1, 2})}}},
      {"average",
       "AveragePool",
       {1, 33, 8, 8},
       {{"kernel_shape", attr_ints({3, 3})},
        {"strides", attr_ints({2, 2})},
        {"pads", attr_ints({1, 1, 1, 1})},
        {"count_include_pad", attr_int(1)}}},
      // auto_pad SAME with a kernel far larger than the input (issue 24): each window is the plane.
      // The second reads 4900 taps at each of 4900 positions, past what the windows cache holds.
      {"max",
       "MaxPool",
       {1, 3, 6, 5},
       {{"kernel_shape", attr_ints({1000000000, 1000000000})}, {"auto_pad", attr_string("SAME_UPPER")}}},
      {"average",
       "AveragePool",
       {1, 2, 70, 70},
       {{"kernel_shape", attr_ints({1000000000, 1000000000})}, {"auto_pad", attr_string("SAME_LOWER")}}},
      {"average",
       "AveragePool",
       {1, 3, 9, 8},
       {{"kernel_shape", attr_ints({int64_t{1} << 40, 3})},
        {"auto_pad", attr_string("SAME_LOWER")},
        {"count_include_pad", attr_int(1)}}},
      {"global_average", "GlobalAveragePool", {2, 37, 7, 5}, {}},
      {"global_max", "GlobalMaxPool", {1, 17, 3, 9}, {}},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    const Tensor x = random_f32(c.x, seed++, -3.f, 3.f);
    OpCase standard;
    standard.op_type = c.op;
    standard.opset = 19;
    standard.attrs = c.attrs;
    standard.inputs = {x};
    auto want = run_op(standard);
    ASSERT_TRUE(want.is_ok()) << c.op << ": " << want.status().to_string();
    OpCase channels_last;
    channels_last.op_type = "ChannelsLastPool";
    channels_last.domain = "com.hipinfer";
    channels_last.opset = 1;
    channels_last.attrs = c.attrs;
    channels_last.attrs["mode"] = attr_string(c.mode);
    channels_last.inputs = {to_channels_last(x)};
    auto got = run_op(channels_last);
    ASSERT_TRUE(got.is_ok()) << c.mode << ": " << got.status().to_string();
    expect_tensor_near(to_channels_first(got.value()[0]), want.value()[0], 1e-6, 1e-6);
  }
}

}  // namespace
}  // namespace hi::test
