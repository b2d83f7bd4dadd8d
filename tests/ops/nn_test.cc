// Activations (LeakyRelu ... Gelu), the trigonometric ops, Clip, PRelu, and Softmax, LogSoftmax
// and Hardmax. Expected values were worked out independently with numpy (float64).
#include <cmath>

#include "ops/nn_test_util.h"
#include "ops/op_test_util.h"

namespace hi::ops {
std::unique_ptr<Op> make_op_PRelu();  // defined by HI_REGISTER_OP in src/ops/prelu.cc
}  // namespace hi::ops

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

Tensor run1(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

// The node fails, with the inputs as graph inputs and as constants, with `code` and a message
// containing `needle`.
void expect_error(const OpCase& c, StatusCode code, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

const Tensor kX = f32({2, 4}, {-3, -1.5f, -0.5f, 0, 0.25f, 1, 2.5f, 4});

struct ActivationCase {
  std::string op;
  int64_t opset;
  Attrs attrs;
  std::vector<float> expected;
};

std::vector<ActivationCase> activation_cases() {
  return {
      {"LeakyRelu", 16, {{"alpha", attr_float(0.1f)}}, {-0.3f, -0.15f, -0.05f, 0, 0.25f, 1, 2.5f, 4}},
      {"LeakyRelu", 6, {}, {-0.03f, -0.015f, -0.005f, 0, 0.25f, 1, 2.5f, 4}},
      {"Elu", 6, {{"alpha", attr_float(2)}}, {-1.90042586f, -1.55373968f, -0.786938681f, 0, 0.25f, 1, 2.5f, 4}},
      {"Selu",
       6,
       {},
       {-1.67056873f, -1.36581436f, -0.69175819f, 0, 0.262675256f, 1.05070102f, 2.62675256f, 4.20280409f}},
      {"Selu",
       6,
       {{"alpha", attr_float(2)}, {"gamma", attr_float(3)}},
       {-5.70127759f, -4.66121904f, -2.36081604f, 0, 0.75f, 3, 7.5f, 12}},
      {"Celu", 12, {{"alpha", attr_float(2)}}, {-1.55373968f, -1.05526689f, -0.442398434f, 0, 0.25f, 1, 2.5f, 4}},
      {"ThresholdedRelu", 10, {{"alpha", attr_float(0.5f)}}, {0, 0, 0, 0, 0, 1, 2.5f, 4}},
      {"ThresholdedRelu", 10, {}, {0, 0, 0, 0, 0, 0, 2.5f, 4}},  // x == alpha gives 0
      {"HardSigmoid", 6, {}, {0, 0.2f, 0.4f, 0.5f, 0.55f, 0.7f, 1, 1}},
      {"HardSigmoid",
       6,
       {{"alpha", attr_float(0.5f)}, {"beta", attr_float(0.25f)}},
       {0, 0, 0, 0.25f, 0.375f, 0.75f, 1, 1}},
      {"HardSwish", 14, {}, {0, -0.375f, -0.208333333f, 0, 0.135416667f, 0.666666667f, 2.29166667f, 4}},
      {"Softplus",
       1,
       {},
       {0.0485873516f, 0.201413278f, 0.474076984f, 0.693147181f, 0.82593942f, 1.31326169f, 2.57888973f, 4.01814993f}},
      {"Softsign", 1, {}, {-0.75f, -0.6f, -0.333333333f, 0, 0.2f, 0.5f, 0.714285714f, 0.8f}},
      {"Mish",
       18,
       {},
       {-0.145647461f, -0.298099742f, -0.220743775f, 0, 0.16957241f, 0.865098388f, 2.4713923f, 3.99741281f}},
      {"Gelu",
       20,
       {},
       {-0.00404969409f, -0.100210802f, -0.154268769f, 0, 0.149676581f, 0.841344746f, 2.48447584f, 3.99987332f}},
      {"Gelu",
       20,
       {{"approximate", attr_string("tanh")}},
       {-0.00363739208f, -0.100428423f, -0.15428599f, 0, 0.149675351f, 0.841191991f, 2.48491573f, 3.99992975f}},
  };
}

TEST(Activation, HandComputedFloat32) {
  for (const auto& c : activation_cases()) {
    SCOPED_TRACE(c.op);
    expect_tensor_near(run1({c.op, "", c.opset, c.attrs, {kX}}), f32({2, 4}, c.expected), 1e-5, 1e-6);
  }
}

TEST(Activation, OtherFloatTypes) {
  for (const auto& c : activation_cases()) {
    for (DType t : {DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
      SCOPED_TRACE(c.op + " " + dtype_name(t));
      const Tensor y = run1({c.op, "", c.opset, c.attrs, {cast_f32(kX, t)}});
      ASSERT_EQ(y.dtype(), t);
      const double tol = t == DType::kFloat64 ? 1e-6 : t == DType::kFloat16 ? 2e-3 : 1.6e-2;
      expect_tensor_near(as_f32(y), f32({2, 4}, c.expected), tol, tol);
    }
  }
}

TEST(Activation, SymbolicShapeAndZeroSize) {
  const Tensor y = run1({"Elu", "", 6, {}, {f32({0, 3}, {})}});
  EXPECT_EQ(y.shape(), (Shape{0, 3}));
  const Tensor s = run1({"Softsign", "", 1, {}, {f32({}, {-3})}});
  expect_tensor_near(s, f32({}, {-0.75f}));
}

TEST(Activation, SoftplusAndMishDoNotOverflow) {
  const Tensor x = f32({4}, {-100, 100, 89, -89});
  expect_tensor_near(run1({"Softplus", "", 1, {}, {x}}), f32({4}, {0, 100, 89, 0}), 1e-6, 1e-30);
  expect_tensor_near(run1({"Mish", "", 18, {}, {x}}), f32({4}, {0, 100, 89, 0}), 1e-6, 1e-30);
}

TEST(Activation, NaNPassesThrough) {
  const float nan = std::nanf("");
  for (const char* op : {"HardSigmoid", "HardSwish", "Elu", "LeakyRelu"}) {
    SCOPED_TRACE(op);
    const Tensor y = run1({op, "", 18, {}, {f32({1}, {nan})}});
    EXPECT_TRUE(std::isnan(y.data<float>()[0]));
  }
}

TEST(Activation, Errors) {
  expect_error({"Elu", "", 6, {}, {i64({2}, {1, -1})}}, StatusCode::kUnsupported, "int64");
  expect_error({"Celu", "", 12, {{"alpha", attr_float(0)}}, {kX}}, StatusCode::kInvalidModel, "alpha");
  expect_error({"Gelu", "", 20, {{"approximate", attr_string("erf")}}, {kX}}, StatusCode::kInvalidModel, "approximate");
  expect_error({"Gelu", "", 19, {}, {kX}}, StatusCode::kUnsupported, "Gelu");  // opset 20 op
  expect_error({"LeakyRelu", "", 16, {{"alpha", attr_string("x")}}, {kX}}, StatusCode::kInvalidModel, "alpha");
  expect_error({"Elu", "", 6, {}, {kX, kX}}, StatusCode::kInvalidModel, "at most 1 input");
  expect_error({"Cos", "", 7, {}, {kX, kX}}, StatusCode::kInvalidModel, "at most 1 input");
  expect_error({"Softsign", "", 1, {}, {}}, StatusCode::kInvalidModel, "needs 1 input");
  expect_error({"Softsign", "", 1, {}, {Tensor()}}, StatusCode::kInvalidModel, "input 0 is empty");
  expect_error({"Elu", "", 6, {}, {kX}, 2}, StatusCode::kInvalidModel, "at most 1 output");
}

TEST(Trigonometric, HandComputed) {
  const Tensor x = f32({2, 3}, {-0.9f, -0.5f, 0, 0.3f, 0.7f, 0.95f});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"Cos", {0.621609968f, 0.877582562f, 1, 0.955336489f, 0.764842187f, 0.581683089f}},
      {"Sin", {-0.78332691f, -0.479425539f, 0, 0.295520207f, 0.644217687f, 0.813415505f}},
      {"Tan", {-1.26015822f, -0.54630249f, 0, 0.30933625f, 0.84228838f, 1.39838259f}},
      {"Acos", {2.69056584f, 2.0943951f, 1.57079633f, 1.26610367f, 0.79539883f, 0.317560429f}},
      {"Asin", {-1.11976951f, -0.523598776f, 0, 0.304692654f, 0.775397497f, 1.2532359f}},
      {"Atan", {-0.732815102f, -0.463647609f, 0, 0.291456794f, 0.610725964f, 0.759762755f}},
      {"Sinh", {-1.02651673f, -0.521095305f, 0, 0.304520293f, 0.758583702f, 1.09948432f}},
      {"Cosh", {1.43308639f, 1.12762597f, 1, 1.04533851f, 1.25516901f, 1.48622534f}},
      {"Asinh", {-0.808866936f, -0.481211825f, 0, 0.295673048f, 0.652666566f, 0.845572697f}},
      {"Atanh", {-1.47221949f, -0.549306144f, 0, 0.309519604f, 0.867300528f, 1.83178082f}},
  };
  for (const auto& [op, expected] : cases) {
    SCOPED_TRACE(op);
    expect_tensor_near(run1({op, "", 9, {}, {x}}), f32({2, 3}, expected), 1e-5, 1e-6);
    expect_tensor_near(as_f32(run1({op, "", 9, {}, {cast_f32(x, DType::kFloat16)}})), f32({2, 3}, expected), 3e-3,
                       3e-3);
  }
  expect_tensor_near(run1({"Acosh", "", 9, {}, {f32({4}, {1, 1.5f, 2, 10})}}),
                     f32({4}, {0, 0.96242365f, 1.3169579f, 2.99322285f}));
  // Outside the domain: NaN, as std:: gives.
  EXPECT_TRUE(std::isnan(run1({"Acos", "", 7, {}, {f32({1}, {2})}}).data<float>()[0]));
  expect_error({"Sinh", "", 8, {}, {x}}, StatusCode::kUnsupported, "Sinh");  // opset 9 op
}

// ---- PRelu -------------------------------------------------------------------------------

TEST(PRelu, SlopeBroadcastsUnidirectionally) {
  const Tensor x = f32({2, 3, 2}, {-1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12});
  // Per-channel slope [3, 1].
  expect_tensor_near(run1({"PRelu", "", 16, {}, {x, f32({3, 1}, {0.1f, 0.2f, 0.5f})}}),
                     f32({2, 3, 2}, {-0.1f, 2, -0.6f, 4, -2.5f, 6, -0.7f, 8, -1.8f, 10, -5.5f, 12}));
  // Scalar and trailing-dim slopes.
  expect_tensor_eq(run1({"PRelu", "", 16, {}, {x, f32({}, {2})}}),
                   f32({2, 3, 2}, {-2, 2, -6, 4, -10, 6, -14, 8, -18, 10, -22, 12}));
  expect_tensor_eq(run1({"PRelu", "", 7, {}, {x, f32({2}, {3, 100})}}),
                   f32({2, 3, 2}, {-3, 2, -9, 4, -15, 6, -21, 8, -27, 10, -33, 12}));
  // Same shape.
  const Tensor s = random_f32({2, 3, 2}, 5);
  const Tensor y = run1({"PRelu", "", 16, {}, {x, s}});
  for (int64_t i = 0; i < 12; ++i) {
    const float v = x.data<float>()[i];
    EXPECT_EQ(y.data<float>()[i], v < 0 ? s.data<float>()[i] * v : v) << i;
  }
}

TEST(PRelu, IntegerAndHalf) {
  expect_tensor_eq(run1({"PRelu", "", 9, {}, {make<int32_t>({4}, {-3, 5, -7, 0}), make<int32_t>({1}, {2})}}),
                   make<int32_t>({4}, {-6, 5, -14, 0}));
  expect_tensor_eq(run1({"PRelu", "", 9, {}, {make<uint32_t>({2}, {3, 5}), make<uint32_t>({1}, {2})}}),
                   make<uint32_t>({2}, {3, 5}));
  const Tensor y = run1({"PRelu",
                         "",
                         16,
                         {},
                         {cast_f32(f32({2}, {-2, 3}), DType::kFloat16), cast_f32(f32({1}, {0.25f}), DType::kFloat16)}});
  expect_tensor_eq(as_f32(y), f32({2}, {-0.5f, 3}));
}

// Before opset 7 a [C] slope is per channel. The op list may register PRelu from opset 7 only, so
// this drives the op's init/infer/run directly at opset 6.
TEST(PRelu, PerChannelSlopeBeforeOpset7) {
  auto run_at_6 = [](const Tensor& x, const Tensor& slope) -> Result<Tensor> {
    ir::Node node;
    node.op_type = "PRelu";
    node.inputs = {"x", "slope"};
    node.outputs = {"y"};
    std::unique_ptr<ops::Op> op = ops::make_op_PRelu();
    ops::InitContext ictx(node, 6);
    HI_RETURN_IF_ERROR(op->init(ictx));
    const ir::ValueType tx = ir::ValueType::concrete(x.dtype(), x.shape()),
                        ts = ir::ValueType::concrete(slope.dtype(), slope.shape());
    ops::InferContext xctx(node, {&tx, &ts}, {nullptr, nullptr}, 1);
    HI_RETURN_IF_ERROR(op->infer(xctx));
    EXPECT_EQ(xctx.output_type(0).to_string(), tx.to_string());
    const ops::Value vx = ops::Value::of(x), vs = ops::Value::of(slope);
    std::vector<ops::Value> outs(1);
    ops::RunContext rctx(node, {&vx, &vs}, &outs, nullptr);
    HI_RETURN_IF_ERROR(op->run(rctx));
    return outs[0].tensor;
  };
  const Tensor x = f32({1, 3, 2}, {-1, 2, -3, 4, -5, 6});
  auto y = run_at_6(x, f32({3}, {0.5f, 2, 10}));
  ASSERT_TRUE(y.is_ok()) << y.status().to_string();
  expect_tensor_eq(y.value(), f32({1, 3, 2}, {-0.5f, 2, -6, 4, -50, 6}));
  auto shared = run_at_6(x, f32({1}, {3}));
  ASSERT_TRUE(shared.is_ok()) << shared.status().to_string();
  expect_tensor_eq(shared.value(), f32({1, 3, 2}, {-3, 2, -9, 4, -15, 6}));
  auto bad = run_at_6(x, f32({2}, {1, 2}));
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("must have 1 or C = 3 elements"), std::string::npos) << bad.status().message();
}

