// Reduce* and ArgMax/ArgMin: axes as attribute (before opset 13/18) and as input, keepdims,
// negative axes, noop_with_empty_axes, empty reductions, integer and 16-bit float types, and
// error paths. Expected values were worked out independently with numpy (float64).
#include <cmath>
#include <limits>
#include <optional>

#include "ops/nn_test_util.h"
#include "ops/op_test_util.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << " (opset " << c.opset << "): " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

// The node fails with inputs as graph inputs and as constants, with a message containing
// `needle`; `run_code` is the code when the problem shows only at run time (axes given as a
// graph input rather than a constant).
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

int64_t axes_input_since(const std::string& op) { return op == "ReduceSum" ? 13 : 18; }

// A Reduce* node: axes as attribute or input depending on the opset; nullopt = no axes given.
OpCase reduce(const std::string& op, int64_t opset, const Tensor& x, std::optional<std::vector<int64_t>> axes,
              int keepdims = -1, int noop = -1) {
  OpCase c{op, "", opset, {}, {x}};
  if (keepdims >= 0) c.attrs["keepdims"] = attr_int(keepdims);
  if (noop >= 0) c.attrs["noop_with_empty_axes"] = attr_int(noop);
  if (axes) {
    if (opset >= axes_input_since(op)) c.inputs.push_back(i64({static_cast<int64_t>(axes->size())}, *axes));
    else c.attrs["axes"] = attr_ints(*axes);
  }
  return c;
}

// x = ((arange(24) * 7) % 11 - 5) * 0.5, shape [2, 3, 4].
const Tensor kX = f32({2, 3, 4}, {-2.5f, 1,  -1,   2.5f, 0.5f,  -1.5f, 2, 0,  -2,   1.5f,  -0.5f, -2.5f,
                                  1,     -1, 2.5f, 0.5f, -1.5f, 2,     0, -2, 1.5f, -0.5f, -2.5f, 1});
// |x| + 0.5, for ReduceLogSum.
Tensor positive_x() {
  Tensor t = kX.clone();
  for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = std::abs(t.data<float>()[i]) + 0.5f;
  return t;
}

struct ReduceExpect {
  std::string op;
  std::vector<float> axis1_keep;  // axes [1], keepdims: [2, 1, 4]
  std::vector<float> axes02;      // axes [0, -1], no keepdims: [3]
  float all;                      // every axis
  float empty;                    // over an empty set
};

std::vector<ReduceExpect> reduce_expectations() {
  return {
      {"ReduceSum", {-4, 1, 0.5f, 0, 1, 0.5f, 0, -0.5f}, {3, -0.5f, -4}, -1.5f, 0},
      {"ReduceMean",
       {-1.33333333f, 0.333333333f, 0.166666667f, 0, 0.333333333f, 0.166666667f, 0, -0.166666667f},
       {0.375f, -0.0625f, -0.5f},
       -0.0625f,
       std::nanf("")},
      {"ReduceMax", {0.5f, 1.5f, 2, 2.5f, 1.5f, 2, 2.5f, 1}, {2.5f, 2, 1.5f}, 2.5f, -kInf},
      {"ReduceMin", {-2.5f, -1.5f, -1, -2.5f, -1.5f, -1, -2.5f, -2}, {-2.5f, -2, -2.5f}, -2.5f, kInf},
      {"ReduceProd", {2.5f, -2.25f, 1, 0, -2.25f, 1, 0, -1}, {-7.8125f, 0, -7.03125f}, 0, 1},
      {"ReduceL1", {5, 4, 3.5f, 5, 4, 3.5f, 5, 3.5f}, {12, 9.5f, 12}, 33.5f, 0},
      {"ReduceL2",
       {3.24037035f, 2.34520788f, 2.29128785f, 3.53553391f, 2.34520788f, 2.29128785f, 3.53553391f, 2.29128785f},
       {4.79583152f, 4.09267639f, 4.74341649f},
       7.88986692f,
       0},
      {"ReduceLogSum",
       {1.87180218f, 1.70474809f, 1.60943791f, 1.87180218f, 1.70474809f, 1.60943791f, 1.87180218f, 1.60943791f},
       {2.77258872f, 2.60268969f, 2.77258872f},
       3.81771233f,
       -kInf},
      {"ReduceLogSumExp",
       {0.623872958f, 2.0045969f, 2.12387296f, 2.58509725f, 2.0045969f, 2.12387296f, 2.58509725f, 1.5045969f},
       {3.47407964f, 2.94488252f, 2.57977935f},
       4.16621198f,
       -kInf},
      {"ReduceSumSquare", {10.5f, 5.5f, 5.25f, 12.5f, 5.5f, 5.25f, 12.5f, 5.25f}, {23, 16.75f, 22.5f}, 62.25f, 0},
  };
}

