// MaxPool, AveragePool, LpPool, GlobalMaxPool, GlobalLpPool: padding, strides, dilations,
// ceil_mode, auto_pad, count_include_pad, Indices with both storage orders, 1-D/3-D, integer
// types, and error paths. Expected values come from a direct numpy computation that agrees with
// the ONNX reference implementation (onnx.reference) wherever that one runs.
#include <cmath>
#include <limits>

#include "ops/nn_test_util.h"
#include "ops/op_test_util.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

std::vector<Tensor> run(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value() : std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
}
Tensor run1(const OpCase& c) { return run(c)[0]; }

void expect_error(const OpCase& c, StatusCode code, const std::string& needle,
                  std::optional<StatusCode> run_code = {}) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), !constants && run_code ? *run_code : code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

Tensor iota(const Shape& s, float start = 0) {
  Tensor t = Tensor::empty(DType::kFloat32, s);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = start + static_cast<float>(i);
  return t;
}

// ((arange(25) * 7) % 13) - 6 as [1, 1, 5, 5]:
//   -6  1 -5  2 -4
//    3 -3  4 -2  5
//   -1  6  0 -6  1
//   -5  2 -4  3 -3
//    4 -2  5 -1  6
const Tensor kX55 =
    f32({1, 1, 5, 5}, {-6, 1, -5, 2, -4, 3, -3, 4, -2, 5, -1, 6, 0, -6, 1, -5, 2, -4, 3, -3, 4, -2, 5, -1, 6});
const Tensor kX1d = f32({1, 1, 7}, {3, -1, 4, 1, -5, 9, 2});

Attrs window(std::vector<int64_t> kernel, std::vector<int64_t> strides = {}, std::vector<int64_t> pads = {}) {
  Attrs a = {{"kernel_shape", attr_ints(kernel)}};
  if (!strides.empty()) a["strides"] = attr_ints(strides);
  if (!pads.empty()) a["pads"] = attr_ints(pads);
  return a;
}
Attrs with(Attrs a, const std::string& k, ir::Attribute v) {
  a[k] = std::move(v);
  return a;
}

// ---- MaxPool -----------------------------------------------------------------------------

TEST(MaxPool, KernelStrideAndIndices) {
  auto y = run({"MaxPool", "", 12, window({2, 2}, {2, 2}), {iota({1, 1, 4, 4})}, 2});
  expect_tensor_eq(y[0], f32({1, 1, 2, 2}, {5, 7, 13, 15}));
  expect_tensor_eq(y[1], i64({1, 1, 2, 2}, {5, 7, 13, 15}));
}

TEST(MaxPool, PaddingNeverWins) {
  auto y = run({"MaxPool", "", 12, window({3, 3}, {2, 2}, {1, 1, 1, 1}), {kX55}, 2});
  expect_tensor_eq(y[0], f32({1, 1, 3, 3}, {3, 4, 5, 6, 6, 5, 4, 5, 6}));
  expect_tensor_eq(y[1], i64({1, 1, 3, 3}, {5, 7, 9, 11, 11, 9, 20, 22, 24}));
  // All-negative input with padding: the result is an input value, not the padding's 0.
  Tensor neg = kX55.clone();
  for (int64_t i = 0; i < 25; ++i) neg.data<float>()[i] = -std::abs(neg.data<float>()[i]) - 1;
  EXPECT_LT(run1({"MaxPool", "", 12, window({3, 3}, {2, 2}, {1, 1, 1, 1}), {neg}}).data<float>()[0], 0.f);
}

TEST(MaxPool, CeilMode) {
  auto y = run({"MaxPool", "", 12, with(window({2, 2}, {2, 2}), "ceil_mode", attr_int(1)), {kX55}, 2});
  expect_tensor_eq(y[0], f32({1, 1, 3, 3}, {3, 4, 5, 6, 3, 1, 4, 5, 6}));
  expect_tensor_eq(y[1], i64({1, 1, 3, 3}, {5, 7, 9, 11, 18, 14, 20, 22, 24}));
  expect_tensor_eq(run1({"MaxPool", "", 12, window({2, 2}, {2, 2}), {kX55}}), f32({1, 1, 2, 2}, {3, 4, 6, 3}));
  // A window that would start past the input (and its left padding) is dropped: 2x2 input,
  // kernel 1, stride 2 gives 1x1 with ceil_mode too.
  EXPECT_EQ(
      run1({"MaxPool", "", 12, with(window({1, 1}, {2, 2}), "ceil_mode", attr_int(1)), {iota({1, 1, 2, 2})}}).shape(),
      (Shape{1, 1, 1, 1}));
}