TEST(PRelu, Errors) {
  const Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_error({"PRelu", "", 16, {}, {x, f32({2}, {1, 2})}}, StatusCode::kInvalidModel,
               "slope float32[2] does not broadcast");
  // Bidirectional broadcasting would grow X: not allowed.
  expect_error({"PRelu", "", 16, {}, {f32({3}, {1, 2, 3}), f32({2, 1}, {1, 2})}}, StatusCode::kInvalidModel,
               "does not broadcast");
  expect_error({"PRelu", "", 16, {}, {x, make<double>({1}, {1})}}, StatusCode::kInvalidModel, "slope is float64");
  expect_error({"PRelu", "", 16, {}, {x}}, StatusCode::kInvalidModel, "needs 2 inputs");
  expect_error({"PRelu", "", 16, {}, {make<int8_t>({1}, {1}), make<int8_t>({1}, {1})}}, StatusCode::kUnsupported,
               "int8");
}

// ---- Clip --------------------------------------------------------------------------------

TEST(Clip, AttributesBeforeOpset11) {
  const Tensor x = f32({5}, {-5, -1, 0, 1, 5});
  expect_tensor_eq(run1({"Clip", "", 6, {{"min", attr_float(-2)}, {"max", attr_float(0.5f)}}, {x}}),
                   f32({5}, {-2, -1, 0, 0.5f, 0.5f}));
  expect_tensor_eq(run1({"Clip", "", 6, {{"max", attr_float(0)}}, {x}}), f32({5}, {-5, -1, 0, 0, 0}));
  expect_tensor_eq(run1({"Clip", "", 6, {}, {x}}), x);
}