TEST(Reduce, HandComputedAttributeAndInputAxes) {
  for (const auto& e : reduce_expectations()) {
    const Tensor x = e.op == "ReduceLogSum" ? positive_x() : kX;
    for (int64_t opset : {11, 18}) {
      SCOPED_TRACE(e.op + " opset " + std::to_string(opset));
      expect_tensor_near(run1(reduce(e.op, opset, x, std::vector<int64_t>{1})), f32({2, 1, 4}, e.axis1_keep));
      expect_tensor_near(run1(reduce(e.op, opset, x, std::vector<int64_t>{0, -1}, 0)), f32({3}, e.axes02));
      expect_tensor_near(run1(reduce(e.op, opset, x, std::vector<int64_t>{-1, 0}, 0)),
                         f32({3}, e.axes02));  // order free
      expect_tensor_near(run1(reduce(e.op, opset, x, std::nullopt, 0)), f32({}, {e.all}));
      expect_tensor_near(run1(reduce(e.op, opset, x, std::nullopt)), f32({1, 1, 1}, {e.all}));
      expect_tensor_near(run1(reduce(e.op, opset, x, std::vector<int64_t>{0, 1, 2}, 0)), f32({}, {e.all}));
    }
  }
}

TEST(Reduce, ReduceSumTakesAxesInputFromOpset13) {
  expect_tensor_near(run1(reduce("ReduceSum", 13, kX, std::vector<int64_t>{-2})),
                     f32({2, 1, 4}, {-4, 1, 0.5f, 0, 1, 0.5f, 0, -0.5f}));
  // ReduceMean keeps the attribute until opset 18.
  expect_tensor_near(
      run1(reduce("ReduceMean", 17, kX, std::vector<int64_t>{1})),
      f32({2, 1, 4}, {-1.33333333f, 0.333333333f, 0.166666667f, 0, 0.333333333f, 0.166666667f, 0, -0.166666667f}));
}

TEST(Reduce, EmptySetFollowsTheSpec) {
  const Tensor empty = f32({2, 0, 4}, {});
  for (const auto& e : reduce_expectations()) {
    SCOPED_TRACE(e.op);
    expect_tensor_near(run1(reduce(e.op, 18, empty, std::vector<int64_t>{1})),
                       f32({2, 1, 4}, std::vector<float>(8, e.empty)));
    // Reducing a non-empty axis of a zero-size tensor gives a zero-size result.
    EXPECT_EQ(run1(reduce(e.op, 18, empty, std::vector<int64_t>{2})).shape(), (Shape{2, 0, 1}));
    EXPECT_EQ(run1(reduce(e.op, 11, empty, std::vector<int64_t>{2}, 0)).shape(), (Shape{2, 0}));
  }
}

TEST(Reduce, NoopWithEmptyAxesStillAppliesTheElementwiseSteps) {
  const Tensor x = f32({2, 2}, {1, -2, 3, 0.5f});
  expect_tensor_eq(run1(reduce("ReduceSum", 13, x, std::nullopt, 1, 1)), x);
  expect_tensor_eq(run1(reduce("ReduceSumSquare", 18, x, std::nullopt, 1, 1)), f32({2, 2}, {1, 4, 9, 0.25f}));
  expect_tensor_eq(run1(reduce("ReduceL1", 18, x, std::vector<int64_t>{}, 0, 1)), f32({2, 2}, {1, 2, 3, 0.5f}));
  expect_tensor_near(run1(reduce("ReduceLogSum", 18, f32({2}, {1, 4}), std::nullopt, 1, 1)),
                     f32({2}, {0, 1.38629436f}));
  // An empty axes input without noop reduces everything.
  expect_tensor_eq(run1(reduce("ReduceSum", 13, x, std::vector<int64_t>{}, 0, 0)), f32({}, {2.5f}));
  expect_tensor_eq(run1(reduce("ReduceMax", 18, x, std::vector<int64_t>{}, 1)), f32({1, 1}, {3}));
}

