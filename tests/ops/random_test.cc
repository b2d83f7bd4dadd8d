// The random ops (RandomUniform, RandomNormal, their *Like forms, Bernoulli), Dropout in
// training mode and BatchNormalization's training mode. Seeded draws follow numpy's legacy
// RandomState: the expected numbers are np.random.RandomState(0).rand(6) and .randn(4).
// BatchNormalization's expected values are worked out by hand in the comments.
#include <cmath>

#include "ops/op_test_util.h"

namespace hi::test {
namespace {

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

Tensor run_unfolded(const OpCase& c) {
  auto r = run_op_once(c, false);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

void expect_error(const OpCase& c, StatusCode code, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

Tensor bools(const Shape& shape, const std::vector<int>& v) {
  Tensor t = Tensor::empty(DType::kBool, shape);
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i] != 0;
  return t;
}

// np.random.RandomState(0).rand(6)
const std::vector<double> kUniform0 = {0.5488135, 0.71518937, 0.60276338, 0.54488318, 0.4236548, 0.64589411};

// ---- RandomUniform / RandomNormal ----------------------------------------------------------------

TEST(Random, SeededUniformAndNormalFollowNumpy) {
  std::vector<float> u;
  for (double v : kUniform0) u.push_back(float(-1 + 4 * v));
  expect_tensor_near(
      run1({"RandomUniform",
            "",
            22,
            {{"shape", attr_ints({2, 3})}, {"seed", attr_float(0)}, {"low", attr_float(-1)}, {"high", attr_float(3)}},
            {}}),
      f32({2, 3}, u));
  // np.random.RandomState(0).randn(4) = [1.76405235, 0.40015721, 0.97873798, 2.2408932]; mean 1, scale 2.
  expect_tensor_near(
      run1({"RandomNormal",
            "",
            22,
            {{"shape", attr_ints({4})}, {"seed", attr_float(0)}, {"mean", attr_float(1)}, {"scale", attr_float(2)}},
            {}}),
      f32({4}, {4.5281047f, 1.80031442f, 2.95747596f, 5.4817864f}));
}

TEST(Random, UnseededDrawsDifferAndHaveTheRightMoments) {
  const OpCase c{"RandomNormal", "", 22, {{"shape", attr_ints({20000})}, {"dtype", attr_int(11)}}, {}};
  const Tensor a = run_unfolded(c), b = run_unfolded(c);
  ASSERT_EQ(a.dtype(), DType::kFloat64);
  double sum = 0, sq = 0;
  int64_t same = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double v = a.data<double>()[i];
    sum += v;
    sq += v * v;
    same += v == b.data<double>()[i];
  }
  EXPECT_LT(same, 10);
  EXPECT_NEAR(sum / 20000, 0, 0.05);
  EXPECT_NEAR(sq / 20000, 1, 0.05);
  const Tensor u = run_unfolded(
      {"RandomUniform", "", 22, {{"shape", attr_ints({1000})}, {"low", attr_float(2)}, {"high", attr_float(5)}}, {}});
  for (int64_t i = 0; i < u.numel(); ++i) {
    EXPECT_GE(u.data<float>()[i], 2.f);
    EXPECT_LE(u.data<float>()[i], 5.f);
  }
}

TEST(Random, LikeOpsTakeShapeAndTypeFromTheInput) {
  Tensor h = Tensor::empty(DType::kFloat16, {2, 3});
  const Tensor y = run1({"RandomUniformLike", "", 22, {{"seed", attr_float(0)}}, {h}});
  ASSERT_EQ(y.dtype(), DType::kFloat16);
  ASSERT_EQ(y.shape(), (Shape{2, 3}));
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(float(y.data<Float16>()[i]), kUniform0[size_t(i)], 1e-3);
  // An integer input needs 'dtype'.
  const Tensor z =
      run1({"RandomNormalLike", "", 22, {{"dtype", attr_int(1)}, {"seed", attr_float(0)}}, {i64({2}, {7, 7})}});
  expect_tensor_near(z, f32({2}, {1.76405235f, 0.40015721f}));
  expect_error({"RandomNormalLike", "", 22, {}, {i64({2}, {7, 7})}}, StatusCode::kUnsupported, "no 'dtype' attribute");
}

TEST(Random, Errors) {
  expect_error({"RandomUniform", "", 22, {}, {}}, StatusCode::kInvalidModel, "needs the attribute 'shape'");
  expect_error({"RandomUniform", "", 22, {{"shape", attr_ints({2})}, {"dtype", attr_int(7)}}, {}},
               StatusCode::kUnsupported, "attribute 'dtype' names int64");
  expect_error({"RandomNormal", "", 22, {{"shape", attr_ints({2, -1})}}, {}}, StatusCode::kInvalidModel,
               "negative dim");
}

// ---- Bernoulli ----------------------------------------------------------------------------------

TEST(Bernoulli, CertainProbabilitiesAndTypes) {
  const Tensor p = f32({5}, {0, 1, 1, 0, 1});
  expect_tensor_eq(run_unfolded({"Bernoulli", "", 22, {}, {p}}), p);
  expect_tensor_eq(run_unfolded({"Bernoulli", "", 22, {{"dtype", attr_int(9)}}, {p}}), bools({5}, {0, 1, 1, 0, 1}));
  expect_tensor_eq(run_unfolded({"Bernoulli", "", 22, {{"dtype", attr_int(7)}}, {p}}), i64({5}, {0, 1, 1, 0, 1}));
  // Seeded: u < p with u from RandomState(0): 0.549 < 0.6, 0.715 >= 0.6, 0.603 < 0.9.
  expect_tensor_eq(run1({"Bernoulli", "", 22, {{"seed", attr_float(0)}}, {f32({3}, {0.6f, 0.6f, 0.9f})}}),
                   f32({3}, {1, 0, 1}));
}

TEST(Bernoulli, FrequencyFollowsTheProbability) {
  const Tensor y = run_unfolded({"Bernoulli", "", 22, {}, {f32({10000}, std::vector<float>(10000, 0.3f))}});
  double ones = 0;
  for (int64_t i = 0; i < y.numel(); ++i) ones += y.data<float>()[i];
  EXPECT_NEAR(ones / 10000, 0.3, 0.03);
  expect_error({"Bernoulli", "", 22, {}, {i64({1}, {1})}}, StatusCode::kUnsupported,
               "Bernoulli does not support input type int64");
}

// ---- Dropout (training) ---------------------------------------------------------------------------

TEST(DropoutTraining, SeededMaskFollowsNumpy) {
  // keep = u >= 0.5 for u = kUniform0: [1, 1, 1, 1, 0, 1]; kept values scale by 1 / (1 - 0.5).
  auto r = run_op({"Dropout",
                   "",
                   13,
                   {{"seed", attr_int(0)}},
                   {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({}, {0.5f}), bools({}, {1})},
                   2});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_near(r.value()[0], f32({2, 3}, {2, 4, 6, 8, 0, 12}));
  expect_tensor_eq(r.value()[1], bools({2, 3}, {1, 1, 1, 1, 0, 1}));
  // ratio 0.6: 0.549 and 0.545 and 0.424 drop.
  auto s = run_op(
      {"Dropout", "", 13, {{"seed", attr_int(0)}}, {f32({6}, {1, 1, 1, 1, 1, 1}), f32({}, {0.6f}), bools({}, {1})}, 2});
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  expect_tensor_near(s.value()[0], f32({6}, {0, 2.5f, 2.5f, 0, 0, 2.5f}));
}

TEST(DropoutTraining, RatioOutOfRangeIsAnError) {
  auto r = run_op_once({"Dropout", "", 13, {{"seed", attr_int(0)}}, {f32({2}, {1, 2}), f32({}, {1.f}), bools({}, {1})}},
                       false);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("ratio must be in [0, 1) in training mode, got 1"), std::string::npos)
      << r.status().message();
}

// ---- BatchNormalization (training) ------------------------------------------------------------------

TEST(BatchNormTraining, BatchStatisticsAndRunningStatistics) {
  // X [2, 2, 2]: channel 0 holds {1, 3, 5, 7} (mean 4, var 5), channel 1 {2, 2, 6, 6} (mean 4, var 4).
  const Tensor x = f32({2, 2, 2}, {1, 3, 2, 2, 5, 7, 6, 6});
  const Tensor scale = f32({2}, {1, 2}), bias = f32({2}, {0, 1}), mean = f32({2}, {0, 10}), var = f32({2}, {1, 2});
  auto r = run_op({"BatchNormalization",
                   "",
                   15,
                   {{"training_mode", attr_int(1)}, {"momentum", attr_float(0.75f)}, {"epsilon", attr_float(0)}},
                   {x, scale, bias, mean, var},
                   3});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  // y = (x - 4) / sqrt(5) for channel 0, (x - 4) / 2 * 2 + 1 for channel 1.
  const float s5 = std::sqrt(5.f);
  expect_tensor_near(r.value()[0], f32({2, 2, 2}, {-3 / s5, -1 / s5, -1, -1, 1 / s5, 3 / s5, 3, 3}));
  // running = input * 0.75 + batch * 0.25: mean [0*0.75 + 1, 10*0.75 + 1], var [0.75 + 1.25, 1.5 + 1].
  expect_tensor_near(r.value()[1], f32({2}, {1, 8.5f}));
  expect_tensor_near(r.value()[2], f32({2}, {2, 2.5f}));
  // Only Y asked for.
  expect_tensor_near(run1({"BatchNormalization",
                           "",
                           14,
                           {{"training_mode", attr_int(1)}, {"epsilon", attr_float(0)}},
                           {x, scale, bias, mean, var}}),
                     r.value()[0]);
}

}  // namespace
}  // namespace hi::test