TEST(MaxPool, Dilations) {
  auto y = run({"MaxPool", "", 12, with(window({2, 2}), "dilations", attr_ints({2, 2})), {iota({1, 1, 4, 4})}, 2});
  expect_tensor_eq(y[0], f32({1, 1, 2, 2}, {10, 11, 14, 15}));
  expect_tensor_eq(y[1], i64({1, 1, 2, 2}, {10, 11, 14, 15}));
}

TEST(MaxPool, AutoPad) {
  expect_tensor_eq(
      run1({"MaxPool", "", 12, with(window({2, 2}, {2, 2}), "auto_pad", attr_string("SAME_UPPER")), {kX55}}),
      f32({1, 1, 3, 3}, {3, 4, 5, 6, 3, 1, 4, 5, 6}));
  expect_tensor_eq(
      run1({"MaxPool", "", 12, with(window({2, 2}, {2, 2}), "auto_pad", attr_string("SAME_LOWER")), {kX55}}),
      f32({1, 1, 3, 3}, {-6, 1, 2, 3, 6, 5, 4, 5, 6}));
  expect_tensor_eq(run1({"MaxPool", "", 12, with(window({3, 3}, {2, 2}), "auto_pad", attr_string("VALID")), {kX55}}),
                   f32({1, 1, 2, 2}, {6, 5, 6, 6}));
  // VALID ignores ceil_mode: the spec's ceil((in - window + 1) / stride) is the floor formula.
  Attrs valid_ceil = with(with(window({2, 2}, {2, 2}), "auto_pad", attr_string("VALID")), "ceil_mode", attr_int(1));
  EXPECT_EQ(run1({"MaxPool", "", 12, valid_ceil, {kX55}}).shape(), (Shape{1, 1, 2, 2}));
}

TEST(MaxPool, StorageOrderChangesOnlyIndices) {
  auto row = run({"MaxPool", "", 12, window({3, 2}, {2, 2}), {kX55}, 2});
  auto col = run({"MaxPool", "", 12, with(window({3, 2}, {2, 2}), "storage_order", attr_int(1)), {kX55}, 2});
  expect_tensor_eq(row[0], f32({1, 1, 2, 2}, {6, 4, 6, 5}));
  expect_tensor_eq(col[0], row[0]);
  expect_tensor_eq(row[1], i64({1, 1, 2, 2}, {11, 7, 11, 22}));
  expect_tensor_eq(col[1], i64({1, 1, 2, 2}, {7, 11, 7, 14}));
}

TEST(MaxPool, IndicesCountBatchAndChannel) {
  // Two images of two channels: each plane's indices are offset by plane * 4.
  const Tensor x = f32({2, 2, 2, 2}, {1, 4, 2, 3, 8, 5, 6, 7, 0, 0, 9, 0, -1, -2, -3, -4});
  auto y = run({"MaxPool", "", 12, window({2, 2}), {x}, 2});
  expect_tensor_eq(y[0], f32({2, 2, 1, 1}, {4, 8, 9, -1}));
  expect_tensor_eq(y[1], i64({2, 2, 1, 1}, {1, 4, 10, 12}));
}

TEST(MaxPool, OneAndThreeDims) {
  auto y = run({"MaxPool", "", 12, window({3}, {2}, {1, 1}), {kX1d}, 2});
  expect_tensor_eq(y[0], f32({1, 1, 4}, {3, 4, 9, 9}));
  expect_tensor_eq(y[1], i64({1, 1, 4}, {0, 2, 5, 5}));
  const Tensor x3 =
      f32({1, 1, 3, 3, 3}, {0, 5, 10, 4, 9, 3, 8, 2, 7, 1, 6, 0, 5, 10, 4, 9, 3, 8, 2, 7, 1, 6, 0, 5, 10, 4, 9});
  expect_tensor_eq(run1({"MaxPool", "", 12, window({2, 2, 2}), {x3}}),
                   f32({1, 1, 2, 2, 2}, {10, 10, 10, 10, 10, 10, 10, 10}));
  // Opset 1 (no dilations or ceil_mode yet) runs the same kernel.
  expect_tensor_eq(run1({"MaxPool", "", 1, window({3}, {2}, {1, 1}), {kX1d}}), f32({1, 1, 4}, {3, 4, 9, 9}));
}