TEST(Reduce, ScalarAndSizeOneInputs) {
  expect_tensor_eq(run1(reduce("ReduceSum", 13, f32({}, {7}), std::nullopt, 0)), f32({}, {7}));
  expect_tensor_eq(run1(reduce("ReduceL2", 18, f32({}, {-3}), std::nullopt, 1)), f32({}, {3}));
  expect_tensor_eq(run1(reduce("ReduceMean", 18, f32({1, 1, 1}, {5}), std::vector<int64_t>{1}, 0)), f32({1, 1}, {5}));
}

TEST(Reduce, IntegerTypes) {
  const Tensor xi = make<int32_t>({2, 3}, {1, -2, 3, -4, 5, 7});
  expect_tensor_eq(run1(reduce("ReduceSum", 13, xi, std::vector<int64_t>{1}, 0)), make<int32_t>({2}, {2, 8}));
  // Integer means truncate toward zero: 2/3 -> 0, 8/3 -> 2, and -3/2 -> -1.
  expect_tensor_eq(run1(reduce("ReduceMean", 18, xi, std::vector<int64_t>{1}, 0)), make<int32_t>({2}, {0, 2}));
  expect_tensor_eq(run1(reduce("ReduceMean", 18, xi, std::vector<int64_t>{0}, 0)), make<int32_t>({3}, {-1, 1, 5}));
  expect_tensor_eq(run1(reduce("ReduceL2", 18, make<int32_t>({2}, {3, -4}), std::nullopt, 0)), make<int32_t>({}, {5}));
  expect_tensor_eq(run1(reduce("ReduceL1", 18, i64({3}, {-3, 4, -5}), std::nullopt, 0)), i64({}, {12}));
  expect_tensor_eq(run1(reduce("ReduceSumSquare", 18, make<uint32_t>({3}, {1, 2, 3}), std::nullopt, 0)),
                   make<uint32_t>({}, {14}));
  // Products wrap modulo 2^64, as numpy computes them: 2^62 * 4 = 2^64 = 0.
  expect_tensor_eq(run1(reduce("ReduceProd", 18, i64({2}, {int64_t{1} << 62, 4}), std::nullopt, 0)), i64({}, {0}));
  expect_tensor_eq(run1(reduce("ReduceMax", 18, make<int8_t>({4}, {-128, -5, 3, -1}), std::nullopt, 0)),
                   make<int8_t>({}, {3}));
  expect_tensor_eq(run1(reduce("ReduceMin", 18, make<uint8_t>({3}, {200, 7, 255}), std::nullopt, 0)),
                   make<uint8_t>({}, {7}));
  expect_tensor_eq(
      run1(reduce("ReduceMax", 20, make<bool>({2, 2}, {false, true, false, false}), std::vector<int64_t>{1}, 0)),
      make<bool>({2}, {true, false}));
  expect_tensor_eq(
      run1(reduce("ReduceMin", 20, make<bool>({2, 2}, {true, true, false, true}), std::vector<int64_t>{1}, 0)),
      make<bool>({2}, {true, false}));
  // Empty integer reductions: the type's extreme values.
  expect_tensor_eq(run1(reduce("ReduceMax", 18, make<int32_t>({0}, {}), std::nullopt, 0)),
                   make<int32_t>({}, {std::numeric_limits<int32_t>::lowest()}));
  expect_tensor_eq(run1(reduce("ReduceMin", 18, make<uint64_t>({0}, {}), std::nullopt, 0)),
                   make<uint64_t>({}, {std::numeric_limits<uint64_t>::max()}));
}

