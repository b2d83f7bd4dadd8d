// Resampling and geometry (Resize, Upsample, GridSample, AffineGrid) and the deconvolution family
// (ConvTranspose, DeformConv). Expected values are worked out by hand from the ONNX spec's formulas
// (the cubic weights with A = -0.75 at ratio 0.25 are k(0.25) = 0.87890625, k(0.75) = 0.26171875,
// k(1.25) = -0.10546875, k(1.75) = -0.03515625); every error path the ops add is hit.
#include <cmath>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

void expect_error_both(const OpCase& c, const std::vector<std::string>& fragments) {
  expect_error(c, fragments, false);
  expect_error(c, fragments, true);
}

Tensor u8(const Shape& s, const std::vector<uint8_t>& v) { return make<uint8_t>(s, v); }
const Tensor kNone;  // an absent optional input

// Resize a [1, 1, 1, n] row along its last dim.
Tensor resize_row(const std::vector<float>& row, const Attrs& attrs, const Tensor& scales,
                  const Tensor& sizes = Tensor(), int64_t opset = 19, const Tensor& roi = Tensor()) {
  const Tensor x = f32({1, 1, 1, static_cast<int64_t>(row.size())}, row);
  if (opset < 11) return run1({"Resize", "", opset, attrs, {x, scales}});
  return run1({"Resize", "", opset, attrs, {x, roi, scales, sizes}});
}
Tensor scales4(float s) { return f32({4}, {1, 1, 1, s}); }

// ---- Resize ----------------------------------------------------------------------------------

