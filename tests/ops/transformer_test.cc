// SwiGLU (opset 28), CausalConvWithState and LinearAttention (opset 27) and FlexAttention
// (ai.onnx.preview 1). Expected values are worked out by hand (numpy for the sigmoids).
#include <cmath>
#include <memory>

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

void expect_error(const OpCase& c, StatusCode code, const std::string& needle) {
  for (bool constants : {false, true}) {
    auto r = run_op_once(c, constants);
    ASSERT_FALSE(r.is_ok()) << c.op_type << " should fail (constants=" << constants << ")";
    EXPECT_EQ(r.status().code(), code) << r.status().to_string();
    EXPECT_NE(r.status().message().find(needle), std::string::npos)
        << "'" << needle << "' not in: " << r.status().message();
  }
}

// ---- SwiGLU ------------------------------------------------------------------------------

TEST(SwiGLU, HandComputed) {
  const Tensor a = f32({2, 2}, {0, 1, -1, 2}), b = f32({2, 2}, {1, 2, 3, 0.5f});
  expect_tensor_near(run({"SwiGLU", "", 28, {}, {a, b}})[0], f32({2, 2}, {0, 1.46211716f, -0.80682426f, 0.88079708f}));
  expect_tensor_near(run({"SwiGLU", "", 28, {{"alpha", attr_float(2)}}, {a, b}})[0],
                     f32({2, 2}, {0, 1.76159416f, -0.35760877f, 0.98201379f}));
  auto half = run({"SwiGLU", "", 28, {}, {cast_f32(a, DType::kFloat16), cast_f32(b, DType::kFloat16)}})[0];
  expect_tensor_near(as_f32(half), f32({2, 2}, {0, 1.46211716f, -0.80682426f, 0.88079708f}), 1e-3, 1e-3);
}

TEST(SwiGLU, Errors) {
  expect_error({"SwiGLU", "", 28, {}, {f32({2}, {1, 2}), f32({1, 2}, {1, 2})}}, StatusCode::kInvalidModel,
               "must have the same shape (SwiGLU does not broadcast)");
  expect_error({"SwiGLU", "", 28, {}, {i64({2}, {1, 2}), i64({2}, {1, 2})}}, StatusCode::kUnsupported,
               "SwiGLU (opset 28) does not support A of type int64");
}

// ---- CausalConvWithState -----------------------------------------------------------------

OpCase conv(std::vector<Tensor> inputs, Attrs attrs = {}) {
  return {"CausalConvWithState", "", 27, std::move(attrs), std::move(inputs), 2};
}

// Kernel [1, 0, -1]: out[t] = padded[t] - padded[t + 2].
const Tensor kX = f32({1, 1, 4}, {1, 2, 3, 4});
const Tensor kW = f32({1, 1, 3}, {1, 0, -1});

TEST(CausalConvWithState, HandComputed) {
  auto out = run(conv({kX, kW}));  // zero padding: [0, 0, 1, 2, 3, 4]
  expect_tensor_eq(out[0], f32({1, 1, 4}, {-1, -2, -2, -2}));
  expect_tensor_eq(out[1], f32({1, 1, 2}, {3, 4}));
  out = run(conv({kX, kW, f32({1}, {1}), f32({1, 1, 2}, {5, 6})}));  // [5, 6, 1, 2, 3, 4], bias 1
  expect_tensor_eq(out[0], f32({1, 1, 4}, {5, 5, -1, -1}));
  out = run(conv({kX, kW, Tensor(), Tensor()}, {{"activation", attr_string("silu")}}));
  expect_tensor_near(out[0], f32({1, 1, 4}, {-0.26894142f, -0.23840584f, -0.23840584f, -0.23840584f}));
  // An input shorter than k - 1: the state keeps part of the past.
  out = run(conv({f32({1, 1, 1}, {7}), kW, Tensor(), f32({1, 1, 2}, {5, 6})}));
  expect_tensor_eq(out[0], f32({1, 1, 1}, {-2}));
  expect_tensor_eq(out[1], f32({1, 1, 2}, {6, 7}));
  // k = 1: an empty state.
  out = run(conv({kX, f32({1, 1, 1}, {2})}));
  expect_tensor_eq(out[0], f32({1, 1, 4}, {2, 4, 6, 8}));
  EXPECT_EQ(out[1].shape(), (Shape{1, 1, 0}));
}