TEST(Reduce, HalfTypesAccumulateWide) {
  // 4096 ones: float16 accumulation would stall at 2048.
  const Tensor ones = cast_f32(f32({4096}, std::vector<float>(4096, 1.f)), DType::kFloat16);
  expect_tensor_eq(as_f32(run1(reduce("ReduceSum", 13, ones, std::nullopt, 0))), f32({}, {4096}));
  expect_tensor_eq(as_f32(run1(reduce("ReduceMean", 18, ones, std::nullopt, 0))), f32({}, {1}));
  const Tensor y = run1(reduce("ReduceMax", 18, cast_f32(kX, DType::kBFloat16), std::vector<int64_t>{1}));
  ASSERT_EQ(y.dtype(), DType::kBFloat16);
  expect_tensor_eq(as_f32(y), f32({2, 1, 4}, {0.5f, 1.5f, 2, 2.5f, 1.5f, 2, 2.5f, 1}));
  expect_tensor_near(run1(reduce("ReduceL2", 18, cast_f32(kX, DType::kFloat64), std::nullopt, 0)),
                     make<double>({}, {7.889866919029733}), 1e-12, 0);
}

TEST(Reduce, NaNPropagatesThroughMaxAndMin) {
  const Tensor x = f32({2, 2}, {1, std::nanf(""), std::nanf(""), 2});
  for (const char* op : {"ReduceMax", "ReduceMin"}) {
    const Tensor y = run1(reduce(op, 18, x, std::vector<int64_t>{1}, 0));
    EXPECT_TRUE(std::isnan(y.data<float>()[0]) && std::isnan(y.data<float>()[1])) << op;
  }
}

TEST(Reduce, LogSumExpIsStableForLargeValues) {
  expect_tensor_near(run1(reduce("ReduceLogSumExp", 18, f32({2}, {1000, 1000}), std::nullopt, 0)),
                     f32({}, {1000.69315f}));
  expect_tensor_near(run1(reduce("ReduceLogSumExp", 18, f32({2}, {-kInf, -kInf}), std::nullopt, 0)), f32({}, {-kInf}));
}

// Awkward sizes against direct loops.
TEST(Reduce, RandomAwkwardShapeMatchesDirectLoops) {
  const Tensor x = random_f32({3, 5, 7}, 11, -2, 2);
  const float* p = x.data<float>();
  const Tensor sum = run1(reduce("ReduceSum", 13, x, std::vector<int64_t>{0, 2}));
  const Tensor lse = run1(reduce("ReduceLogSumExp", 18, x, std::vector<int64_t>{2, 0}, 0));
  const Tensor mx = run1(reduce("ReduceMax", 11, x, std::vector<int64_t>{-3, -1}));
  ASSERT_EQ(sum.shape(), (Shape{1, 5, 1}));
  ASSERT_EQ(lse.shape(), (Shape{5}));
  for (int b = 0; b < 5; ++b) {
    double s = 0, e = 0, m = -1e30;
    for (int a = 0; a < 3; ++a)
      for (int c = 0; c < 7; ++c) {
        const double v = p[(a * 5 + b) * 7 + c];
        s += v;
        e += std::exp(v);
        m = std::max(m, v);
      }
    EXPECT_NEAR(sum.data<float>()[b], s, 1e-5) << b;
    EXPECT_NEAR(lse.data<float>()[b], std::log(e), 1e-5) << b;
    EXPECT_EQ(mx.data<float>()[b], static_cast<float>(m)) << b;
  }
}

TEST(Reduce, Errors) {
  expect_error(reduce("ReduceSum", 13, kX, std::vector<int64_t>{3}), StatusCode::kInvalidModel,
               "axis 3 in axes [3] is out of range", StatusCode::kInvalidArgument);
  expect_error(reduce("ReduceMean", 11, kX, std::vector<int64_t>{-4}), StatusCode::kInvalidModel,
               "out of range for rank 3");
  expect_error(reduce("ReduceMax", 18, kX, std::vector<int64_t>{1, -2}), StatusCode::kInvalidModel, "twice",
               StatusCode::kInvalidArgument);
  expect_error(reduce("ReduceL1", 11, kX, std::vector<int64_t>{0, 0}), StatusCode::kInvalidModel, "twice");
  // The axes attribute exists only before the axes input.
  OpCase attr_late{"ReduceMean", "", 18, {{"axes", attr_ints({1})}}, {kX}};
  expect_error(attr_late, StatusCode::kInvalidModel, "axes is an input from opset 18");
  OpCase input_early{"ReduceMean", "", 17, {}, {kX, i64({1}, {1})}};
  expect_error(input_early, StatusCode::kInvalidModel, "at most 1 input");
  expect_error({"ReduceSum", "", 13, {}, {kX, f32({1}, {1})}}, StatusCode::kInvalidModel, "axes must be int64");
  expect_error({"ReduceSum", "", 13, {}, {kX, i64({1, 1}, {1})}}, StatusCode::kInvalidModel, "axes must be 1-D");
  expect_error(reduce("ReduceLogSum", 18, i64({2}, {1, 2}), std::nullopt), StatusCode::kUnsupported, "int64");
  expect_error(reduce("ReduceSum", 13, make<bool>({2}, {true, false}), std::nullopt), StatusCode::kUnsupported, "bool");
  expect_error(reduce("ReduceSum", 13, make<int8_t>({2}, {1, 2}), std::nullopt), StatusCode::kUnsupported, "int8");
  expect_error({"ReduceSum", "", 13, {}, {}}, StatusCode::kInvalidModel, "needs 1 input");
}