TEST(Resize, NearestUpsampleHalfPixel) {
  expect_tensor_eq(run1({"Resize",
                         "",
                         19,
                         {{"mode", attr_string("nearest")}},
                         {f32({1, 1, 2, 2}, {1, 2, 3, 4}), kNone, f32({4}, {1, 1, 2, 2})}}),
                   f32({1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resize, NearestModesAndOpset10Rule) {
  // Asymmetric, scale 0.6 on 5 elements: x = 0, 1.667, 3.333.
  const std::vector<float> row = {1, 2, 3, 4, 5};
  auto nearest = [&](const char* nm) {
    return resize_row(
        row, {{"coordinate_transformation_mode", attr_string("asymmetric")}, {"nearest_mode", attr_string(nm)}},
        scales4(0.6f));
  };
  expect_tensor_eq(nearest("round_prefer_floor"), f32({1, 1, 1, 3}, {1, 3, 4}));
  expect_tensor_eq(nearest("round_prefer_ceil"), f32({1, 1, 1, 3}, {1, 3, 4}));
  expect_tensor_eq(nearest("floor"), f32({1, 1, 1, 3}, {1, 2, 4}));
  expect_tensor_eq(nearest("ceil"), f32({1, 1, 1, 3}, {1, 3, 5}));
  // Ties: asymmetric scale 2 gives x = 0, 0.5, 1, 1.5; round_prefer_ceil takes 0.5 up.
  expect_tensor_eq(resize_row({1, 2},
                              {{"coordinate_transformation_mode", attr_string("asymmetric")},
                               {"nearest_mode", attr_string("round_prefer_ceil")}},
                              scales4(2.f)),
                   f32({1, 1, 1, 4}, {1, 2, 2, 2}));
  // tf_half_pixel_for_nn (opset 11 only): x = (o + 0.5) / 2 = 0.25, 0.75, 1.25, 1.75.
  expect_tensor_eq(resize_row({1, 2}, {{"coordinate_transformation_mode", attr_string("tf_half_pixel_for_nn")}},
                              scales4(2.f), Tensor(), 11, f32({0}, {})),
                   f32({1, 1, 1, 4}, {1, 2, 2, 2}));
  // Opset 10: ceil when downsampling, truncation when upsampling.
  expect_tensor_eq(resize_row(row, {}, scales4(0.6f), Tensor(), 10), f32({1, 1, 1, 3}, {1, 3, 5}));
  expect_tensor_eq(resize_row({1, 2}, {}, scales4(3.f), Tensor(), 10), f32({1, 1, 1, 6}, {1, 1, 1, 2, 2, 2}));
}

TEST(Resize, LinearCoordinateModes) {
  const Attrs linear = {{"mode", attr_string("linear")}};
  expect_tensor_near(resize_row({1, 2}, linear, scales4(2.f)), f32({1, 1, 1, 4}, {1, 1.25f, 1.75f, 2}));
  Attrs ac = linear;
  ac["coordinate_transformation_mode"] = attr_string("align_corners");
  expect_tensor_near(resize_row({1, 2}, ac, scales4(2.f)), f32({1, 1, 1, 4}, {1, 4.f / 3, 5.f / 3, 2}));
  Attrs asym = linear;
  asym["coordinate_transformation_mode"] = attr_string("asymmetric");
  expect_tensor_near(resize_row({1, 3}, asym, scales4(2.f)), f32({1, 1, 1, 4}, {1, 2, 3, 3}));
  // half_pixel_symmetric, scale 0.6 on a ramp: length 2.4 -> 2, offset 2 * (1 - 2 / 2.4) = 1/3,
  // x = 1/3 + (o + 0.5) / 0.6 - 0.5 = 2/3 and 7/3.
  Attrs hps = linear;
  hps["coordinate_transformation_mode"] = attr_string("half_pixel_symmetric");
  expect_tensor_near(resize_row({0, 1, 2, 3}, hps, scales4(0.6f)), f32({1, 1, 1, 2}, {2.f / 3, 7.f / 3}), 1e-5, 1e-5);
  // pytorch_half_pixel with an output of length 1 samples x = 0 (the spec's formula).
  Attrs pt = {{"mode", attr_string("cubic")}, {"coordinate_transformation_mode", attr_string("pytorch_half_pixel")}};
  expect_tensor_near(resize_row({5, 6, 7, 8}, pt, Tensor(), i64({4}, {1, 1, 1, 1})), f32({1, 1, 1, 1}, {5}));
}

TEST(Resize, CubicWeightsAndExcludeOutside) {
  const Attrs cubic = {{"mode", attr_string("cubic")}};
  // Scale 2, half_pixel: x = o / 2 - 0.25; only the 64 contributes.
  expect_tensor_near(resize_row({0, 0, 64, 0}, cubic, scales4(2.f)),
                     f32({1, 1, 1, 8}, {0, -2.25f, -6.75f, 16.75f, 56.25f, 56.25f, 16.75f, -6.75f}));
  // exclude_outside renormalises the in-range weights: at o = 7 (x = 3.25) taps 4 and 5 drop,
  // leaving k(1.25) / (k(1.25) + k(0.25)) on the 64.
  Attrs ex = cubic;
  ex["exclude_outside"] = attr_int(1);
  const Tensor y = resize_row({0, 0, 64, 0}, ex, scales4(2.f));
  EXPECT_NEAR(y.data<float>()[7], 64 * -0.10546875 / (0.87890625 - 0.10546875), 1e-4);
  EXPECT_NEAR(y.data<float>()[4], 64 * 0.87890625, 1e-4);  // every tap inside: unchanged
  // Scale 1 leaves the data alone whatever the mode.
  expect_tensor_near(resize_row({3, -1, 4, 1}, cubic, scales4(1.f)), f32({1, 1, 1, 4}, {3, -1, 4, 1}));
}

TEST(Resize, AntialiasLinearDownsample) {
  // Scale 0.5 stretches the triangle filter to 4 taps: weights 1/8, 3/8, 3/8, 1/8 around x = 0.5
  // (edge-clamped) and x = 2.5.
  expect_tensor_near(run1({"Resize",
                           "",
                           18,
                           {{"mode", attr_string("linear")}, {"antialias", attr_int(1)}, {"axes", attr_ints({3})}},
                           {f32({1, 1, 1, 4}, {1, 2, 3, 4}), kNone, f32({1}, {0.5f})}}),
                     f32({1, 1, 1, 2}, {1.625f, 3.375f}));
}

TEST(Resize, TfCropAndResizeWithExtrapolation) {
  // ROI [0.5, 1.5] of a 4-element axis, 3 outputs: x = 1.5, 3, 4.5 (outside: 99).
  expect_tensor_near(run1({"Resize",
                           "",
                           18,
                           {{"mode", attr_string("linear")},
                            {"coordinate_transformation_mode", attr_string("tf_crop_and_resize")},
                            {"extrapolation_value", attr_float(99)},
                            {"axes", attr_ints({3})}},
                           {f32({1, 1, 1, 4}, {0, 10, 20, 30}), f32({2}, {0.5f, 1.5f}), kNone, i64({1}, {3})}}),
                     f32({1, 1, 1, 3}, {15, 30, 99}));
}

TEST(Resize, SizesAxesAndKeepAspectRatio) {
  const Tensor x = f32({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  auto with = [&](const char* policy) {
    return run1({"Resize",
                 "",
                 18,
                 {{"axes", attr_ints({2, 3})}, {"keep_aspect_ratio_policy", attr_string(policy)}},
                 {x, kNone, kNone, i64({2}, {4, 4})}});
  };
  expect_tensor_eq(with("not_larger"), x);  // scale min(2, 1) = 1
  const Tensor big = with("not_smaller");   // scale 2: [4, 8], each element doubled both ways
  ASSERT_EQ(big.shape(), (Shape{1, 1, 4, 8}));
  EXPECT_EQ(big.data<float>()[0], 1);
  EXPECT_EQ(big.data<float>()[3], 2);
  EXPECT_EQ(big.data<float>()[31], 8);
  // axes in another order: sizes follow the axes.
  EXPECT_EQ(run1({"Resize", "", 18, {{"axes", attr_ints({3, 2})}}, {x, kNone, kNone, i64({2}, {2, 6})}}).shape(),
            (Shape{1, 1, 6, 2}));
}

TEST(Resize, IntegerOutputsRoundHalfToEven) {
  // Linear, half_pixel, scale 2: [0, 0.5, 1.5, 2] rounds to [0, 0, 2, 2].
  expect_tensor_eq(
      run1({"Resize", "", 13, {{"mode", attr_string("linear")}}, {i32({1, 1, 1, 2}, {0, 2}), kNone, scales4(2.f)}}),
      i32({1, 1, 1, 4}, {0, 0, 2, 2}));
  expect_tensor_eq(
      run1({"Resize", "", 13, {{"mode", attr_string("linear")}}, {u8({1, 1, 1, 2}, {0, 255}), kNone, scales4(2.f)}}),
      u8({1, 1, 1, 4}, {0, 64, 191, 255}));
  // Cubic overshoot saturates: 255-valued step.
  const Tensor y = run1(
      {"Resize", "", 13, {{"mode", attr_string("cubic")}}, {u8({1, 1, 1, 4}, {0, 0, 255, 255}), kNone, scales4(2.f)}});
  EXPECT_EQ(y.data<uint8_t>()[2], 0);  // 255 * k(1.25) = -26.9 saturates to 0
}

TEST(Resize, Inference) {
  EXPECT_EQ(inferred("Resize", 19, {},
                     {sym(DType::kFloat32, {"N", "3", "4", "6"}), absent(), constant(f32({4}, {1, 1, 2, 0.5f}))}),
            "float32[N, 3, 8, 3]");
  EXPECT_EQ(inferred("Resize", 19, {},
                     {sym(DType::kFloat32, {"N", "3", "H", "6"}), absent(), constant(f32({4}, {1, 1, 2, 2}))}),
            "float32[N, 3, ?, 12]");
  EXPECT_EQ(inferred("Resize", 19, {{"axes", attr_ints({2, 3})}},
                     {sym(DType::kFloat32, {"N", "3", "H", "W"}), absent(), absent(), constant(i64({2}, {5, 7}))}),
            "float32[N, 3, 5, 7]");
  EXPECT_EQ(
      inferred("Resize", 19, {}, {sym(DType::kFloat32, {"N", "3", "4", "6"}), absent(), sym(DType::kFloat32, {"4"})}),
      "float32[?, ?, ?, ?]");
  EXPECT_EQ(inferred("Resize", 10, {}, {sym(DType::kUInt8, {"N", "3", "4", "6"}), constant(f32({4}, {1, 1, 2, 3}))}),
            "uint8[N, 3, 8, 18]");
}

TEST(Resize, Errors) {
  const Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_error_both({"Resize", "", 19, {}, {x, kNone, f32({4}, {1, 1, 2, 2}), i64({4}, {1, 1, 4, 4})}},
                    {"only one of scales and sizes"});
  expect_error_both({"Resize", "", 19, {}, {x, kNone, f32({0}, {})}}, {"one of scales and sizes must be given"});
  expect_error_both({"Resize", "", 19, {}, {x, kNone, f32({3}, {1, 2, 2})}}, {"with 4 values"});
  expect_error_both({"Resize", "", 19, {}, {x, kNone, f32({4}, {1, 1, 0, 2})}}, {"scales[2] = 0", "positive"});
  expect_error_both({"Resize", "", 19, {}, {x, kNone, kNone, i64({4}, {1, 1, -1, 2})}}, {"negative"});
  expect_error_both({"Resize", "", 19, {}, {f32({1, 1, 0, 2}, {}), kNone, kNone, i64({4}, {1, 1, 2, 2})}},
                    {"cannot resize dim 2"});
  expect_error({"Resize", "", 19, {{"mode", attr_string("area")}}, {x, kNone, f32({4}, {1, 1, 2, 2})}},
               {"not one of nearest, linear, cubic"});
  expect_error({"Resize", "", 10, {{"mode", attr_string("cubic")}}, {x, f32({4}, {1, 1, 2, 2})}},
               {"not one of nearest, linear (opset 10)"});
  expect_error({"Resize",
                "",
                13,
                {{"coordinate_transformation_mode", attr_string("tf_half_pixel_for_nn")}},
                {x, kNone, f32({4}, {1, 1, 2, 2})}},
               {"not valid in opset 13"});
  expect_error({"Resize",
                "",
                18,
                {{"coordinate_transformation_mode", attr_string("half_pixel_symmetric")}},
                {x, kNone, f32({4}, {1, 1, 2, 2})}},
               {"not valid in opset 18"});
  expect_error({"Resize", "", 19, {{"nearest_mode", attr_string("nearest")}}, {x, kNone, f32({4}, {1, 1, 2, 2})}},
               {"nearest_mode 'nearest'"});
  expect_error(
      {"Resize", "", 19, {{"keep_aspect_ratio_policy", attr_string("fit")}}, {x, kNone, f32({4}, {1, 1, 2, 2})}},
      {"keep_aspect_ratio_policy 'fit'"});
  expect_error({"Resize", "", 19, {{"antialias", attr_int(2)}}, {x, kNone, f32({4}, {1, 1, 2, 2})}},
               {"antialias must be 0 or 1"});
  expect_error({"Resize", "", 19, {{"axes", attr_ints({2, 2})}}, {x, kNone, f32({2}, {2, 2})}}, {"more than once"});
  expect_error({"Resize",
                "",
                19,
                {{"coordinate_transformation_mode", attr_string("tf_crop_and_resize")}},
                {x, f32({3}, {0, 0, 1}), f32({4}, {1, 1, 2, 2})}},
               {"roi", "with 8 values"});
  expect_error({"Resize",
                "",
                19,
                {{"keep_aspect_ratio_policy", attr_string("not_larger")}, {"axes", attr_ints({2, 3})}},
                {f32({1, 1, 0, 2}, {}), kNone, kNone, i64({2}, {2, 2})}},
               {"empty"});
  expect_error({"Resize", "", 19, {}, {strs({1}, {"a"}), kNone, f32({1}, {2})}}, {"does not support", "string"});
}

// ---- Upsample --------------------------------------------------------------------------------

TEST(Upsample, NearestAttributeAndInputScales) {
  expect_tensor_eq(
      run1({"Upsample", "", 7, {{"scales", attr_floats({1, 1, 2, 3})}}, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}}),
      f32({1, 1, 4, 6}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4}));
  // A fractional scale: floor(3 * 1.5) = 4 outputs at x = o / 1.5, truncated: 0, 0, 1, 2.
  expect_tensor_eq(run1({"Upsample", "", 9, {}, {i64({3}, {1, 2, 3}), f32({1}, {1.5f})}}), i64({4}, {1, 1, 2, 3}));
}

TEST(Upsample, LinearIsAsymmetric) {
  expect_tensor_near(
      run1({"Upsample", "", 9, {{"mode", attr_string("linear")}}, {f32({1, 1, 1, 2}, {1, 3}), f32({4}, {1, 1, 1, 2})}}),
      f32({1, 1, 1, 4}, {1, 2, 3, 3}));
}

TEST(Upsample, ErrorsAndInference) {
  const Tensor x = f32({1, 2}, {1, 2});
  expect_error_both({"Upsample", "", 9, {}, {x, f32({2}, {1, 0.5f})}}, {"scales[1] = 0.5", ">= 1"});
  expect_error_both({"Upsample", "", 9, {}, {x, f32({1}, {2})}}, {"scales has 1 values; X has rank 2"});
  expect_error({"Upsample", "", 11, {}, {x, f32({2}, {1, 2})}}, {"removed in opset 11", "Resize"});
  expect_error({"Upsample", "", 7, {}, {x}}, {"'scales' is missing"});
  expect_error({"Upsample", "", 9, {{"mode", attr_string("cubic")}}, {x, f32({2}, {1, 2})}},
               {"not one of nearest, linear"});
  EXPECT_EQ(inferred("Upsample", 9, {}, {sym(DType::kFloat32, {"N", "3", "5"}), constant(f32({3}, {1, 1, 2.5f}))}),
            "float32[N, 3, 12]");
}

// ---- GridSample ------------------------------------------------------------------------------

// A [1, 1, 1, n] grid of (x, 0) points.
Tensor grid_x(const std::vector<float>& xs) {
  std::vector<float> v;
  for (float x : xs) v.insert(v.end(), {x, 0.f});
  return f32({1, 1, static_cast<int64_t>(xs.size()), 2}, v);
}

TEST(GridSample, BilinearAlignCorners) {
  const Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor grid = f32({1, 1, 5, 2}, {-1, -1, 1, -1, -1, 1, 1, 1, 0, 0});
  expect_tensor_near(run1({"GridSample", "", 16, {{"align_corners", attr_int(1)}}, {x, grid}}),
                     f32({1, 1, 1, 5}, {1, 2, 3, 4, 2.5f}));
  // Without align_corners the corners sit half a pixel outside: a quarter of each corner pixel.
  expect_tensor_near(run1({"GridSample", "", 16, {}, {x, grid}}), f32({1, 1, 1, 5}, {0.25f, 0.5f, 0.75f, 1, 2.5f}));
}

TEST(GridSample, PaddingModes) {
  // Row [10, 20, 30, 40], align_corners 0: x = 2g + 1.5, so g = -1.25, 1.5, 0.1 give x = -1, 4.5, 1.7.
  const Tensor x = f32({1, 1, 1, 4}, {10, 20, 30, 40});
  const Tensor grid = grid_x({-1.25f, 1.5f, 0.1f});
  auto with = [&](const char* pad) {
    return run1({"GridSample", "", 20, {{"padding_mode", attr_string(pad)}}, {x, grid}});
  };
  expect_tensor_near(with("zeros"), f32({1, 1, 1, 3}, {0, 0, 27}));
  expect_tensor_near(with("border"), f32({1, 1, 1, 3}, {10, 40, 27}));
  // Reflection about [-0.5, 3.5]: -1 -> 0, 4.5 -> 2.5.
  expect_tensor_near(with("reflection"), f32({1, 1, 1, 3}, {10, 35, 27}));
}

TEST(GridSample, NearestRoundsHalfToEven) {
  // x = 1.7, 0.5, 1.0, 4.5 -> 2, 0, 1, 4 (outside: 0 with zeros, 40 with border).
  const Tensor x = f32({1, 1, 1, 4}, {10, 20, 30, 40});
  const Tensor grid = grid_x({0.1f, -0.5f, -0.25f, 1.5f});
  expect_tensor_eq(run1({"GridSample", "", 20, {{"mode", attr_string("nearest")}}, {x, grid}}),
                   f32({1, 1, 1, 4}, {30, 10, 20, 0}));
  expect_tensor_eq(run1({"GridSample",
                         "",
                         16,
                         {{"mode", attr_string("nearest")}, {"padding_mode", attr_string("border")}},
                         {x, grid}}),
                   f32({1, 1, 1, 4}, {30, 10, 20, 40}));
}

TEST(GridSample, CubicAndDoubles) {
  // x = 1 and 2 are pixel centres (weights 0, 1, 0, 0); x = 1.5 weighs the 4 neighbours
  // k(1.5), k(0.5), k(0.5), k(1.5) = -0.09375, 0.59375, 0.59375, -0.09375.
  const Tensor x = f64({1, 1, 1, 4}, {10, 20, 30, 40});
  expect_tensor_near(run1({"GridSample", "", 20, {{"mode", attr_string("cubic")}}, {x, grid_x({-0.25f, 0.25f, 0.f})}}),
                     f64({1, 1, 1, 3}, {20, 30, 25}));
}

TEST(GridSample, Volumetric) {
  const Tensor x = f32({1, 1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  // (x, y, z) = (0, 0, 0): the centre (mean 3.5); (1, -1, 1): x index 1, y index 0, z index 1.
  const Tensor grid = f32({1, 1, 1, 2, 3}, {0, 0, 0, 1, -1, 1});
  expect_tensor_near(run1({"GridSample", "", 20, {{"align_corners", attr_int(1)}}, {x, grid}}),
                     f32({1, 1, 1, 1, 2}, {3.5f, 5}));
}

TEST(GridSample, ErrorsAndInference) {
  const Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  expect_error({"GridSample", "", 16, {}, {f32({1, 1, 1, 1, 1}, {1}), f32({1, 1, 1, 1, 3}, {0, 0, 0})}},
               {"N-d needs opset 20"});
  expect_error({"GridSample", "", 16, {{"mode", attr_string("linear")}}, {x, grid_x({0})}},
               {"not one of bilinear, nearest, bicubic"});
  expect_error({"GridSample", "", 20, {{"mode", attr_string("bilinear")}}, {x, grid_x({0})}},
               {"not one of linear, nearest, cubic"});
  expect_error({"GridSample", "", 20, {{"padding_mode", attr_string("wrap")}}, {x, grid_x({0})}},
               {"padding_mode 'wrap'"});
  expect_error({"GridSample", "", 20, {}, {x, f32({1, 1, 1, 3}, {0, 0, 0})}}, {"must end in 2"});
  expect_error({"GridSample", "", 20, {}, {x, f32({2, 1, 1, 2}, {0, 0, 0, 0})}}, {"batch size"});
  expect_error({"GridSample", "", 20, {}, {x, f32({1, 1, 2}, {0, 0})}}, {"rank of X"});
  EXPECT_EQ(inferred("GridSample", 20, {},
                     {sym(DType::kFloat32, {"N", "C", "H", "W"}), sym(DType::kFloat32, {"N", "7", "9", "2"})}),
            "float32[N, C, 7, 9]");
}

// ---- AffineGrid ------------------------------------------------------------------------------

TEST(AffineGrid, Identity2DAndAffine) {
  const Tensor identity = f32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const float t = 2.f / 3;
  expect_tensor_near(run1({"AffineGrid", "", 20, {}, {identity, i64({4}, {1, 1, 2, 3})}}),
                     f32({1, 2, 3, 2}, {-t, -0.5f, 0, -0.5f, t, -0.5f, -t, 0.5f, 0, 0.5f, t, 0.5f}));
  // x + 0.5, 2y on the corners (align_corners).
  expect_tensor_near(run1({"AffineGrid",
                           "",
                           20,
                           {{"align_corners", attr_int(1)}},
                           {f32({1, 2, 3}, {1, 0, 0.5f, 0, 2, 0}), i64({4}, {1, 1, 2, 2})}}),
                     f32({1, 2, 2, 2}, {-0.5f, -2, 1.5f, -2, -0.5f, 2, 1.5f, 2}));
}

TEST(AffineGrid, ThreeD) {
  // align_corners: W = 2 gives x = -1, 1; H = D = 1 sit at 0 (PyTorch's convention).
  expect_tensor_near(run1({"AffineGrid",
                           "",
                           20,
                           {{"align_corners", attr_int(1)}},
                           {f32({1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}), i64({5}, {1, 1, 1, 1, 2})}}),
                     f32({1, 1, 1, 2, 3}, {-1, 0, 0, 1, 0, 0}));
  // A translation in z on a 2x1x1 volume without align_corners: z = -0.5, 0.5 shifted by 1.
  expect_tensor_near(run1({"AffineGrid",
                           "",
                           20,
                           {},
                           {f32({1, 3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1}), i64({5}, {1, 1, 2, 1, 1})}}),
                     f32({1, 2, 1, 1, 3}, {0, 0, 0.5f, 0, 0, 1.5f}));
}

TEST(AffineGrid, ErrorsAndInference) {
  const Tensor theta = f32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  expect_error_both({"AffineGrid", "", 20, {}, {theta, i64({3}, {1, 1, 2})}}, {"4 ([N, C, H, W]) or 5"});
  expect_error_both({"AffineGrid", "", 20, {}, {theta, i64({5}, {1, 1, 2, 2, 2})}}, {"[N, 3, 4]"});
  expect_error_both({"AffineGrid", "", 20, {}, {theta, i64({4}, {2, 1, 2, 2})}}, {"N = 2"});
  expect_error_both({"AffineGrid", "", 20, {}, {theta, i64({4}, {1, 1, -2, 2})}}, {"negative"});
  EXPECT_EQ(inferred("AffineGrid", 20, {}, {sym(DType::kFloat32, {"N", "2", "3"}), sym(DType::kInt64, {"4"})}),
            "float32[N, ?, ?, 2]");
  EXPECT_EQ(inferred("AffineGrid", 20, {}, {sym(DType::kFloat32, {"N", "2", "3"}), constant(i64({4}, {2, 3, 5, 7}))}),
            "float32[2, 5, 7, 2]");
}

// ---- ConvTranspose ---------------------------------------------------------------------------

Tensor convt_1d(const Attrs& attrs, const std::vector<float>& w = {1, 1}) {
  return run1(
      {"ConvTranspose", "", 17, attrs, {f32({1, 1, 3}, {1, 2, 3}), f32({1, 1, static_cast<int64_t>(w.size())}, w)}});
}

TEST(ConvTranspose, OneDimensionalGeometry) {
  expect_tensor_eq(convt_1d({}), f32({1, 1, 4}, {1, 3, 5, 3}));
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}}), f32({1, 1, 6}, {1, 1, 2, 2, 3, 3}));
  expect_tensor_eq(convt_1d({{"pads", attr_ints({1, 1})}}), f32({1, 1, 2}, {3, 5}));
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"output_padding", attr_ints({1})}}),
                   f32({1, 1, 7}, {1, 1, 2, 2, 3, 3, 0}));
  expect_tensor_eq(convt_1d({{"dilations", attr_ints({2})}}), f32({1, 1, 5}, {1, 2, 4, 2, 3}));
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"auto_pad", attr_string("VALID")}}),
                   f32({1, 1, 6}, {1, 1, 2, 2, 3, 3}));
}