TEST(Clip, InputsFromOpset11) {
  const Tensor x = f32({2, 3}, {-5, -1, 0, 1, 5, 3});
  expect_tensor_eq(run1({"Clip", "", 13, {}, {x, f32({}, {-2}), f32({}, {2})}}), f32({2, 3}, {-2, -1, 0, 1, 2, 2}));
  // Only max (min is an empty input), only min, neither.
  expect_tensor_eq(run1({"Clip", "", 13, {}, {x, Tensor(), f32({}, {0})}}), f32({2, 3}, {-5, -1, 0, 0, 0, 0}));
  expect_tensor_eq(run1({"Clip", "", 11, {}, {x, f32({}, {0})}}), f32({2, 3}, {0, 0, 0, 1, 5, 3}));
  expect_tensor_eq(run1({"Clip", "", 11, {}, {x}}), x);
  // min > max: everything becomes max (numpy.clip).
  expect_tensor_eq(run1({"Clip", "", 13, {}, {x, f32({}, {3}), f32({}, {1})}}), f32({2, 3}, {1, 1, 1, 1, 1, 1}));
  // A one-element 1-D bound is accepted as a scalar.
  expect_tensor_eq(run1({"Clip", "", 13, {}, {x, f32({1}, {-1})}}), f32({2, 3}, {-1, -1, 0, 1, 5, 3}));
  // NaN stays NaN.
  EXPECT_TRUE(
      std::isnan(run1({"Clip", "", 13, {}, {f32({1}, {std::nanf("")}), f32({}, {0}), f32({}, {1})}}).data<float>()[0]));
}