// ---- ArgMax, ArgMin ----------------------------------------------------------------------

OpCase arg(const std::string& op, int64_t opset, const Tensor& x, int64_t axis, int keepdims = -1, int last = -1) {
  OpCase c{op, "", opset, {{"axis", attr_int(axis)}}, {x}};
  if (keepdims >= 0) c.attrs["keepdims"] = attr_int(keepdims);
  if (last >= 0) c.attrs["select_last_index"] = attr_int(last);
  return c;
}

TEST(ArgReduce, HandComputed) {
  expect_tensor_eq(run1(arg("ArgMax", 13, kX, 1)), i64({2, 1, 4}, {1, 2, 1, 0, 2, 1, 0, 2}));
  expect_tensor_eq(run1(arg("ArgMin", 13, kX, 1, 0)), i64({2, 4}, {0, 1, 0, 2, 1, 0, 2, 1}));
  expect_tensor_eq(run1(arg("ArgMax", 11, kX, -1, 0)), i64({2, 3}, {3, 2, 1, 2, 1, 0}));
  expect_tensor_eq(run1(arg("ArgMin", 1, kX, 0, 0)), i64({3, 4}, {0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0}));
  expect_tensor_eq(run1({"ArgMax", "", 13, {}, {kX}}),
                   i64({1, 3, 4}, {1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1}));  // axis 0 default
}

TEST(ArgReduce, TiesAndSelectLastIndex) {
  const Tensor t = f32({3, 4}, {2, 5, 5, 1, 3, 3, 0, 0, 7, 7, 7, 7});
  expect_tensor_eq(run1(arg("ArgMax", 12, t, 1, 0)), i64({3}, {1, 0, 0}));
  expect_tensor_eq(run1(arg("ArgMax", 12, t, 1, 0, 1)), i64({3}, {2, 1, 3}));
  expect_tensor_eq(run1(arg("ArgMin", 12, t, 1, 0)), i64({3}, {3, 2, 0}));
  expect_tensor_eq(run1(arg("ArgMin", 13, t, -1, 1, 1)), i64({3, 1}, {3, 3, 3}));
  expect_tensor_eq(run1(arg("ArgMax", 13, t, 0, 0, 1)), i64({4}, {2, 2, 2, 2}));
}

TEST(ArgReduce, TypesAndSizes) {
  expect_tensor_eq(run1(arg("ArgMax", 13, make<int8_t>({5}, {-1, 100, -128, 100, 3}), 0, 0)), i64({}, {1}));
  expect_tensor_eq(run1(arg("ArgMin", 13, make<uint16_t>({2, 2}, {9, 3, 4, 8}), 1)), i64({2, 1}, {1, 0}));
  expect_tensor_eq(run1(arg("ArgMax", 13, cast_f32(f32({3}, {0.5f, 2, 1}), DType::kFloat16), 0)), i64({1}, {1}));
  expect_tensor_eq(run1(arg("ArgMax", 13, f32({1, 1}, {3}), 1, 0)), i64({1}, {0}));
  EXPECT_EQ(run1(arg("ArgMin", 13, f32({0, 3}, {}), 1, 0)).shape(), (Shape{0}));
  // Random awkward shape against a direct loop.
  const Tensor x = random_f32({4, 7, 3}, 9);
  const Tensor y = run1(arg("ArgMax", 13, x, 1, 0));
  for (int a = 0; a < 4; ++a)
    for (int c = 0; c < 3; ++c) {
      int best = 0;
      for (int b = 1; b < 7; ++b)
        if (x.data<float>()[(a * 7 + b) * 3 + c] > x.data<float>()[(a * 7 + best) * 3 + c]) best = b;
      EXPECT_EQ(y.data<int64_t>()[a * 3 + c], best);
    }
}