TEST(CausalConvWithState, ChannelsAndBatchesAreIndependent) {
  // Two batches, three channels: each (batch, channel) row equals a one-row run.
  const Tensor x = random_f32({2, 3, 5}, 1), w = random_f32({3, 1, 4}, 2), past = random_f32({2, 3, 3}, 3);
  auto out = run(conv({x, w, Tensor(), past}));
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t c = 0; c < 3; ++c) {
      const int64_t bc = b * 3 + c;
      auto one = run(conv(
          {make<float>({1, 1, 5}, std::vector<float>(x.data<float>() + bc * 5, x.data<float>() + bc * 5 + 5)),
           make<float>({1, 1, 4}, std::vector<float>(w.data<float>() + c * 4, w.data<float>() + c * 4 + 4)), Tensor(),
           make<float>({1, 1, 3}, std::vector<float>(past.data<float>() + bc * 3, past.data<float>() + bc * 3 + 3))}));
      for (int64_t t = 0; t < 5; ++t)
        EXPECT_EQ(out[0].data<float>()[bc * 5 + t], one[0].data<float>()[t]) << bc << " " << t;
      for (int64_t t = 0; t < 3; ++t) EXPECT_EQ(out[1].data<float>()[bc * 3 + t], x.data<float>()[bc * 5 + 2 + t]);
    }
}

TEST(CausalConvWithState, Errors) {
  expect_error(conv({kX, f32({2, 1, 3}, {1, 0, -1, 1, 0, -1})}), StatusCode::kInvalidArgument,
               "weight must be [channels 1, 1, k >= 1]");
  expect_error(conv({kX, kW, Tensor(), f32({1, 1, 3}, {1, 2, 3})}), StatusCode::kInvalidArgument,
               "past_state must be [batch, channels, k - 1] = [1, 1, 2], got [1, 1, 3]");
  expect_error(conv({kX, kW}, {{"activation", attr_string("relu")}}), StatusCode::kInvalidModel, "got 'relu'");
  expect_error(conv({cast_f32(kX, DType::kFloat64), cast_f32(kW, DType::kFloat64)}), StatusCode::kUnsupported,
               "CausalConvWithState (opset 27) does not support input of type float64");
}

// ---- LinearAttention ---------------------------------------------------------------------

// One head, d_k = d_v = 1, two steps: q [1, 1], k [1, 2], v [3, 4].
const Tensor kLq = f32({1, 2, 1}, {1, 1});
const Tensor kLk = f32({1, 2, 1}, {1, 2});
const Tensor kLv = f32({1, 2, 1}, {3, 4});
const Tensor kDecay = f32({1, 2, 1}, {0, std::log(0.5f)});
const Tensor kBeta = f32({1, 2, 1}, {1, 0.5f});

OpCase linear(const std::string& rule, std::vector<Tensor> inputs, int64_t q_heads = 1, int64_t kv_heads = 1) {
  return {
      "LinearAttention",
      "",
      27,
      {{"update_rule", attr_string(rule)}, {"q_num_heads", attr_int(q_heads)}, {"kv_num_heads", attr_int(kv_heads)}},
      std::move(inputs),
      2};
}