TEST(Clip, IntegerAndHalfTypes) {
  expect_tensor_eq(run1({"Clip", "", 12, {}, {make<int8_t>({4}, {-128, -3, 4, 127}), Tensor(), make<int8_t>({}, {5})}}),
                   make<int8_t>({4}, {-128, -3, 4, 5}));
  expect_tensor_eq(run1({"Clip", "", 12, {}, {make<uint8_t>({3}, {0, 100, 255}), make<uint8_t>({}, {10})}}),
                   make<uint8_t>({3}, {10, 100, 255}));
  expect_tensor_eq(run1({"Clip", "", 12, {}, {i64({3}, {-100, 7, 100}), i64({}, {-10}), i64({}, {10})}}),
                   i64({3}, {-10, 7, 10}));
  const Tensor y = run1({"Clip",
                         "",
                         13,
                         {},
                         {cast_f32(f32({3}, {-4, 0.5f, 4}), DType::kBFloat16),
                          cast_f32(f32({}, {-1}), DType::kBFloat16), cast_f32(f32({}, {1}), DType::kBFloat16)}});
  expect_tensor_eq(as_f32(y), f32({3}, {-1, 0.5f, 1}));
}

TEST(Clip, Errors) {
  const Tensor x = f32({2}, {1, 2});
  expect_error({"Clip", "", 13, {}, {x, f32({2}, {0, 1})}}, StatusCode::kInvalidModel,
               "min must be a scalar, got float32[2]");
  expect_error({"Clip", "", 13, {}, {x, Tensor(), make<double>({}, {1})}}, StatusCode::kInvalidModel, "max is float64");
  expect_error({"Clip", "", 11, {{"min", attr_float(0)}}, {x}}, StatusCode::kInvalidModel, "inputs from opset 11");
  expect_error({"Clip", "", 6, {}, {x, f32({}, {0})}}, StatusCode::kInvalidModel, "at most 1 input");
  expect_error({"Clip", "", 6, {}, {i64({1}, {1})}}, StatusCode::kUnsupported, "int64");
  expect_error({"Clip", "", 13, {}, {make<bool>({1}, {true})}}, StatusCode::kUnsupported, "bool");
}