TEST(MaxPool, IntegerAndHalfTypes) {
  const Tensor x = make<int8_t>({1, 1, 3, 3}, {-128, 5, -3, 7, -100, 127, 0, 1, -1});
  auto y = run({"MaxPool", "", 12, window({2, 2}), {x}, 2});
  expect_tensor_eq(y[0], make<int8_t>({1, 1, 2, 2}, {7, 127, 7, 127}));
  expect_tensor_eq(y[1], i64({1, 1, 2, 2}, {3, 5, 3, 5}));
  expect_tensor_eq(
      run1({"MaxPool", "", 12, window({2, 2}, {1, 1}, {1, 1, 0, 0}), {make<uint8_t>({1, 1, 2, 2}, {0, 0, 0, 0})}}),
      make<uint8_t>({1, 1, 2, 2}, {0, 0, 0, 0}));
  const Tensor h = run1({"MaxPool", "", 12, window({2, 2}, {2, 2}), {cast_f32(iota({1, 1, 4, 4}), DType::kFloat16)}});
  ASSERT_EQ(h.dtype(), DType::kFloat16);
  expect_tensor_eq(as_f32(h), f32({1, 1, 2, 2}, {5, 7, 13, 15}));
}

TEST(MaxPool, NaNIsSkippedUnlessAlone) {
  const float nan = std::nanf("");
  const Tensor y = run1({"MaxPool", "", 12, window({2}), {f32({1, 1, 3}, {nan, 1, nan})}});
  EXPECT_EQ(y.data<float>()[0], 1.f);
  EXPECT_EQ(y.data<float>()[1], 1.f);
  EXPECT_TRUE(std::isnan(run1({"MaxPool", "", 12, window({1}), {f32({1, 1, 1}, {nan})}}).data<float>()[0]));
}

// ---- AveragePool -------------------------------------------------------------------------

TEST(AveragePool, CountIncludePad) {
  const Tensor x = iota({1, 1, 3, 3}, 1);
  expect_tensor_near(run1({"AveragePool", "", 19, window({3, 3}, {}, {1, 1, 1, 1}), {x}}),
                     f32({1, 1, 3, 3}, {3, 3.5f, 4, 4.5f, 5, 5.5f, 6, 6.5f, 7}));
  expect_tensor_near(
      run1({"AveragePool", "", 7, with(window({3, 3}, {}, {1, 1, 1, 1}), "count_include_pad", attr_int(1)), {x}}),
      f32({1, 1, 3, 3},
          {1.33333337f, 2.33333325f, 1.77777779f, 3, 5, 3.66666675f, 2.66666675f, 4.33333349f, 3.11111116f}));
  expect_tensor_near(run1({"AveragePool", "", 19, window({3}, {2}, {1, 1}), {kX1d}}),
                     f32({1, 1, 4}, {1, 1.33333337f, 1.66666663f, 5.5f}));
  expect_tensor_near(
      run1({"AveragePool", "", 19, with(window({3}, {2}, {1, 1}), "count_include_pad", attr_int(1)), {kX1d}}),
      f32({1, 1, 4}, {0.666666687f, 1.33333337f, 1.66666663f, 3.66666675f}));
}

