// BatchNormalization (inference), LayerNormalization, InstanceNormalization and LRN.
// Expected values were worked out independently with numpy (float64).
#include <cmath>

#include "ops/nn_test_util.h"
#include "ops/op_test_util.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

std::vector<Tensor> run(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << " (opset " << c.opset << "): " << r.status().to_string();
  return r.is_ok() ? r.value() : std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
}
Tensor run1(const OpCase& c) { return run(c)[0]; }

void expect_error(const OpCase& c, StatusCode code, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

// (((arange(24) * 5) % 9) - 4) * 0.5 as [2, 3, 2, 2].
const Tensor kX = f32({2, 3, 2, 2}, {-2, 0.5f, -1.5f, 1,     -1, 1.5f, -0.5f, 2,    0,     -2, 0.5f, -1.5f,
                                     1,  -1,   1.5f,  -0.5f, 2,  0,    -2,    0.5f, -1.5f, 1,  -1,   1.5f});
const Tensor kScale = f32({3}, {1, 0.5f, 2});
const Tensor kBias = f32({3}, {0, 1, -1});
const Tensor kMean = f32({3}, {0.5f, -0.25f, 0});
const Tensor kVar = f32({3}, {1, 4, 0.25f});

// ---- BatchNormalization ------------------------------------------------------------------

const Tensor kBnExpected =
    f32({2, 3, 2, 2},
        {-2.4999875f, 0,           -1.99999f,    0.4999975f,  0.812500234f, 1.43749945f, 0.937500078f, 1.5624993f,
         -1,          -8.99984f,   0.999960001f, -6.99988f,   0.4999975f,   -1.4999925f, 0.999995f,    -0.999995f,
         1.5624993f,  1.06249992f, 0.562500547f, 1.18749977f, -6.99988f,    2.99992f,    -4.99992f,    4.99988f});

TEST(BatchNormalization, InferenceAcrossOpsets) {
  for (int64_t opset : {7, 9, 14, 15}) {
    SCOPED_TRACE(opset);
    expect_tensor_near(run1({"BatchNormalization", "", opset, {}, {kX, kScale, kBias, kMean, kVar}}), kBnExpected);
  }
  expect_tensor_near(run1({"BatchNormalization", "", 6, {{"is_test", attr_int(1)}}, {kX, kScale, kBias, kMean, kVar}}),
                     kBnExpected);
  expect_tensor_near(run1({"BatchNormalization",
                           "",
                           15,
                           {{"epsilon", attr_float(0.1f)}, {"momentum", attr_float(0.5f)}},
                           {kX, kScale, kBias, kMean, kVar}}),
                     f32({2, 3, 2, 2}, {-2.38365647f, 0,
                                        -1.90692518f, 0.476731295f,
                                        0.814800701f, 1.4321317f,
                                        0.9382669f,   1.5555979f,
                                        -1,           -7.76123404f,
                                        0.690308509f, -6.07092553f,
                                        0.476731295f, -1.43019388f,
                                        0.953462589f, -0.953462589f,
                                        1.5555979f,   1.0617331f,
                                        0.567868301f, 1.1851993f,
                                        -6.07092553f, 2.38061702f,
                                        -4.38061702f, 4.07092553f}));
  // training_mode=0 given explicitly, and empty names for the unused outputs.
  OpCase c{"BatchNormalization", "", 15, {{"training_mode", attr_int(0)}}, {kX, kScale, kBias, kMean, kVar}};
  expect_tensor_near(run1(c), kBnExpected);
}

TEST(BatchNormalization, RankOneAndTwoInputs) {
  expect_tensor_near(run1({"BatchNormalization",
                           "",
                           15,
                           {},
                           {f32({2, 3}, {-2, 0.5f, -1.5f, 1, -1, 1.5f}), kScale, kBias, kMean, kVar}}),
                     f32({2, 3}, {-2.4999875f, 1.18749977f, -6.99988f, 0.4999975f, 0.812500234f, 4.99988f}));
  // [N] with one implicit channel.
  expect_tensor_near(run1({"BatchNormalization",
                           "",
                           15,
                           {},
                           {f32({3}, {1, -2, 3}), f32({1}, {2}), f32({1}, {1}), f32({1}, {0.5f}), f32({1}, {4})}}),
                     f32({3}, {1.49999938f, -1.49999688f, 3.49999688f}));
  EXPECT_EQ(run1({"BatchNormalization", "", 15, {}, {f32({0, 3, 2}, {}), kScale, kBias, kMean, kVar}}).shape(),
            (Shape{0, 3, 2}));
}

TEST(BatchNormalization, NonSpatialBeforeOpset9) {
  // spatial=0: statistics per (C, H, W) element.
  const Tensor sp = f32({3, 2, 2}, {0.5f, 0.75f, 1, 1.25f, 1.5f, 0.5f, 0.75f, 1, 1.25f, 1.5f, 0.5f, 0.75f});
  Tensor mean = sp.clone(), bias = sp.clone();
  for (int64_t i = 0; i < 12; ++i) mean.data<float>()[i] *= 0.1f, bias.data<float>()[i] -= 1;
  expect_tensor_near(
      run1({"BatchNormalization", "", 7, {{"spatial", attr_int(0)}}, {kX, sp, bias, mean, sp}}),
      f32({2, 3, 2, 2}, {-1.94955441f,  0.118058343f, -1.599992f,   1.22827583f,   -0.908451907f, 0.52529458f,
                         -0.747961287f, 1.8999905f,   0.11024631f,  -2.1331927f,   -0.18180513f,  -1.61398092f,
                         0.171744725f,  -1.1809711f,  1.399993f,    -0.448768448f, 2.76577046f,   -0.535354986f,
                         -2.04699073f,  0.399998f,    -1.56679796f, 1.54102967f,   -1.2424547f,   0.984077973f}),
      1e-5, 1e-5);
}

TEST(BatchNormalization, MixedTypesFromOpset15) {
  // float16 X with float32 scale/B and float64 mean/var.
  const Tensor y = run1({"BatchNormalization",
                         "",
                         15,
                         {},
                         {cast_f32(kX, DType::kFloat16), kScale, kBias, cast_f32(kMean, DType::kFloat64),
                          cast_f32(kVar, DType::kFloat64)}});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  expect_tensor_near(as_f32(y), kBnExpected, 2e-3, 2e-3);
  const Tensor b = run1({"BatchNormalization",
                         "",
                         15,
                         {},
                         {cast_f32(kX, DType::kBFloat16), cast_f32(kScale, DType::kBFloat16),
                          cast_f32(kBias, DType::kBFloat16), kMean, kVar}});
  expect_tensor_near(as_f32(b), kBnExpected, 1e-2, 1e-2);
}

TEST(BatchNormalization, Errors) {
  // training_mode=1 is supported (tests/ops/random_test.cc); other values are not modes.
  expect_error({"BatchNormalization", "", 15, {{"training_mode", attr_int(2)}}, {kX, kScale, kBias, kMean, kVar}},
               StatusCode::kInvalidModel, "'training_mode' must be 0 or 1");
  expect_error({"BatchNormalization", "", 15, {}, {kX, kScale, kBias, kMean, kVar}, 3}, StatusCode::kUnsupported,
               "training output");
  expect_error({"BatchNormalization", "", 6, {}, {kX, kScale, kBias, kMean, kVar}}, StatusCode::kUnsupported,
               "is_test=0");
  expect_error({"BatchNormalization", "", 9, {}, {kX, kScale, kBias, kMean, kVar}, 5}, StatusCode::kUnsupported,
               "training output");
  expect_error({"BatchNormalization", "", 15, {}, {kX, kScale, kBias, kMean, kVar}, 4}, StatusCode::kInvalidModel,
               "at most 3 outputs");
  expect_error({"BatchNormalization", "", 15, {}, {kX, kScale, kBias, kMean}}, StatusCode::kInvalidModel,
               "needs 5 inputs");
  expect_error({"BatchNormalization", "", 15, {}, {kX, f32({2}, {1, 1}), kBias, kMean, kVar}},
               StatusCode::kInvalidModel, "scale float32[2] must have shape [3]");
  expect_error({"BatchNormalization", "", 7, {{"spatial", attr_int(0)}}, {kX, kScale, kBias, kMean, kVar}},
               StatusCode::kInvalidModel, "must have shape [3, 2, 2]");
  expect_error({"BatchNormalization",
                "",
                14,
                {},
                {kX, cast_f32(kScale, DType::kFloat64), cast_f32(kBias, DType::kFloat64), kMean, kVar}},
               StatusCode::kInvalidModel, "only from opset 15");
  expect_error({"BatchNormalization", "", 15, {}, {kX, kScale, cast_f32(kBias, DType::kFloat64), kMean, kVar}},
               StatusCode::kInvalidModel, "scale is float32 but B is float64");
  expect_error({"BatchNormalization", "", 15, {}, {i64({1, 3}, {1, 2, 3}), kScale, kBias, kMean, kVar}},
               StatusCode::kUnsupported, "int64");
}

// ---- LayerNormalization ------------------------------------------------------------------

const Tensor kX3 = kX.reshaped({2, 3, 4});

TEST(LayerNormalization, LastAxisWithStatistics) {
  auto y =
      run({"LayerNormalization", "", 17, {}, {kX3, f32({4}, {1, 2, 0.5f, -1}), f32({4}, {0, 0.1f, 0.2f, 0.3f})}, 3});
  expect_tensor_near(
      y[0], f32({2, 3, 4}, {-1.17669319f,  1.66892425f,   -0.192231063f, -0.87669319f, -1.17669319f,  1.66892425f,
                            -0.192231063f, -0.87669319f,  0.727603451f,  -2.32534484f, 0.806336209f,  1.02760345f,
                            0.727603451f,  -2.32534484f,  0.806336209f,  1.02760345f,  1.31055288f,   -0.0747403845f,
                            -0.542646634f, 0.0378894233f, -1.17669319f,  1.66892425f,  -0.192231063f, -0.87669319f}));
  expect_tensor_near(y[1], f32({2, 3, 1}, {-0.5f, 0.5f, -0.75f, 0.25f, 0.125f, 0}));
  expect_tensor_near(
      y[2], f32({2, 3, 1}, {0.784462127f, 0.784462127f, 0.970137935f, 0.970137935f, 0.698961538f, 0.784462127f}));
}

TEST(LayerNormalization, MiddleAxisBroadcastScaleNoBias) {
  auto y = run({"LayerNormalization",
                "",
                17,
                {{"axis", attr_int(-2)}, {"epsilon", attr_float(0.1f)}},
                {kX3, f32({3, 1}, {1, 2, 0.5f})},
                3});
  expect_tensor_near(
      y[0], f32({2, 3, 4}, {-1.29393187f, 0.554542229f,  -0.924237049f, 0.924237049f,  -1.10908446f,  2.58786374f,
                            -0.36969482f, 3.32725338f,   0.0924237049f, -0.646965934f, 0.277271115f,  -0.462118525f,
                            0.673367517f, -0.865758236f, 1.05814895f,   -0.480976798f, 2.88586079f,   -0.192390719f,
                            -3.27064222f, 0.577172157f,  -0.625269837f, 0.336683758f,  -0.432879118f, 0.529074477f}));
  expect_tensor_near(y[1], f32({2, 1, 1}, {-0.25f, 0.125f}));
  expect_tensor_near(y[2], f32({2, 1, 1}, {0.739389639f, 0.769562876f}));
}

TEST(LayerNormalization, AxisZeroAndOptionalOutputsSkipped) {
  OpCase c{"LayerNormalization", "", 17, {{"axis", attr_int(0)}}, {kX3, f32({1}, {1.5f}), f32({1}, {-1})}, 3};
  auto y = run(c);
  expect_tensor_near(
      y[0], f32({2, 3, 4}, {-3.2329225f,  -0.351732177f, -2.65668444f,  0.224505888f, -2.08044637f,  0.800743953f,
                            -1.50420831f, 1.37698202f,   -0.927970242f, -3.2329225f,  -0.351732177f, -2.65668444f,
                            0.224505888f, -2.08044637f,  0.800743953f,  -1.50420831f, 1.37698202f,   -0.927970242f,
                            -3.2329225f,  -0.351732177f, -2.65668444f,  0.224505888f, -2.08044637f,  0.800743953f}));
  expect_tensor_near(y[1], f32({1, 1, 1}, {-0.0625f}));
  expect_tensor_near(y[2], f32({1, 1, 1}, {0.76831742f}));
  // Only Y requested.
  c.num_outputs = 1;
  EXPECT_EQ(run(c).size(), 1u);
}

TEST(LayerNormalization, HalfInputsAndStashType) {
  auto y = run({"LayerNormalization",
                "",
                17,
                {},
                {cast_f32(kX3, DType::kFloat16), cast_f32(f32({4}, {1, 1, 1, 1}), DType::kFloat16)},
                2});
  ASSERT_EQ(y[0].dtype(), DType::kFloat16);
  EXPECT_EQ(y[1].dtype(), DType::kFloat32);  // Mean has stash_type's type
  expect_tensor_near(as_f32(y[1]), f32({2, 3, 1}, {-0.5f, 0.5f, -0.75f, 0.25f, 0.125f, 0}));
  auto b = run({"LayerNormalization", "", 17, {{"stash_type", attr_int(16)}}, {kX3, f32({4}, {1, 1, 1, 1})}, 3});
  EXPECT_EQ(b[2].dtype(), DType::kBFloat16);
  expect_tensor_near(
      as_f32(b[2]),
      f32({2, 3, 1}, {0.784462127f, 0.784462127f, 0.970137935f, 0.970137935f, 0.698961538f, 0.784462127f}), 1e-2, 1e-2);
}

// Awkward shape against a direct computation.
TEST(LayerNormalization, RandomAwkwardShapeMatchesDirectLoop) {
  const Tensor x = random_f32({3, 5, 7}, 21, -3, 3);
  const Tensor s = random_f32({7}, 22), b = random_f32({5, 7}, 23);
  const Tensor y = run1({"LayerNormalization", "", 17, {{"axis", attr_int(1)}}, {x, s, b}});
  for (int a = 0; a < 3; ++a) {
    double mean = 0, var = 0;
    for (int i = 0; i < 35; ++i) mean += x.data<float>()[a * 35 + i];
    mean /= 35;
    for (int i = 0; i < 35; ++i) var += (x.data<float>()[a * 35 + i] - mean) * (x.data<float>()[a * 35 + i] - mean);
    var /= 35;
    for (int i = 0; i < 35; ++i) {
      const double e =
          (x.data<float>()[a * 35 + i] - mean) / std::sqrt(var + 1e-5) * s.data<float>()[i % 7] + b.data<float>()[i];
      EXPECT_NEAR(y.data<float>()[a * 35 + i], e, 1e-5) << a << " " << i;
    }
  }
}

TEST(LayerNormalization, Errors) {
  const Tensor s4 = f32({4}, {1, 1, 1, 1});
  expect_error({"LayerNormalization", "", 17, {{"axis", attr_int(3)}}, {kX3, s4}}, StatusCode::kInvalidModel,
               "axis 3 is out of range");
  expect_error({"LayerNormalization", "", 17, {}, {kX3, f32({3}, {1, 1, 1})}}, StatusCode::kInvalidModel,
               "Scale float32[3] does not broadcast");
  expect_error({"LayerNormalization", "", 17, {}, {kX3, s4, f32({2, 4}, {0, 0, 0, 0, 0, 0, 0, 0})}},
               StatusCode::kInvalidModel, "B float32[2, 4] does not broadcast");
  expect_error({"LayerNormalization", "", 17, {}, {kX3, cast_f32(s4, DType::kFloat64)}}, StatusCode::kInvalidModel,
               "Scale is float64");
  expect_error({"LayerNormalization", "", 17, {{"stash_type", attr_int(11)}}, {kX3, s4}}, StatusCode::kInvalidModel,
               "stash_type");
  expect_error({"LayerNormalization", "", 17, {}, {kX3}}, StatusCode::kInvalidModel, "needs 2 inputs");
  expect_error({"LayerNormalization", "", 16, {}, {kX3, s4}}, StatusCode::kUnsupported, "LayerNormalization");
  expect_error({"LayerNormalization", "", 17, {}, {f32({}, {1}), f32({}, {1})}}, StatusCode::kInvalidModel,
               "out of range for rank 0");
}

// ---- InstanceNormalization ---------------------------------------------------------------

TEST(InstanceNormalization, PerPlane) {
  expect_tensor_near(
      run1({"InstanceNormalization", "", 6, {}, {kX, kScale, kBias}}),
      f32({2, 3, 2, 2}, {-1.17669319f, 0.784462127f, -0.784462127f, 1.17669319f,   0.411653405f, 1.39223106f,
                         0.607768937f, 1.5883466f,   0.455206902f,  -3.42534484f,  1.42534484f,  -2.4552069f,
                         0.727603451f, -1.21267242f, 1.21267242f,   -0.727603451f, 1.65527644f,  0.956314904f,
                         0.257353366f, 1.13105529f,  -3.35338638f,  0.568924254f,  -2.56892425f, 1.35338638f}));
  expect_tensor_near(run1({"InstanceNormalization", "", 6, {{"epsilon", attr_float(0.5f)}}, {kX, kScale, kBias}}),
                     f32({2, 3, 2, 2}, {-1.02899151f,
                                        0.685994341f,
                                        -0.685994341f,
                                        1.02899151f,
                                        0.485504245f,
                                        1.34299717f,
                                        0.65700283f,
                                        1.51449576f,
                                        0.2f,
                                        -3,
                                        1,
                                        -2.2f,
                                        0.6f,
                                        -1,
                                        1,
                                        -0.6f,
                                        1.58744534f,
                                        0.960836978f,
                                        0.334228618f,
                                        1.11748907f,
                                        -3.05798302f,
                                        0.371988681f,
                                        -2.37198868f,
                                        1.05798302f}));
  // One spatial element per plane: the output is B.
  expect_tensor_near(run1({"InstanceNormalization", "", 6, {}, {f32({1, 3, 1}, {5, 6, 7}), kScale, kBias}}),
                     f32({1, 3, 1}, {0, 1, -1}));
  const Tensor h =
      run1({"InstanceNormalization",
            "",
            6,
            {},
            {cast_f32(kX, DType::kFloat16), cast_f32(kScale, DType::kFloat16), cast_f32(kBias, DType::kFloat16)}});
  EXPECT_EQ(h.dtype(), DType::kFloat16);
}

TEST(InstanceNormalization, Errors) {
  expect_error({"InstanceNormalization", "", 6, {}, {kX, f32({2}, {1, 1}), kBias}}, StatusCode::kInvalidModel,
               "scale float32[2] must be [C]");
  expect_error({"InstanceNormalization", "", 6, {}, {kX, kScale, cast_f32(kBias, DType::kFloat64)}},
               StatusCode::kInvalidModel, "B is float64");
  expect_error({"InstanceNormalization", "", 6, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), kScale, kBias}},
               StatusCode::kInvalidModel, "rank >= 3");
  expect_error({"InstanceNormalization", "", 6, {}, {kX, kScale}}, StatusCode::kInvalidModel, "needs 3 inputs");
}