// ---- Softmax, LogSoftmax, Hardmax -----------------------------------------------------------

const Tensor kS = f32({2, 3, 4}, {-1.5f, -1,   -0.5f, 0,  0.5f,  1, 1.5f, -1.5f, -1,   -0.5f, 0,  0.5f,
                                  1,     1.5f, -1.5f, -1, -0.5f, 0, 0.5f, 1,     1.5f, -1.5f, -1, -0.5f});

TEST(Softmax, SingleAxisFromOpset13) {
  const Tensor e1 =
      f32({2, 3, 4}, {0.0996236481f, 0.0996236481f, 0.0996236481f, 0.348207428f,  0.736124724f,  0.736124724f,
                      0.736124724f,  0.0776955791f, 0.164251628f,  0.164251628f,  0.164251628f,  0.574096993f,
                      0.348207428f,  0.785597035f,  0.0996236481f, 0.0996236481f, 0.0776955791f, 0.175290392f,
                      0.736124724f,  0.736124724f,  0.574096993f,  0.0391125733f, 0.164251628f,  0.164251628f});
  expect_tensor_near(run1({"Softmax", "", 13, {{"axis", attr_int(1)}}, {kS}}), e1);
  expect_tensor_near(run1({"Softmax", "", 13, {{"axis", attr_int(-2)}}, {kS}}), e1);
  const Tensor last =
      f32({2, 3, 4}, {0.101536324f, 0.167405097f,  0.276004345f, 0.455054234f,  0.181740913f,  0.299640109f,
                      0.494023021f, 0.0245959579f, 0.101536324f, 0.167405097f,  0.276004345f,  0.455054234f,
                      0.348901121f, 0.575240699f,  0.028639548f, 0.047218632f,  0.101536324f,  0.167405097f,
                      0.276004345f, 0.455054234f,  0.789136837f, 0.0392888096f, 0.0647762962f, 0.106798057f});
  expect_tensor_near(run1({"Softmax", "", 13, {}, {kS}}), last);  // default axis -1
}