TEST(AveragePool, CeilModeDoesNotCountPastThePadding) {
  const Attrs ceil = with(window({2, 2}, {2, 2}), "ceil_mode", attr_int(1));
  const Tensor expected = f32({1, 1, 3, 3}, {-1.25f, -0.25f, 0.5f, 0.5f, -1.75f, -1, 1, 2, 6});
  expect_tensor_near(run1({"AveragePool", "", 10, ceil, {kX55}}), expected);
  // The last row and column windows hang past the input with no padding there: count_include_pad
  // does not count those positions, so the result is the same.
  expect_tensor_near(run1({"AveragePool", "", 10, with(ceil, "count_include_pad", attr_int(1)), {kX55}}), expected);
  Attrs padded =
      with(with(window({3, 3}, {2, 2}, {1, 1, 1, 1}), "ceil_mode", attr_int(1)), "count_include_pad", attr_int(1));
  expect_tensor_near(run1({"AveragePool", "", 10, padded, {kX55}}),
                     f32({1, 1, 3, 3}, {-0.555555582f, -0.333333343f, 0.111111112f, 0.222222224f, 0, -0.222222224f,
                                        -0.111111112f, 0.333333343f, 0.555555582f}));
  // 3-D with padding on one side only.
  const Tensor x3 =
      f32({1, 1, 3, 3, 3}, {0, 5, 10, 4, 9, 3, 8, 2, 7, 1, 6, 0, 5, 10, 4, 9, 3, 8, 2, 7, 1, 6, 0, 5, 10, 4, 9});
  Attrs a3 = with(with(window({2, 2, 2}, {2, 2, 2}, {1, 0, 0, 0, 0, 0}), "ceil_mode", attr_int(1)), "count_include_pad",
                  attr_int(1));
  expect_tensor_near(run1({"AveragePool", "", 19, a3, {x3}}),
                     f32({1, 1, 2, 2, 2}, {2.25f, 3.25f, 2.5f, 3.5f, 4.625f, 2.5f, 6.5f, 8.5f}));
}

TEST(AveragePool, AutoPadAndDilations) {
  expect_tensor_near(
      run1({"AveragePool",
            "",
            19,
            with(with(window({3, 3}, {2, 2}), "auto_pad", attr_string("SAME_UPPER")), "count_include_pad", attr_int(1)),
            {kX55}}),
      f32({1, 1, 3, 3}, {-0.555555582f, -0.333333343f, 0.111111112f, 0.222222224f, 0, -0.222222224f, -0.111111112f,
                         0.333333343f, 0.555555582f}));
  expect_tensor_near(
      run1({"AveragePool", "", 19, with(window({3, 3}, {2, 2}), "auto_pad", attr_string("SAME_LOWER")), {kX55}}),
      f32({1, 1, 3, 3}, {-1.25f, -0.5f, 0.25f, 0.333333343f, 0, -0.333333343f, -0.25f, 0.5f, 1.25f}));
  expect_tensor_near(
      run1({"AveragePool", "", 19, with(window({2, 2}), "dilations", attr_ints({2, 2})), {iota({1, 1, 4, 4})}}),
      f32({1, 1, 2, 2}, {5, 6, 9, 10}));
  expect_tensor_near(run1({"AveragePool", "", 19, window({2, 2}, {2, 2}), {iota({1, 1, 4, 4})}}),
                     f32({1, 1, 2, 2}, {2.5f, 4.5f, 10.5f, 12.5f}));
}

TEST(AveragePool, HalfTypes) {
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    const Tensor y = run1({"AveragePool", "", 19, window({2, 2}, {2, 2}), {cast_f32(iota({1, 1, 4, 4}), t)}});
    ASSERT_EQ(y.dtype(), t);
    expect_tensor_eq(as_f32(y), f32({1, 1, 2, 2}, {2.5f, 4.5f, 10.5f, 12.5f}));
  }
}