TEST(LinearAttention, UpdateRulesHandComputed) {
  // linear: S = 3, then 3 + 2 * 4 = 11.
  auto out = run(linear("linear", {kLq, kLk, kLv}));
  expect_tensor_near(out[0], f32({1, 2, 1}, {3, 11}));
  expect_tensor_near(out[1], f32({1, 1, 1, 1}, {11}));
  // gated: S = 3, then 0.5 * 3 + 8 = 9.5.
  expect_tensor_near(run(linear("gated", {kLq, kLk, kLv, Tensor(), kDecay}))[0], f32({1, 2, 1}, {3, 9.5f}));
  // delta: S = 3, then v' = 0.5 * (4 - 3 * 2) = -1, S = 3 + 2 * -1 = 1.
  expect_tensor_near(run(linear("delta", {kLq, kLk, kLv, Tensor(), Tensor(), kBeta}))[0], f32({1, 2, 1}, {3, 1}));
  // gated_delta: S = 3, then 1.5; v' = 0.5 * (4 - 1.5 * 2) = 0.5, S = 1.5 + 2 * 0.5 = 2.5.
  expect_tensor_near(run(linear("gated_delta", {kLq, kLk, kLv, Tensor(), kDecay, kBeta}))[0],
                     f32({1, 2, 1}, {3, 2.5f}));
  // A past state of 2 and scale 0.5 (linear): S = 5, then 13; outputs halved.
  OpCase c = linear("linear", {kLq, kLk, kLv, f32({1, 1, 1, 1}, {2})});
  c.attrs["scale"] = attr_float(0.5f);
  out = run(c);
  expect_tensor_near(out[0], f32({1, 2, 1}, {2.5f, 6.5f}));
  expect_tensor_near(out[1], f32({1, 1, 1, 1}, {13}));
}

TEST(LinearAttention, GroupedHeadsShareTheState) {
  // Two query heads on one kv head (d_k 3, d_v 2): query head 1 = 2 * head 0 gives twice the output.
  Tensor q = random_f32({2, 4, 6}, 4);
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t d = 0; d < 3; ++d) q.data<float>()[i * 6 + 3 + d] = 2 * q.data<float>()[i * 6 + d];
  const Tensor k = random_f32({2, 4, 3}, 5), v = random_f32({2, 4, 2}, 6), decay = random_f32({2, 4, 3}, 7, -1, 0);
  const Tensor beta = random_f32({2, 4, 1}, 8, 0, 1);
  auto out = run(linear("gated_delta", {q, k, v, Tensor(), decay, beta}, 2, 1));
  ASSERT_EQ(out[0].shape(), (Shape{2, 4, 4}));
  EXPECT_EQ(out[1].shape(), (Shape{2, 1, 3, 2}));
  for (int64_t i = 0; i < 8; ++i)
    for (int64_t m = 0; m < 2; ++m)
      EXPECT_NEAR(out[0].data<float>()[i * 4 + 2 + m], 2 * out[0].data<float>()[i * 4 + m], 1e-5) << i << " " << m;
  // Two steps at once equal one step, then the second with the first's state.
  auto step = [&](int64_t t, const Tensor& past) {
    auto slice = [&](const Tensor& x) {
      const int64_t d = x.dim(2);
      std::vector<float> v2;
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t j = 0; j < d; ++j) v2.push_back(x.data<float>()[(b * 4 + t) * d + j]);
      return make<float>({2, 1, d}, v2);
    };
    return run(linear("gated_delta", {slice(q), slice(k), slice(v), past, slice(decay), slice(beta)}, 2, 1));
  };
  Tensor state = Tensor::zeros(DType::kFloat32, {2, 1, 3, 2});
  for (int64_t t = 0; t < 4; ++t) state = step(t, state)[1];
  expect_tensor_near(state, out[1], 1e-5, 1e-6);
}

TEST(LinearAttention, Errors) {
  expect_error(linear("gated", {kLq, kLk, kLv}), StatusCode::kInvalidModel,
               "update_rule 'gated' needs the decay input");
  expect_error(linear("linear", {kLq, kLk, kLv, Tensor(), Tensor(), kBeta}), StatusCode::kInvalidModel,
               "update_rule 'linear' does not take the beta input");
  expect_error(linear("linear", {kLq, kLk, kLv, f32({1, 1, 2, 1}, {0, 0})}), StatusCode::kInvalidArgument,
               "past_state must be [1, 1, 1, 1], got [1, 1, 2, 1]");
  expect_error(linear("linear", {kLq, kLk, kLv}, 3, 2), StatusCode::kInvalidModel,
               "must be a positive multiple of kv_num_heads 2");
  expect_error(linear("fast", {kLq, kLk, kLv}), StatusCode::kInvalidModel, "got 'fast'");
  expect_error(linear("linear",
                      {cast_f32(kLq, DType::kFloat64), cast_f32(kLk, DType::kFloat64), cast_f32(kLv, DType::kFloat64)}),
               StatusCode::kUnsupported, "LinearAttention (opset 27) does not support query of type float64");
}