TEST(ConvTranspose, OutputShapeAndSamePadding) {
  // Natural length 6: a longer output_shape extends at the end; a shorter one drops the extra
  // element at the start (total padding 1: begin = 1 - 1/2 = 1).
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"output_shape", attr_ints({7})}}),
                   f32({1, 1, 7}, {1, 1, 2, 2, 3, 3, 0}));
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"output_shape", attr_ints({5})}}),
                   f32({1, 1, 5}, {1, 2, 2, 3, 3}));
  // Kernel 3, stride 2: natural [1, 1, 3, 2, 5, 3, 3] cut to 3 * 2 = 6; SAME_UPPER drops the end.
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"auto_pad", attr_string("SAME_UPPER")}}, {1, 1, 1}),
                   f32({1, 1, 6}, {1, 1, 3, 2, 5, 3}));
  expect_tensor_eq(convt_1d({{"strides", attr_ints({2})}, {"auto_pad", attr_string("SAME_LOWER")}}, {1, 1, 1}),
                   f32({1, 1, 6}, {1, 3, 2, 5, 3, 3}));
}

TEST(ConvTranspose, ChannelsGroupsBiasAnd2D) {
  expect_tensor_eq(run1({"ConvTranspose", "", 17, {}, {f32({1, 1, 2}, {1, 2}), f32({1, 2, 1}, {3, 4})}}),
                   f32({1, 2, 2}, {3, 6, 4, 8}));
  expect_tensor_eq(run1({"ConvTranspose",
                         "",
                         17,
                         {{"group", attr_int(2)}},
                         {f32({1, 2, 2}, {1, 2, 3, 4}), f32({2, 1, 1}, {2, 3}), f32({2}, {10, 20})}}),
                   f32({1, 2, 2}, {12, 14, 29, 32}));
  expect_tensor_eq(
      run1({"ConvTranspose", "", 17, {}, {f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 2, 2}, {1, 1, 1, 1})}}),
      f32({1, 1, 3, 3}, {1, 3, 2, 4, 10, 6, 3, 7, 4}));
  expect_tensor_eq(run1({"ConvTranspose", "", 17, {}, {f16({1, 1, 2}, {1, 2}), f16({1, 1, 2}, {1, 1})}}),
                   f16({1, 1, 3}, {1, 3, 2}));
}