// Awkward sizes: MaxPool and AveragePool (both count_include_pad settings) against a direct
// loop over the padded input.
TEST(Pool, RandomAwkwardShapeMatchesDirectLoops) {
  const Tensor x = random_f32({2, 3, 7, 9}, 77, -3, 3);
  const std::vector<int64_t> k = {3, 2}, s = {2, 3}, p = {1, 0, 2, 1}, d = {1, 2};
  Attrs a = with(with(window(k, s, p), "dilations", attr_ints(d)), "ceil_mode", attr_int(1));
  auto mx = run({"MaxPool", "", 12, a, {x}, 2});
  const Tensor av = run1({"AveragePool", "", 19, a, {x}});
  const Tensor avp = run1({"AveragePool", "", 19, with(a, "count_include_pad", attr_int(1)), {x}});
  // Output size: ceil((7 + 3 - 3) / 2) + 1 = 5, but the last window would start at 8 >= 7 + 1, so 4;
  // ceil((9 + 1 - 3) / 3) + 1 = 4, but the last would start at 9 >= 9 + 0, so 3.
  const int64_t oh = 4, ow = 3;
  ASSERT_EQ(mx[0].shape(), (Shape{2, 3, oh, ow}));
  ASSERT_EQ(av.shape(), (Shape{2, 3, oh, ow}));
  const float* px = x.data<float>();
  for (int64_t plane = 0; plane < 6; ++plane)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double best = -1e30, sum = 0;
        int64_t n = 0, padded = 0, best_at = -1;
        for (int64_t a0 = 0; a0 < k[0]; ++a0)
          for (int64_t a1 = 0; a1 < k[1]; ++a1) {
            const int64_t h = i * s[0] - p[0] + a0 * d[0], w = j * s[1] - p[1] + a1 * d[1];
            if (h < 7 + p[2] && w < 9 + p[3]) ++padded;
            if (h < 0 || h >= 7 || w < 0 || w >= 9) continue;
            const double v = px[plane * 63 + h * 9 + w];
            if (v > best) best = v, best_at = plane * 63 + h * 9 + w;
            sum += v;
            ++n;
          }
        const int64_t o = (plane * oh + i) * ow + j;
        EXPECT_EQ(mx[0].data<float>()[o], static_cast<float>(best)) << o;
        EXPECT_EQ(mx[1].data<int64_t>()[o], best_at) << o;
        EXPECT_NEAR(av.data<float>()[o], sum / static_cast<double>(n), 1e-5) << o;
        EXPECT_NEAR(avp.data<float>()[o], sum / static_cast<double>(padded), 1e-5) << o;
      }
}

TEST(Pool, Errors) {
  const Tensor x = iota({1, 1, 4, 4});
  expect_error({"MaxPool", "", 12, {}, {x}}, StatusCode::kInvalidModel, "kernel_shape");
  expect_error({"AveragePool", "", 19, window({2}), {x}}, StatusCode::kInvalidModel, "must have rank 3");
  expect_error({"MaxPool", "", 12, window({2, 2}, {1}), {x}}, StatusCode::kInvalidModel, "for 2 spatial dims");
  expect_error({"MaxPool", "", 12, window({2, 2}, {1, 1}, {1, 1}), {x}}, StatusCode::kInvalidModel,
               "for 2 spatial dims");
  expect_error({"MaxPool", "", 12, window({0, 2}), {x}}, StatusCode::kInvalidModel, "must be positive");
  expect_error({"MaxPool", "", 12, window({5, 5}), {x}}, StatusCode::kInvalidModel, "smaller than the window");
  expect_error({"MaxPool", "", 12, with(window({2, 2}), "storage_order", attr_int(2)), {x}}, StatusCode::kInvalidModel,
               "storage_order");
  expect_error({"MaxPool", "", 12, with(window({2, 2}), "auto_pad", attr_string("SAME")), {x}},
               StatusCode::kInvalidModel, "auto_pad");
  expect_error({"AveragePool", "", 19, window({2, 2}), {x}, 2}, StatusCode::kInvalidModel, "at most 1 output");
  expect_error({"AveragePool", "", 19, window({2, 2}), {make<int8_t>({1, 1, 2, 2}, {1, 2, 3, 4})}},
               StatusCode::kUnsupported, "int8");
  expect_error({"MaxPool", "", 12, window({2, 2}), {make<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4})}},
               StatusCode::kUnsupported, "int32");
  expect_error({"LpPool", "", 18, with(window({2, 2}), "p", attr_int(0)), {x}}, StatusCode::kInvalidModel,
               "p must be positive");
  // A window that reads only padding: kernel 2 with dilation 3 over a 2-wide input padded by 1
  // on both sides covers positions -1 and 2.
  Attrs only_pad = with(window({2}, {1}, {1, 1}), "dilations", attr_ints({3}));
  expect_error({"MaxPool", "", 12, only_pad, {f32({1, 1, 2}, {1, 2})}}, StatusCode::kInvalidArgument,
               "covers only padding");
  expect_error({"AveragePool", "", 19, only_pad, {f32({1, 1, 2}, {1, 2})}}, StatusCode::kInvalidArgument,
               "covers only padding");
  // With count_include_pad that window's average is 0.
  expect_tensor_eq(
      run1({"AveragePool", "", 19, with(only_pad, "count_include_pad", attr_int(1)), {f32({1, 1, 2}, {1, 2})}}),
      f32({1, 1, 1}, {0}));
}