// ---- FlexAttention -----------------------------------------------------------------------

// A one-node modifier graph: out = Op(x, c) with a scalar initializer c.
ir::Attribute mod_graph(const std::string& op, float c) {
  auto g = std::make_shared<ir::Graph>();
  g->name = "mod";
  g->inputs.push_back({"x", ir::ValueType::tensor_unknown_shape(DType::kFloat32)});
  g->initializers["c"] = Tensor::scalar(c);
  ir::Node n;
  n.op_type = op;
  n.name = "mod_node";
  n.inputs = {"x", "c"};
  n.outputs = {"y"};
  g->nodes.push_back(n);
  g->outputs.push_back({"y", ir::ValueType::tensor_unknown_shape(DType::kFloat32)});
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kGraph;
  a.g = g;
  return a;
}

OpCase flex(std::vector<Tensor> inputs, Attrs attrs = {}) {
  return {"FlexAttention", "ai.onnx.preview", 26, std::move(attrs), std::move(inputs), 1};
}

// One query, two keys with E = 1 (scale 1): scores [0, 1], softmax [0.26894142, 0.73105858].
const Tensor kQ = f32({1, 1, 1, 1}, {1});
const Tensor kK = f32({1, 1, 2, 1}, {0, 1});
const Tensor kV = f32({1, 1, 2, 2}, {1, 2, 3, 4});

TEST(FlexAttention, HandComputedWithModifiers) {
  expect_tensor_near(run(flex({kQ, kK, kV}))[0], f32({1, 1, 1, 2}, {2.46211716f, 3.46211716f}));
  // score_mod adding a constant changes nothing; multiplying by 0 makes the keys equal.
  expect_tensor_near(run(flex({kQ, kK, kV}, {{"score_mod", mod_graph("Add", 5)}}))[0],
                     f32({1, 1, 1, 2}, {2.46211716f, 3.46211716f}));
  expect_tensor_near(run(flex({kQ, kK, kV}, {{"score_mod", mod_graph("Mul", 0)}}))[0], f32({1, 1, 1, 2}, {2, 3}));
  // prob_mod doubling the probabilities doubles Y.
  expect_tensor_near(run(flex({kQ, kK, kV}, {{"prob_mod", mod_graph("Mul", 2)}}))[0],
                     f32({1, 1, 1, 2}, {4.92423432f, 6.92423432f}));
  // Grouped heads and float64.
  const Tensor q = random_f32({1, 4, 3, 2}, 9), k = random_f32({1, 2, 5, 2}, 10), v = random_f32({1, 2, 5, 3}, 11);
  const Tensor y = run(flex({q, k, v}))[0];
  ASSERT_EQ(y.shape(), (Shape{1, 4, 3, 3}));
  auto y64 = run(flex({cast_f32(q, DType::kFloat64), cast_f32(k, DType::kFloat64), cast_f32(v, DType::kFloat64)}))[0];
  expect_tensor_near(as_f32(y64), y, 1e-5, 1e-6);
}

TEST(FlexAttention, Errors) {
  expect_error(flex({kQ, f32({1, 1, 2, 2}, {0, 1, 2, 3}), kV}), StatusCode::kInvalidArgument,
               "K must be [1, kv_num_heads");
  expect_error(flex({f32({1, 1, 1}, {1}), kK, kV}), StatusCode::kInvalidModel, "must be 4-D");
  expect_error(flex({kQ, cast_f32(kK, DType::kFloat16), kV}), StatusCode::kInvalidModel,
               "K is float16 but Q is float32");
  expect_error(flex({kQ, kK, kV}, {{"softmax_precision", attr_int(7)}}), StatusCode::kUnsupported,
               "softmax_precision 7 (int64)");
}

}  // namespace
}  // namespace hi::test