TEST(ConvTranspose, ErrorsAndInference) {
  const Tensor x = f32({1, 1, 3}, {1, 2, 3});
  expect_error({"ConvTranspose", "", 17, {}, {f32({1, 2, 3}, std::vector<float>(6, 0)), f32({1, 1, 2}, {1, 1})}},
               {"channels"});
  expect_error({"ConvTranspose", "", 17, {{"output_padding", attr_ints({1})}}, {x, f32({1, 1, 2}, {1, 1})}},
               {"output_padding"});
  expect_error({"ConvTranspose", "", 17, {{"auto_pad", attr_string("SAME")}}, {x, f32({1, 1, 2}, {1, 1})}},
               {"auto_pad 'SAME'"});
  expect_error({"ConvTranspose", "", 17, {{"pads", attr_ints({2, 2})}}, {f32({1, 1, 1}, {1}), f32({1, 1, 1}, {1})}},
               {"negative"});
  expect_error({"ConvTranspose", "", 17, {{"kernel_shape", attr_ints({3})}}, {x, f32({1, 1, 2}, {1, 1})}},
               {"does not match W"});
  expect_error({"ConvTranspose", "", 17, {{"group", attr_int(0)}}, {x, f32({1, 1, 2}, {1, 1})}},
               {"group must be positive"});
  expect_error({"ConvTranspose", "", 17, {{"strides", attr_ints({int64_t{1} << 62})}}, {x, f32({1, 1, 2}, {1, 1})}},
               {"too large"});
  expect_error({"ConvTranspose", "", 17, {}, {x, f32({1, 1, 2}, {1, 1}), f32({2}, {1, 1})}}, {"B "});
  expect_error({"ConvTranspose", "", 17, {}, {i64({1, 1, 3}, {1, 2, 3}), i64({1, 1, 2}, {1, 1})}},
               {"does not support", "int64"});
  EXPECT_EQ(inferred("ConvTranspose", 17, {{"strides", attr_ints({2, 2})}},
                     {sym(DType::kFloat32, {"N", "1", "3", "3"}), sym(DType::kFloat32, {"1", "2", "3", "3"})}),
            "float32[N, 2, 7, 7]");
  EXPECT_EQ(inferred("ConvTranspose", 17, {},
                     {sym(DType::kFloat32, {"N", "1", "H", "3"}), sym(DType::kFloat32, {"1", "2", "3", "3"})}),
            "float32[N, 2, ?, 5]");
}