// Issue 24: auto_pad SAME accepts any kernel (ONNX Runtime too: the pads grow with it), and a
// window's taps were walked one by one, so a kernel of 1e9 or 2^40 ran for minutes. Now each
// window costs what it reads of the input. Expected values from ONNX Runtime 1.x on the same
// models (kernel 1e6 there; the result does not depend on the kernel once it covers the input).
TEST(Pool, HugeKernelsWithAutoPadSameFinishAndMatchOnnxRuntime) {
  const Tensor x = f32({1, 1, 3}, {3, -1, 4});
  for (int64_t k : {int64_t{1000000}, int64_t{1000000000}, int64_t{1} << 40, int64_t{1} << 62}) {
    const Attrs upper = with(window({k}), "auto_pad", attr_string("SAME_UPPER"));
    const Attrs lower = with(window({k}), "auto_pad", attr_string("SAME_LOWER"));
    expect_tensor_eq(run1({"MaxPool", "", 12, upper, {x}}), f32({1, 1, 3}, {4, 4, 4}));
    expect_tensor_eq(run1({"MaxPool", "", 12, with(lower, "strides", attr_ints({2})), {x}}), f32({1, 1, 2}, {4, 4}));
    expect_tensor_eq(run1({"AveragePool", "", 19, upper, {x}}), f32({1, 1, 3}, {2, 2, 2}));
    // count_include_pad divides by the whole window: the pads make every tap a padded one.
    const float all = 6.f / static_cast<float>(k);
    expect_tensor_near(run1({"AveragePool", "", 19, with(lower, "count_include_pad", attr_int(1)), {x}}),
                       f32({1, 1, 3}, {all, all, all}), 1e-6, 0);
    expect_tensor_near(run1({"LpPool", "", 18, upper, {x}}), f32({1, 1, 3}, {5.0990195f, 5.0990195f, 5.0990195f}));
  }
  // 2-D, both dims huge: every output is the plane's maximum.
  const Tensor x2 = f32({1, 1, 2, 3}, {0, -1, 2, -3, 4, -5});
  expect_tensor_eq(
      run1({"MaxPool", "", 12, with(window({1000000000, 1000000000}), "auto_pad", attr_string("SAME_UPPER")), {x2}}),
      f32({1, 1, 2, 3}, {4, 4, 4, 4, 4, 4}));
  // A kernel as small as ONNX Runtime's own test: count_include_pad counts the pads SAME adds.
  expect_tensor_eq(
      run1({"AveragePool",
            "",
            19,
            with(with(window({4}), "auto_pad", attr_string("SAME_UPPER")), "count_include_pad", attr_int(1)),
            {x}}),
      f32({1, 1, 3}, {1.5f, 1.5f, 0.75f}));
}

// Explicit pads nearly as large as the kernel: two windows of 2^40 taps each, of which the input
// holds a few; as fast as a small kernel (ONNX Runtime: kernel and pads 1e6 give [3, 4] and 3e-6).
TEST(Pool, HugeExplicitPadsAndKernelCostOnlyTheInput) {
  const Tensor x = f32({1, 1, 3}, {3, -1, 4});
  const int64_t k = int64_t{1} << 40;
  const Attrs a = window({k}, {k}, {k - 1, k - 1});
  expect_tensor_eq(run1({"MaxPool", "", 12, a, {x}}), f32({1, 1, 2}, {3, 4}));
  const float avg = 3.f / static_cast<float>(k);  // every tap inside the padded input counts
  expect_tensor_near(run1({"AveragePool", "", 19, with(a, "count_include_pad", attr_int(1)), {x}}),
                     f32({1, 1, 2}, {avg, avg}), 1e-6, 0);
}