TEST(Softmax, CoercedTo2DBeforeOpset13) {
  // axis 1 (the default): rows of 12.
  expect_tensor_near(
      run1({"Softmax", "", 11, {}, {kS}}),
      f32({2, 3, 4}, {0.0149827262f, 0.0247023395f, 0.0407272725f, 0.0671479205f, 0.110708205f,  0.182526972f,
                      0.300936101f,  0.0149827262f, 0.0247023395f, 0.0407272725f, 0.0671479205f, 0.110708205f,
                      0.13980239f,   0.230495174f,  0.011475679f,  0.0189201961f, 0.0311941297f, 0.0514304252f,
                      0.084794436f,  0.13980239f,   0.230495174f,  0.011475679f,  0.0189201961f, 0.0311941297f}));
  // axis 0: one row of 24.
  const Tensor y = run1({"Softmax", "", 1, {{"axis", attr_int(0)}}, {kS}});
  EXPECT_NEAR(y.data<float>()[0], 0.00649838701f, 1e-8);
  EXPECT_NEAR(y.data<float>()[6], 0.130523592f, 1e-7);
  double sum = 0;
  for (int64_t i = 0; i < 24; ++i) sum += y.data<float>()[i];
  EXPECT_NEAR(sum, 1.0, 1e-6);
}