// ---- LRN ---------------------------------------------------------------------------------

TEST(LRN, AcrossChannels) {
  const Tensor x =
      f32({2, 3, 2, 2}, {-8, 2, -6, 4, -4, 6, -2, 8, 0, -8, 2, -6, 4, -4, 6, -2, 8, 0, -8, 2, -6, 4, -4, 6});
  expect_tensor_near(run1({"LRN", "", 13, {{"size", attr_int(3)}}, {x}}),
                     f32({2, 3, 2, 2}, {-7.98403724f, 1.99800233f,  -5.99400699f,
                                        3.99201862f,  -3.99201862f, 5.98444717f,
                                        -1.99780282f, 7.97687822f,  0,
                                        -7.98005816f, 1.99960009f,  -5.98504362f,
                                        3.99201862f,  -3.99840075f, 5.98504362f,
                                        -1.99960009f, 7.97687822f,  0,
                                        -7.97687822f, 1.99780282f,  -5.98504362f,
                                        3.99840075f,  -3.99201862f, 5.99400699f}));
  // Even size: the window is [c - 0, c + 1].
  expect_tensor_near(
      run1({"LRN",
            "",
            1,
            {{"size", attr_int(2)}, {"alpha", attr_float(0.5f)}, {"beta", attr_float(1)}, {"bias", attr_float(2)}},
            {x}}),
      f32({2, 3, 2, 2}, {-0.363636364f, 0.166666667f,  -0.5f,
                         0.181818182f,  -0.666666667f, 0.222222222f,
                         -0.5f,         0.296296296f,  0,
                         -0.444444444f, 0.666666667f,  -0.545454545f,
                         0.181818182f,  -0.666666667f, 0.222222222f,
                         -0.5f,         0.296296296f,  0,
                         -0.363636364f, 0.166666667f,  -0.545454545f,
                         0.666666667f,  -0.666666667f, 0.545454545f}));
  // A window wider than the channel count.
  expect_tensor_near(
      run1({"LRN", "", 13, {{"size", attr_int(5)}, {"alpha", attr_float(1)}, {"beta", attr_float(0.5f)}}, {x}}),
      f32({2, 3, 2, 2}, {-1.940285f,    0.428352937f,  -1.91662969f,
                         0.813115628f,  -0.9701425f,   1.28505881f,
                         -0.638876565f, 1.62623126f,   0,
                         -1.71341175f,  0.638876565f,  -1.21967344f,
                         0.813115628f,  -1.47042924f,  1.21967344f,
                         -0.638876565f, 1.62623126f,   0,
                         -1.62623126f,  0.638876565f,  -1.21967344f,
                         1.47042924f,   -0.813115628f, 1.91662969f}));
}