// Window attributes whose arithmetic overflows int64 are errors naming them, in every auto_pad
// mode; a window larger than the padded input is one too where ONNX says so (VALID, explicit).
TEST(Pool, WindowArithmeticThatOverflowsIsAnError) {
  const Tensor x = f32({1, 1, 3}, {3, -1, 4});
  const int64_t big = int64_t{1} << 40, max = std::numeric_limits<int64_t>::max();
  for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) {
    const int64_t opset = std::string(op) == "MaxPool" ? 12 : std::string(op) == "LpPool" ? 18 : 19;
    for (const char* pad : {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}) {
      SCOPED_TRACE(std::string(op) + " " + pad);
      const Attrs dilated = with(with(window({big}), "dilations", attr_ints({big})), "auto_pad", attr_string(pad));
      expect_error(
          {op, "", opset, dilated, {x}}, StatusCode::kInvalidModel,
          "kernel_shape[0] = 1099511627776 with dilations[0] = 1099511627776 spans a window larger than int64");
      const Attrs taps = with(window({big, big}), "auto_pad", attr_string(pad));
      expect_error({op, "", opset, taps, {f32({1, 1, 1, 3}, {3, -1, 4})}}, StatusCode::kInvalidModel,
                   "kernel_shape [1099511627776, 1099511627776] has more taps than int64 can count");
      expect_error(
          {op, "", opset, with(window({max}), "auto_pad", attr_string(pad)), {x}}, StatusCode::kInvalidModel,
          std::string(pad).rfind("SAME", 0) == 0 ? "is larger than int64 can count" : "is smaller than the window");
    }
    expect_error({op, "", opset, window({2}, {1}, {max - 1, 2}), {x}}, StatusCode::kInvalidModel,
                 "with pads 9223372036854775806 and 2 is larger than int64 can count");
    expect_error({op, "", opset, with(window({big}), "auto_pad", attr_string("VALID")), {x}}, StatusCode::kInvalidModel,
                 "(padded 3) is smaller than the window 1099511627776");
  }
}

// ---- LpPool ------------------------------------------------------------------------------

TEST(LpPool, NormsOverWindows) {
  expect_tensor_near(run1({"LpPool", "", 18, window({2, 2}, {2, 2}), {iota({1, 1, 4, 4}, -8)}}),
                     f32({1, 1, 2, 2}, {11.7473402f, 8.1240387f, 6.48074055f, 9.89949512f}));
  expect_tensor_near(
      run1({"LpPool", "", 18, with(window({3, 3}, {}, {1, 1, 1, 1}), "p", attr_int(1)), {iota({1, 1, 3, 3}, -4)}}),
      f32({1, 1, 3, 3}, {8, 11, 6, 13, 20, 13, 6, 11, 8}));
  expect_tensor_near(run1({"LpPool", "", 18, with(window({2}, {2}), "p", attr_int(3)), {kX1d}}),
                     f32({1, 1, 3}, {3.03658891f, 4.02072573f, 9.48751831f}));
  // Opset 1 spells p as a float.
  expect_tensor_near(run1({"LpPool", "", 1, with(window({2}, {2}), "p", attr_float(3)), {kX1d}}),
                     f32({1, 1, 3}, {3.03658891f, 4.02072573f, 9.48751831f}));
}

// ---- Global pools ------------------------------------------------------------------------

const Tensor kXg =
    f32({2, 3, 2, 2}, {-4, 3, 0, -3, 4, 1, -2, 5, 2, -1, -4, 3, 0, -3, 4, 1, -2, 5, 2, -1, -4, 3, 0, -3});

TEST(GlobalMaxPool, PerPlane) {
  expect_tensor_eq(run1({"GlobalMaxPool", "", 1, {}, {kXg}}), f32({2, 3, 1, 1}, {3, 5, 3, 4, 5, 3}));
  expect_tensor_eq(run1({"GlobalMaxPool", "", 1, {}, {f32({1, 2, 3}, {1, -7, 2, -3, -2, -9})}}),
                   f32({1, 2, 1}, {2, -2}));
  expect_tensor_eq(as_f32(run1({"GlobalMaxPool", "", 1, {}, {cast_f32(kXg, DType::kFloat16)}})),
                   f32({2, 3, 1, 1}, {3, 5, 3, 4, 5, 3}));
  EXPECT_EQ(run1({"GlobalMaxPool", "", 1, {}, {f32({0, 3, 2}, {})}}).shape(), (Shape{0, 3, 1}));
}