TEST(LogSoftmax, BothSemantics) {
  expect_tensor_near(
      run1({"LogSoftmax", "", 13, {{"axis", attr_int(0)}}, {kS}}),
      f32({2, 3, 4}, {-2.57888973f,   -2.57888973f,   -0.313261688f,  -0.313261688f, -0.313261688f, -0.313261688f,
                      -0.313261688f,  -2.57888973f,   -2.57888973f,   -0.313261688f, -0.313261688f, -0.313261688f,
                      -0.0788897343f, -0.0788897343f, -1.31326169f,   -1.31326169f,  -1.31326169f,  -1.31326169f,
                      -1.31326169f,   -0.0788897343f, -0.0788897343f, -1.31326169f,  -1.31326169f,  -1.31326169f}));
  // Opset 11, axis 2 of a rank-3 input: rows of 4 (same as single-axis for the last axis).
  expect_tensor_near(
      run1({"LogSoftmax", "", 11, {{"axis", attr_int(2)}}, {kS}}),
      f32({2, 3, 4}, {-2.28733867f,  -1.78733867f,  -1.28733867f,  -0.787338672f, -1.70517316f, -1.20517316f,
                      -0.705173162f, -3.70517316f,  -2.28733867f,  -1.78733867f,  -1.28733867f, -0.787338672f,
                      -1.05296672f,  -0.552966718f, -3.55296672f,  -3.05296672f,  -2.28733867f, -1.78733867f,
                      -1.28733867f,  -0.787338672f, -0.236815542f, -3.23681554f,  -2.73681554f, -2.23681554f}));
}

TEST(Softmax, LargeValuesAreStable) {
  const Tensor x = f32({1, 3}, {1000, 1001, 1002});
  expect_tensor_near(run1({"Softmax", "", 13, {}, {x}}), f32({1, 3}, {0.0900305732f, 0.244728471f, 0.665240956f}));
  expect_tensor_near(run1({"LogSoftmax", "", 13, {}, {x}}), f32({1, 3}, {-2.40760596f, -1.40760596f, -0.407605964f}));
}