// ---- DeformConv ------------------------------------------------------------------------------

const Tensor kDcX = f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
const Tensor kDcW = f32({1, 1, 2, 2}, {1, 1, 1, 1});
Tensor dc_offset(float dy, float dx) {
  std::vector<float> v;
  for (int k = 0; k < 4; ++k) {
    v.insert(v.end(), {dy, dy, dy, dy});  // channel 2k: dy at each of the 2x2 outputs
    v.insert(v.end(), {dx, dx, dx, dx});  // channel 2k + 1: dx
  }
  return f32({1, 8, 2, 2}, v);
}

TEST(DeformConv, OffsetsMoveTheTaps) {
  // Zero offsets: a plain 2x2 box sum.
  expect_tensor_eq(run1({"DeformConv", "", 19, {}, {kDcX, kDcW, dc_offset(0, 0)}}),
                   f32({1, 1, 2, 2}, {12, 16, 24, 28}));
  // Every tap one column right: the right output column reads one column outside (zero).
  expect_tensor_eq(run1({"DeformConv", "", 19, {}, {kDcX, kDcW, dc_offset(0, 1)}}), f32({1, 1, 2, 2}, {16, 9, 28, 15}));
  // Half a row down: bilinear between rows (the bottom taps mix row 2 with the zero row 3).
  expect_tensor_near(run1({"DeformConv", "", 19, {}, {kDcX, kDcW, dc_offset(0.5f, 0)}}),
                     f32({1, 1, 2, 2}, {18, 22, 19.5f, 22.5f}));
  // Mask 0.5 and bias 1.
  expect_tensor_eq(
      run1({"DeformConv",
            "",
            19,
            {},
            {kDcX, kDcW, dc_offset(0, 0), f32({1}, {1}), f32({1, 4, 2, 2}, std::vector<float>(16, 0.5f))}}),
      f32({1, 1, 2, 2}, {7, 9, 13, 15}));
}