// Planes long enough for the 16-lane path, of awkward sizes, with NaNs here and there (skipped) and
// one plane of NaNs only (NaN), against a scalar loop.
TEST(GlobalMaxPool, LongPlanesSkipNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t size : {16, 37, 100, 509}) {
    Tensor x = random_f32({2, 3, size}, static_cast<uint64_t>(size));
    float* px = x.data<float>();
    for (int64_t i = 0; i < x.numel(); i += 7) px[i] = nan;
    for (int64_t i = 0; i < size; ++i) px[size + i] = nan;  // plane 1: NaN only
    px[4 * size + size - 1] = 5.f;                          // plane 4: its maximum last, in the tail
    const Tensor y = run1({"GlobalMaxPool", "", 1, {}, {x}});
    for (int64_t p = 0; p < 6; ++p) {
      float want = nan;
      for (int64_t i = 0; i < size; ++i)
        if (!std::isnan(px[p * size + i]) && (std::isnan(want) || px[p * size + i] > want)) want = px[p * size + i];
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(y.data<float>()[p])) << "size " << size << " plane " << p;
      else EXPECT_EQ(y.data<float>()[p], want) << "size " << size << " plane " << p;
    }
  }
}

TEST(GlobalLpPool, PerPlane) {
  expect_tensor_near(run1({"GlobalLpPool", "", 2, {}, {kXg}}),
                     f32({2, 3, 1, 1}, {5.83095189f, 6.78232998f, 5.47722558f, 5.09901951f, 5.83095189f, 5.83095189f}));
  expect_tensor_near(run1({"GlobalLpPool", "", 2, {{"p", attr_int(1)}}, {kXg}}),
                     f32({2, 3, 1, 1}, {10, 12, 10, 8, 10, 10}));
  // An empty plane has norm 0.
  expect_tensor_eq(run1({"GlobalLpPool", "", 2, {}, {f32({1, 2, 0}, {})}}), f32({1, 2, 1}, {0, 0}));
}

TEST(GlobalPool, Errors) {
  expect_error({"GlobalMaxPool", "", 1, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6})}}, StatusCode::kInvalidModel, "rank >= 3");
  expect_error({"GlobalLpPool", "", 2, {}, {f32({2}, {1, 2})}}, StatusCode::kInvalidModel, "rank >= 3");
  expect_error({"GlobalMaxPool", "", 1, {}, {f32({1, 2, 0}, {})}}, StatusCode::kInvalidArgument, "no spatial elements");
  expect_error({"GlobalMaxPool", "", 1, {}, {make<int8_t>({1, 1, 1}, {1})}}, StatusCode::kUnsupported, "int8");
  expect_error({"GlobalLpPool", "", 2, {{"p", attr_int(-1)}}, {kXg}}, StatusCode::kInvalidModel, "p must be positive");
}

// ---- Static inference over symbolic shapes ------------------------------------------------

TEST(PoolInference, SymbolicDimsStaySymbolic) {
  const ir::ValueType x = ir::ValueType::tensor(DType::kFloat32, dims({"N", "3", "H", "8"}));
  EXPECT_EQ(inferred({"MaxPool", "", 12, window({2, 2}, {2, 2}), {}, 2}, {x}, 0), "float32[N, 3, ?, 4]");
  EXPECT_EQ(inferred({"MaxPool", "", 12, window({2, 2}, {2, 2}), {}, 2}, {x}, 1), "int64[N, 3, ?, 4]");
  EXPECT_EQ(
      inferred({"AveragePool", "", 19, with(window({3, 3}, {2, 2}), "auto_pad", attr_string("SAME_UPPER")), {}}, {x}),
      "float32[N, 3, ?, 4]");
  EXPECT_EQ(inferred({"LpPool", "", 18, window({3, 3}, {1, 1}, {1, 1, 1, 1}), {}}, {x}), "float32[N, 3, ?, 8]");
  // Unknown rank: the kernel fixes it.
  EXPECT_EQ(inferred({"MaxPool", "", 12, window({2, 2}), {}}, {ir::ValueType::tensor_unknown_shape(DType::kUInt8)}),
            "uint8[?, ?, ?, ?]");
  EXPECT_EQ(inferred({"GlobalMaxPool", "", 1, {}, {}}, {x}), "float32[N, 3, 1, 1]");
  EXPECT_EQ(inferred({"GlobalLpPool", "", 2, {}, {}}, {x}), "float32[N, 3, 1, 1]");
  EXPECT_NE(inferred({"MaxPool", "", 12, window({2, 9}), {}}, {x}).find("smaller than the window"), std::string::npos);
}

}  // namespace
}  // namespace hi::test