TEST(Hardmax, FirstMaximumWins) {
  expect_tensor_eq(run1({"Hardmax", "", 13, {{"axis", attr_int(1)}}, {kS}}),
                   f32({2, 3, 4}, {0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0}));
  // Coerced: one 1 per row of 12.
  expect_tensor_eq(run1({"Hardmax", "", 11, {}, {kS}}),
                   f32({2, 3, 4}, {0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  expect_tensor_eq(run1({"Hardmax", "", 13, {}, {f32({2, 4}, {1, 3, 3, 2, -1, -1, -1, -1})}}),
                   f32({2, 4}, {0, 1, 0, 0, 1, 0, 0, 0}));
}

TEST(Softmax, HalfTypesAndZeroSize) {
  for (DType t : {DType::kFloat16, DType::kBFloat16, DType::kFloat64}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor y = run1({"Softmax", "", 13, {}, {cast_f32(f32({1, 3}, {1, 2, 3}), t)}});
    ASSERT_EQ(y.dtype(), t);
    expect_tensor_near(as_f32(y), f32({1, 3}, {0.0900305732f, 0.244728471f, 0.665240956f}), 1e-2, 1e-3);
  }
  EXPECT_EQ(run1({"Softmax", "", 13, {{"axis", attr_int(0)}}, {f32({0, 3}, {})}}).shape(), (Shape{0, 3}));
  EXPECT_EQ(run1({"LogSoftmax", "", 11, {}, {f32({2, 0}, {})}}).shape(), (Shape{2, 0}));
}

// Softmax over axis 1 of an awkward shape against a direct computation.
TEST(Softmax, RandomAwkwardShapeMatchesDirectLoop) {
  const Tensor x = random_f32({3, 5, 7}, 42, -4, 4);
  const Tensor y = run1({"Softmax", "", 13, {{"axis", attr_int(1)}}, {x}});
  const Tensor z = run1({"LogSoftmax", "", 13, {{"axis", attr_int(1)}}, {x}});
  const float* px = x.data<float>();
  for (int a = 0; a < 3; ++a)
    for (int c = 0; c < 7; ++c) {
      double sum = 0;
      for (int b = 0; b < 5; ++b) sum += std::exp(static_cast<double>(px[(a * 5 + b) * 7 + c]));
      for (int b = 0; b < 5; ++b) {
        const int i = (a * 5 + b) * 7 + c;
        EXPECT_NEAR(y.data<float>()[i], std::exp(static_cast<double>(px[i])) / sum, 1e-6) << i;
        EXPECT_NEAR(z.data<float>()[i], static_cast<double>(px[i]) - std::log(sum), 1e-5) << i;
      }
    }
}

TEST(Softmax, Errors) {
  expect_error({"Softmax", "", 13, {{"axis", attr_int(3)}}, {kS}}, StatusCode::kInvalidModel, "axis 3 is out of range");
  expect_error({"LogSoftmax", "", 11, {{"axis", attr_int(-4)}}, {kS}}, StatusCode::kInvalidModel,
               "axis -4 is out of range");
  expect_error({"Hardmax", "", 13, {}, {f32({}, {1})}}, StatusCode::kInvalidModel, "out of range");
  expect_error({"Softmax", "", 13, {}, {i64({2}, {1, 2})}}, StatusCode::kUnsupported, "int64");
  expect_error({"Softmax", "", 13, {}, {kS, kS}}, StatusCode::kInvalidModel, "at most 1 input");
}

// ---- Static inference over symbolic shapes ------------------------------------------------

TEST(NnInference, SymbolicDimsStaySymbolic) {
  const ir::ValueType x = ir::ValueType::tensor(DType::kFloat32, dims({"N", "3", "S"}));
  for (const char* op : {"Elu", "Softsign", "Cos", "Softmax", "LogSoftmax", "Hardmax", "Clip"})
    EXPECT_EQ(inferred({op, "", 13, {}, {}}, {x}), "float32[N, 3, S]") << op;
  EXPECT_EQ(inferred({"Softmax", "", 11, {{"axis", attr_int(2)}}, {}}, {x}), "float32[N, 3, S]");
  EXPECT_EQ(inferred({"PRelu", "", 16, {}, {}}, {x, ir::ValueType::tensor(DType::kFloat32, dims({"3", "1"}))}),
            "float32[N, 3, S]");
  EXPECT_EQ(inferred({"PRelu", "", 16, {}, {}}, {x, ir::ValueType::tensor(DType::kFloat32, dims({"M"}))}),
            "float32[N, 3, S]");
  const ir::ValueType unknown = ir::ValueType::tensor_unknown_shape(DType::kFloat16);
  EXPECT_EQ(inferred({"Softmax", "", 13, {}, {}}, {unknown}), "float16[...]");
  EXPECT_EQ(inferred({"Gelu", "", 20, {}, {}}, {unknown}), "float16[...]");
  // Known dims still fail against symbolic ones where they cannot match.
  EXPECT_NE(inferred({"PRelu", "", 16, {}, {}}, {x, ir::ValueType::tensor(DType::kFloat32, dims({"4", "1"}))})
                .find("does not broadcast"),
            std::string::npos);
  EXPECT_NE(inferred({"Softmax", "", 13, {{"axis", attr_int(3)}}, {}}, {x}).find("out of range"), std::string::npos);
}

}  // namespace
}  // namespace hi::test