TEST(ArgReduce, Errors) {
  expect_error(arg("ArgMax", 13, kX, 3), StatusCode::kInvalidModel, "axis 3 is out of range for rank 3");
  expect_error(arg("ArgMin", 13, kX, -4), StatusCode::kInvalidModel, "out of range");
  expect_error(arg("ArgMax", 13, f32({}, {1}), 0), StatusCode::kInvalidModel, "out of range for rank 0");
  expect_error(arg("ArgMax", 13, f32({2, 0}, {}), 1), StatusCode::kInvalidModel, "no elements");
  expect_error(arg("ArgMax", 13, make<bool>({2}, {true, false}), 0), StatusCode::kUnsupported, "bool");
}

// ---- Static inference over symbolic shapes ------------------------------------------------

TEST(ReduceInference, SymbolicDimsStaySymbolic) {
  const ir::ValueType x = ir::ValueType::tensor(DType::kFloat32, dims({"N", "3", "S"}));
  const ir::ValueType axes = ir::ValueType::tensor(DType::kInt64, dims({"1"}));
  // Constant axes input.
  EXPECT_EQ(inferred({"ReduceSum", "", 13, {}, {}}, {x, axes}, 0, {{1, i64({1}, {1})}}), "float32[N, 1, S]");
  EXPECT_EQ(inferred({"ReduceMax", "", 18, {{"keepdims", attr_int(0)}}, {}}, {x, axes}, 0, {{1, i64({1}, {-1})}}),
            "float32[N, 3]");
  // Attribute axes, and no axes.
  EXPECT_EQ(inferred({"ReduceMean", "", 11, {{"axes", attr_ints({0})}, {"keepdims", attr_int(0)}}, {}}, {x}),
            "float32[3, S]");
  EXPECT_EQ(inferred({"ReduceL2", "", 18, {{"keepdims", attr_int(0)}}, {}}, {x}), "float32[]");
  EXPECT_EQ(inferred({"ReduceL2", "", 18, {}, {}}, {x}), "float32[1, 1, 1]");
  EXPECT_EQ(inferred({"ReduceL2", "", 18, {{"noop_with_empty_axes", attr_int(1)}}, {}}, {x}), "float32[N, 3, S]");
  // Axes known only at run time: with keepdims the rank stays; without, nothing is known.
  EXPECT_EQ(
      inferred({"ReduceSum", "", 13, {}, {}}, {ir::ValueType::tensor(DType::kFloat32, dims({"N", "1", "5"})), axes}),
      "float32[?, 1, ?]");
  EXPECT_EQ(inferred({"ReduceSum", "", 13, {{"keepdims", attr_int(0)}}, {}}, {x, axes}), "float32[...]");
  // An empty axes input (static shape [0]) is "no axes" even when not constant.
  EXPECT_EQ(inferred({"ReduceProd", "", 18, {{"keepdims", attr_int(0)}, {"noop_with_empty_axes", attr_int(1)}}, {}},
                     {x, ir::ValueType::tensor(DType::kInt64, dims({"0"}))}),
            "float32[N, 3, S]");
  EXPECT_EQ(inferred({"ArgMax", "", 13, {{"axis", attr_int(2)}, {"keepdims", attr_int(0)}}, {}}, {x}), "int64[N, 3]");
  EXPECT_EQ(inferred({"ArgMin", "", 13, {{"axis", attr_int(-3)}}, {}}, {x}), "int64[1, 3, S]");
  EXPECT_EQ(inferred({"ArgMin", "", 13, {}, {}}, {ir::ValueType::tensor_unknown_shape(DType::kInt32)}), "int64[...]");
}

}  // namespace
}  // namespace hi::test