TEST(LRN, Errors) {
  expect_error({"LRN", "", 13, {}, {kX}}, StatusCode::kInvalidModel, "'size' is missing");
  expect_error({"LRN", "", 13, {{"size", attr_int(0)}}, {kX}}, StatusCode::kInvalidModel, "size must be positive");
  expect_error({"LRN", "", 13, {{"size", attr_int(3)}}, {f32({2, 2}, {1, 2, 3, 4})}}, StatusCode::kInvalidModel,
               "rank >= 3");
  expect_error({"LRN", "", 13, {{"size", attr_int(3)}}, {i64({1, 1, 1}, {1})}}, StatusCode::kUnsupported, "int64");
}

// ---- Static inference over symbolic shapes ------------------------------------------------

TEST(NormInference, SymbolicDimsStaySymbolic) {
  const ir::ValueType x = ir::ValueType::tensor(DType::kFloat16, dims({"B", "T", "8"}));
  const ir::ValueType s = ir::ValueType::tensor(DType::kFloat16, dims({"8"}));
  EXPECT_EQ(inferred({"LayerNormalization", "", 17, {}, {}, 3}, {x, s}, 0), "float16[B, T, 8]");
  EXPECT_EQ(inferred({"LayerNormalization", "", 17, {}, {}, 3}, {x, s}, 1), "float32[B, T, 1]");
  EXPECT_EQ(inferred({"LayerNormalization", "", 17, {{"axis", attr_int(1)}}, {}, 3}, {x, s}, 2), "float32[B, 1, 1]");
  const ir::ValueType img = ir::ValueType::tensor(DType::kFloat32, dims({"N", "3", "H", "W"}));
  const ir::ValueType c3 = ir::ValueType::tensor(DType::kFloat32, dims({"3"}));
  EXPECT_EQ(inferred({"BatchNormalization", "", 15, {}, {}}, {img, c3, c3, c3, c3}), "float32[N, 3, H, W]");
  EXPECT_EQ(inferred({"InstanceNormalization", "", 6, {}, {}}, {img, c3, c3}), "float32[N, 3, H, W]");
  EXPECT_EQ(inferred({"LRN", "", 13, {{"size", attr_int(3)}}, {}}, {img}), "float32[N, 3, H, W]");
  // A symbolic channel count accepts any parameter length.
  const ir::ValueType anyc = ir::ValueType::tensor(DType::kFloat32, dims({"N", "C", "H", "W"}));
  EXPECT_EQ(inferred({"BatchNormalization", "", 15, {}, {}}, {anyc, c3, c3, c3, c3}), "float32[N, C, H, W]");
  EXPECT_NE(inferred({"BatchNormalization", "", 15, {}, {}},
                     {img, c3, c3, c3, ir::ValueType::tensor(DType::kFloat32, dims({"4"}))})
                .find("input_var float32[4] must have shape [3]"),
            std::string::npos);
}

}  // namespace
}  // namespace hi::test