TEST(DeformConv, ErrorsAndInference) {
  expect_error({"DeformConv", "", 19, {}, {kDcX, kDcW, f32({1, 4, 2, 2}, std::vector<float>(16, 0))}},
               {"offset", "[1, 8, 2, 2]"});
  expect_error({"DeformConv", "", 19, {{"offset_group", attr_int(2)}}, {kDcX, kDcW, dc_offset(0, 0)}},
               {"not divisible by offset_group 2"});
  expect_error({"DeformConv", "", 19, {}, {kDcX, kDcW, dc_offset(0, 0), kNone, f32({1, 4, 1, 1}, {1, 1, 1, 1})}},
               {"mask", "[1, 4, 2, 2]"});
  expect_error({"DeformConv", "", 19, {}, {kDcX, f32({1, 2, 2, 2}, std::vector<float>(8, 1)), dc_offset(0, 0)}},
               {"channels"});
  expect_error({"DeformConv", "", 19, {{"offset_group", attr_int(0)}}, {kDcX, kDcW, dc_offset(0, 0)}},
               {"offset_group must be positive"});
  EXPECT_EQ(inferred("DeformConv", 19, {},
                     {sym(DType::kFloat32, {"N", "1", "5", "5"}), sym(DType::kFloat32, {"2", "1", "3", "3"}),
                      sym(DType::kFloat32, {"N", "18", "3", "3"})}),
            "float32[N, 2, 3, 3]");
  EXPECT_EQ(inferred("DeformConv", 19, {},
                     {sym(DType::kFloat32, {"N", "1", "H", "5"}), sym(DType::kFloat32, {"2", "1", "3", "3"}),
                      sym(DType::kFloat32, {"N", "18", "?", "3"})}),
            "float32[N, 2, ?, 3]");
}

}  // namespace
}  // namespace hi::test
