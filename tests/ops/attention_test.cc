// Attention (opsets 23-25) and RotaryEmbedding (opset 23). Small cases are worked out by hand
// (numpy checked the softmax values); larger ones compare with a naive loop-by-loop reference
// written here from the spec, or with the same computation spelled another way (3-D vs 4-D,
// grouped heads vs repeated heads, past + new keys vs all keys at once).
#include <cmath>
#include <limits>

#include "ops/nn_test_util.h"
#include "ops/op_test_util.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;
constexpr float kInf = std::numeric_limits<float>::infinity();

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

// Plain attention over 4-D float tensors: q [B, Hq, Sq, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv],
// an additive mask [Sq, T] (or none), causal with query i seeing keys j <= i + offset.
Tensor naive_attention(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor* mask, bool causal,
                       int64_t offset, double scale) {
  const int64_t B = q.dim(0), Hq = q.dim(1), Sq = q.dim(2), D = q.dim(3);
  const int64_t Hkv = k.dim(1), T = k.dim(2), Dv = v.dim(3);
  Tensor y = Tensor::zeros(DType::kFloat32, {B, Hq, Sq, Dv});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t g = h / (Hq / Hkv);
      for (int64_t i = 0; i < Sq; ++i) {
        std::vector<double> s(static_cast<size_t>(T));
        double mx = -INFINITY;
        for (int64_t j = 0; j < T; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += q.data<float>()[((b * Hq + h) * Sq + i) * D + d] * k.data<float>()[((b * Hkv + g) * T + j) * D + d];
          double x = dot * scale + (mask ? mask->data<float>()[i * T + j] : 0.0);
          if (causal && j > i + offset) x = -INFINITY;
          s[static_cast<size_t>(j)] = x;
          mx = std::max(mx, x);
        }
        if (mx == -INFINITY) continue;  // no key: a zero row
        double sum = 0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t j = 0; j < T; ++j)
          for (int64_t e = 0; e < Dv; ++e)
            y.data<float>()[((b * Hq + h) * Sq + i) * Dv + e] +=
                static_cast<float>(s[static_cast<size_t>(j)] / sum * v.data<float>()[((b * Hkv + g) * T + j) * Dv + e]);
      }
    }
  return y;
}

// [B, H, S, D] -> [B, S, H * D] and back.
Tensor to_3d(const Tensor& t) {
  const int64_t B = t.dim(0), H = t.dim(1), S = t.dim(2), D = t.dim(3);
  Tensor out = Tensor::empty(DType::kFloat32, {B, S, H * D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < D; ++d)
          out.data<float>()[((b * S + s) * H + h) * D + d] = t.data<float>()[((b * H + h) * S + s) * D + d];
  return out;
}

// Heads repeated `times` each (h0, h0, h1, h1, ...), and a slice of the sequence dim.
Tensor repeat_heads(const Tensor& t, int64_t times) {
  const int64_t B = t.dim(0), H = t.dim(1), S = t.dim(2), D = t.dim(3);
  Tensor out = Tensor::empty(DType::kFloat32, {B, H * times, S, D});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H * times; ++h)
      for (int64_t i = 0; i < S * D; ++i)
        out.data<float>()[(b * H * times + h) * S * D + i] = t.data<float>()[(b * H + h / times) * S * D + i];
  return out;
}
Tensor seq_slice(const Tensor& t, int64_t from, int64_t to) {
  const int64_t B = t.dim(0), H = t.dim(1), S = t.dim(2), D = t.dim(3);
  Tensor out = Tensor::empty(DType::kFloat32, {B, H, to - from, D});
  for (int64_t bh = 0; bh < B * H; ++bh)
    for (int64_t s = from; s < to; ++s)
      for (int64_t d = 0; d < D; ++d)
        out.data<float>()[(bh * (to - from) + s - from) * D + d] = t.data<float>()[(bh * S + s) * D + d];
  return out;
}

OpCase attention(std::vector<Tensor> inputs, Attrs attrs = {}, int outputs = 1, int64_t opset = 23) {
  return {"Attention", "", opset, std::move(attrs), std::move(inputs), outputs};
}

// One query, two keys with D = 1 (scale 1): scores [0, 1], softmax [0.26894142, 0.73105858].
const Tensor kQ1 = f32({1, 1, 1, 1}, {1});
const Tensor kK1 = f32({1, 1, 2, 1}, {0, 1});
const Tensor kV1 = f32({1, 1, 2, 2}, {1, 2, 3, 4});

TEST(Attention, HandComputedSingleQuery) {
  expect_tensor_near(run(attention({kQ1, kK1, kV1}))[0], f32({1, 1, 1, 2}, {2.46211716f, 3.46211716f}));
  // scale 4: Q and K each times 2, scores [0, 4].
  expect_tensor_near(run(attention({kQ1, kK1, kV1}, {{"scale", attr_float(4)}}))[0],
                     f32({1, 1, 1, 2}, {2.96402758f, 3.96402758f}));
  // softcap 0.5: scores [0, 0.5 tanh(2)] = [0, 0.48201379].
  expect_tensor_near(run(attention({kQ1, kK1, kV1}, {{"softcap", attr_float(0.5f)}}))[0],
                     f32({1, 1, 1, 2}, {2.23644658f, 3.23644658f}));
}

TEST(Attention, MasksBoolAdditivePaddedAndFullyMasked) {
  // Boolean: only key 1 allowed -> V[1]. Additive -inf on key 0 does the same.
  const Tensor only_second = make<bool>({1, 2}, {false, true});
  expect_tensor_near(run(attention({kQ1, kK1, kV1, only_second}))[0], f32({1, 1, 1, 2}, {3, 4}));
  expect_tensor_near(run(attention({kQ1, kK1, kV1, f32({2}, {-kInf, 0})}))[0], f32({1, 1, 1, 2}, {3, 4}));
  // Additive +1 on key 0 makes the scores equal: the mean of the values.
  expect_tensor_near(run(attention({kQ1, kK1, kV1, f32({1, 1, 1, 2}, {1, 0})}))[0], f32({1, 1, 1, 2}, {2, 3}));
  // A mask shorter than the keys is padded with "masked": [true] allows key 0 only.
  expect_tensor_near(run(attention({kQ1, kK1, kV1, make<bool>({1}, {true})}))[0], f32({1, 1, 1, 2}, {1, 2}));
  // Every key masked: zeros, not NaN, in Y and in the mode-3 probabilities.
  auto out =
      run(attention({kQ1, kK1, kV1, make<bool>({2}, {false, false})}, {{"qk_matmul_output_mode", attr_int(3)}}, 4));
  expect_tensor_eq(out[0], f32({1, 1, 1, 2}, {0, 0}));
  expect_tensor_eq(out[3], f32({1, 1, 1, 2}, {0, 0}));
}

TEST(Attention, QkMatmulOutputModes) {
  const Tensor mask = f32({2}, {0.5f, 0});
  const Attrs softcap = {{"softcap", attr_float(0.5f)}};
  auto with_mode = [&](int64_t mode) {
    Attrs a = softcap;
    a["qk_matmul_output_mode"] = attr_int(mode);
    return run(attention({kQ1, kK1, kV1, mask}, a, 4))[3];
  };
  expect_tensor_near(with_mode(0), f32({1, 1, 1, 2}, {0, 1}));                      // raw Q Kᵀ
  expect_tensor_near(with_mode(1), f32({1, 1, 1, 2}, {0, 0.48201379f}));            // after softcap
  expect_tensor_near(with_mode(2), f32({1, 1, 1, 2}, {0.5f, 0.48201379f}));         // + mask
  expect_tensor_near(with_mode(3), f32({1, 1, 1, 2}, {0.50449643f, 0.49550357f}));  // softmax
}

TEST(Attention, CausalIsBottomRightWithPast) {
  // Two queries, two new keys, no past: query 0 sees key 0 only.
  const Tensor q = f32({1, 1, 2, 1}, {1, 1});
  auto y = run(attention({q, kK1, kV1}, {{"is_causal", attr_int(1)}}))[0];
  expect_tensor_near(y, f32({1, 1, 2, 2}, {1, 2, 2.46211716f, 3.46211716f}));
  // One query with one past key and one new key: offset 1, so it sees both.
  const Tensor past_k = f32({1, 1, 1, 1}, {0}), past_v = f32({1, 1, 1, 2}, {1, 2});
  auto out = run(attention({kQ1, f32({1, 1, 1, 1}, {1}), f32({1, 1, 1, 2}, {3, 4}), Tensor(), past_k, past_v},
                           {{"is_causal", attr_int(1)}}, 3));
  expect_tensor_near(out[0], f32({1, 1, 1, 2}, {2.46211716f, 3.46211716f}));
  expect_tensor_eq(out[1], kK1);
  expect_tensor_eq(out[2], kV1);
}

TEST(Attention, AwkwardSizesAgainstNaiveReference) {
  // 2 batches, 6 query heads over 3 kv heads, 5 queries, 7 keys, head 3, value head 5.
  const Tensor q = random_f32({2, 6, 5, 3}, 1), k = random_f32({2, 3, 7, 3}, 2), v = random_f32({2, 3, 7, 5}, 3);
  const Tensor mask = random_f32({5, 7}, 4, -2, 2);
  const double scale = 1 / std::sqrt(3.0);
  expect_tensor_near(run(attention({q, k, v}))[0], naive_attention(q, k, v, nullptr, false, 0, scale), 1e-5, 1e-6);
  expect_tensor_near(run(attention({q, k, v, mask}, {{"is_causal", attr_int(1)}}))[0],
                     naive_attention(q, k, v, &mask, true, 0, scale), 1e-5, 1e-6);
  // Grouped heads equal the same heads repeated.
  expect_tensor_near(run(attention({q, k, v}))[0], run(attention({q, repeat_heads(k, 2), repeat_heads(v, 2)}))[0], 1e-6,
                     1e-7);
  // 3-D inputs are the 4-D ones with heads packed into the last dim.
  auto y3 = run(
      attention({to_3d(q), to_3d(k), to_3d(v), mask}, {{"q_num_heads", attr_int(6)}, {"kv_num_heads", attr_int(3)}}));
  expect_tensor_near(y3[0], to_3d(naive_attention(q, k, v, &mask, false, 0, scale)), 1e-5, 1e-6);
  // Past (4 keys) + new (3 keys), causal: all 7 keys where query i sees keys j <= i + 4.
  auto out =
      run(attention({q, seq_slice(k, 4, 7), seq_slice(v, 4, 7), Tensor(), seq_slice(k, 0, 4), seq_slice(v, 0, 4)},
                    {{"is_causal", attr_int(1)}}, 3));
  expect_tensor_near(out[0], naive_attention(q, k, v, nullptr, true, 4, scale), 1e-5, 1e-6);
  expect_tensor_eq(out[1], k);
  expect_tensor_eq(out[2], v);
}

TEST(Attention, NonpadKvSeqlenOpset24) {
  const Tensor q = random_f32({2, 2, 3, 4}, 5), k = random_f32({2, 2, 6, 4}, 6), v = random_f32({2, 2, 6, 4}, 7);
  const Tensor lens = i64({2}, {4, 6});
  const double scale = 0.5;
  auto y = run(attention({q, k, v, Tensor(), Tensor(), Tensor(), lens}, {{"is_causal", attr_int(1)}}, 1, 24))[0];
  // Batch 0 keeps 4 keys with causal offset 4 - 3 = 1; batch 1 keeps 6 with offset 3.
  for (int64_t b = 0; b < 2; ++b) {
    const int64_t n = b == 0 ? 4 : 6;
    auto one = [&](const Tensor& t, int64_t len) {
      Tensor s = seq_slice(t, 0, len);
      const int64_t per = s.numel() / 2;
      return make<float>({1, s.dim(1), s.dim(2), s.dim(3)},
                         std::vector<float>(s.data<float>() + b * per, s.data<float>() + (b + 1) * per));
    };
    const Tensor expected = naive_attention(one(q, 3), one(k, n), one(v, n), nullptr, true, n - 3, scale);
    const int64_t per = y.numel() / 2;
    expect_tensor_near(
        make<float>(expected.shape(), std::vector<float>(y.data<float>() + b * per, y.data<float>() + (b + 1) * per)),
        expected, 1e-5, 1e-6);
  }
  // More queries than valid keys: the leading rows see nothing and are zero.
  auto z =
      run(attention({q, k, v, Tensor(), Tensor(), Tensor(), i64({2}, {1, 1})}, {{"is_causal", attr_int(1)}}, 1, 24))[0];
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(z.data<float>()[i], 0.f) << i;
}

TEST(Attention, SlidingWindowOpset25) {
  const Tensor q = random_f32({1, 1, 4, 2}, 8), k = random_f32({1, 1, 4, 2}, 9), v = random_f32({1, 1, 4, 2}, 10);
  // left 1, right 0: query i sees keys i - 1 and i, as an additive mask would.
  Tensor band = f32({4, 4}, std::vector<float>(16, -kInf));
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = std::max<int64_t>(0, i - 1); j <= i; ++j) band.data<float>()[i * 4 + j] = 0;
  expect_tensor_near(
      run(attention({q, k, v}, {{"left_window_size", attr_int(1)}, {"right_window_size", attr_int(0)}}, 1, 25))[0],
      naive_attention(q, k, v, &band, false, 0, 1 / std::sqrt(2.0)), 1e-5, 1e-6);
}

TEST(Attention, LowPrecisionTypes) {
  const Tensor q = random_f32({1, 2, 3, 4}, 11), k = random_f32({1, 2, 5, 4}, 12), v = random_f32({1, 2, 5, 4}, 13);
  const Tensor expected = run(attention({q, k, v}))[0];
  for (DType t : {DType::kFloat64, DType::kFloat16, DType::kBFloat16}) {
    SCOPED_TRACE(dtype_name(t));
    auto y = run(attention({cast_f32(q, t), cast_f32(k, t), cast_f32(v, t)}, {{"softmax_precision", attr_int(1)}}))[0];
    ASSERT_EQ(y.dtype(), t);
    expect_tensor_near(as_f32(y), expected, t == DType::kBFloat16 ? 3e-2 : 3e-3, 1e-3);
  }
  // V may have its own float type (T2); present_value keeps it.
  auto out = run(attention({q, k, cast_f32(v, DType::kFloat16)}, {}, 3));
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(out[2].dtype(), DType::kFloat16);
  expect_tensor_near(out[0], expected, 3e-3, 1e-3);
}

TEST(Attention, InferenceWithSymbolicDims) {
  OpCase c = attention({}, {{"q_num_heads", attr_int(4)}, {"kv_num_heads", attr_int(2)}}, 4);
  const auto f = [](std::vector<std::string> d) { return ir::ValueType::tensor(DType::kFloat32, dims(d)); };
  const std::vector<ir::ValueType> ins = {
      f({"B", "S", "32"}),     f({"B", "T", "16"}),
      f({"B", "T", "24"}),     ir::ValueType::tensor(DType::kBool, dims({"S", "P+T"})),
      f({"B", "2", "P", "8"}), f({"B", "2", "P", "12"})};
  EXPECT_EQ(inferred(c, ins, 0), "float32[B, S, 48]");
  EXPECT_EQ(inferred(c, ins, 1), "float32[B, 2, ?, 8]");
  EXPECT_EQ(inferred(c, ins, 2), "float32[B, 2, ?, 12]");
  EXPECT_EQ(inferred(c, ins, 3), "float32[B, 4, S, ?]");
}

TEST(Attention, Errors) {
  const Tensor q = random_f32({1, 3, 2, 4}, 14), k = random_f32({1, 2, 2, 4}, 15), v = random_f32({1, 2, 2, 4}, 16);
  expect_error(attention({q, k, v}), StatusCode::kInvalidArgument, "multiple of the number of key/value heads");
  expect_error(attention({to_3d(k), to_3d(k), to_3d(v)}), StatusCode::kInvalidArgument,
               "need the attributes q_num_heads and kv_num_heads");
  expect_error(attention({k, k, v, Tensor(), k}), StatusCode::kInvalidModel,
               "past_key and past_value must be given together");
  expect_error(attention({k, k, v, Tensor(), Tensor(), Tensor(), i64({1}, {2})}), StatusCode::kInvalidModel,
               "at most 6 inputs");
  expect_error(attention({k, k, v, Tensor(), Tensor(), Tensor(), i64({1}, {3})}, {}, 1, 24),
               StatusCode::kInvalidArgument, "nonpad_kv_seqlen[0] = 3 is outside [0, kv_sequence_length 2]");
  expect_error(attention({k, k, v, make<bool>({3}, {true, true, true})}), StatusCode::kInvalidArgument,
               "longer than the total sequence length 2");
  expect_error(attention({k, k, v, make<bool>({3, 2}, {true, true, true, true, true, true})}),
               StatusCode::kInvalidArgument, "attn_mask [3, 2] does not broadcast");
  expect_error(attention({k, random_f32({1, 2, 2, 3}, 17), v}), StatusCode::kInvalidArgument,
               "K must be [1, kv_num_heads");
  expect_error(attention({cast_f32(k, DType::kInt32), cast_f32(k, DType::kInt32), v}), StatusCode::kUnsupported,
               "Attention (opset 23) does not support Q of type int32");
  expect_error(attention({k, cast_f32(k, DType::kFloat16), v}), StatusCode::kInvalidModel,
               "K is float16 but Q is float32");
  expect_error(attention({k, k, v}, {{"softmax_precision", attr_int(6)}}), StatusCode::kUnsupported,
               "softmax_precision 6 (int32)");
  expect_error(attention({k, k, v}, {{"qk_matmul_output_mode", attr_int(4)}}), StatusCode::kInvalidModel,
               "0, 1, 2 or 3, got 4");
  expect_error(attention({k, k, v}, {{"q_num_heads", attr_int(2)}, {"kv_num_heads", attr_int(2)}}, 1, 25),
               StatusCode::kInvalidArgument, "must not be given for 4-D inputs");
}

// ---- RotaryEmbedding ---------------------------------------------------------------------

OpCase rotary(std::vector<Tensor> inputs, Attrs attrs = {}) {
  return {"RotaryEmbedding", "", 23, std::move(attrs), std::move(inputs), 1};
}

// cos [0, 1], sin [1, 0]: the first pair turns by 90 degrees, the second stays.
const Tensor kCos = f32({1, 1, 2}, {0, 1});
const Tensor kSin = f32({1, 1, 2}, {1, 0});
const Tensor kX4 = f32({1, 1, 1, 4}, {1, 2, 3, 4});

TEST(RotaryEmbedding, HandComputedHalvesAndInterleaved) {
  // Halves: pairs (x0, x2) and (x1, x3). (1, 3) -> (0*1 - 1*3, 1*1 + 0*3) = (-3, 1).
  expect_tensor_eq(run(rotary({kX4, kCos, kSin}))[0], f32({1, 1, 1, 4}, {-3, 2, 1, 4}));
  // Interleaved: pairs (x0, x1) and (x2, x3). (1, 2) -> (-2, 1).
  expect_tensor_eq(run(rotary({kX4, kCos, kSin}, {{"interleaved", attr_int(1)}}))[0], f32({1, 1, 1, 4}, {-2, 1, 3, 4}));
}

TEST(RotaryEmbedding, PositionIdsPartialRotationAnd3D) {
  // Cache rows: 0 = identity, 1 = 90 degrees; rotary_embedding_dim 2 of a head of 4.
  const Tensor cos = f32({2, 1}, {1, 0}), sin = f32({2, 1}, {0, 1});
  const Tensor x = f32({1, 2, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8});  // [B, H, S, D]
  const Tensor pos = i64({1, 2}, {1, 0});
  const Tensor expected = f32({1, 2, 2, 4}, {-2, 1, 3, 4, 5, 6, 7, 8, -2, 1, 3, 4, 5, 6, 7, 8});
  expect_tensor_eq(run(rotary({x, cos, sin, pos}, {{"rotary_embedding_dim", attr_int(2)}}))[0], expected);
  // The same as 3-D [B, S, H * D] with num_heads 2.
  expect_tensor_eq(
      run(rotary({to_3d(x), cos, sin, pos}, {{"rotary_embedding_dim", attr_int(2)}, {"num_heads", attr_int(2)}}))[0],
      to_3d(expected));
}

TEST(RotaryEmbedding, AwkwardSizesAndLowPrecision) {
  // Head 6 fully rotated, 3 heads, 5 tokens: each pair keeps its length.
  const Tensor x = random_f32({2, 3, 5, 6}, 20);
  Tensor cos = Tensor::empty(DType::kFloat32, {7, 3}), sin = Tensor::empty(DType::kFloat32, {7, 3});
  for (int64_t i = 0; i < 21; ++i) {
    cos.data<float>()[i] = std::cos(0.3f * static_cast<float>(i));
    sin.data<float>()[i] = std::sin(0.3f * static_cast<float>(i));
  }
  const Tensor pos = i64({2, 5}, {0, 1, 2, 3, 4, 6, 5, 4, 3, 2});
  const Tensor y = run(rotary({x, cos, sin, pos}))[0];
  for (int64_t row = 0; row < 2 * 3 * 5; ++row)
    for (int64_t k = 0; k < 3; ++k) {
      const float* a = x.data<float>() + row * 6;
      const float* b = y.data<float>() + row * 6;
      EXPECT_NEAR(a[k] * a[k] + a[k + 3] * a[k + 3], b[k] * b[k] + b[k + 3] * b[k + 3], 1e-5) << row << " " << k;
    }
  for (DType t : {DType::kFloat16, DType::kBFloat16}) {
    auto low = run(rotary({cast_f32(x, t), cast_f32(cos, t), cast_f32(sin, t), pos}))[0];
    ASSERT_EQ(low.dtype(), t);
    expect_tensor_near(as_f32(low), y, 2e-2, 2e-2);
  }
}

TEST(RotaryEmbedding, Errors) {
  expect_error(rotary({kX4, kCos, kSin, i64({1, 1}, {1})}), StatusCode::kInvalidArgument,
               "with position_ids, cos_cache must be");
  expect_error(rotary({kX4, f32({1, 2}, {1, 1}), f32({1, 2}, {0, 0}), i64({1, 1}, {3})}), StatusCode::kInvalidArgument,
               "position_ids[0, 0] = 3 is outside");
  expect_error(rotary({f32({1, 1, 4}, {1, 2, 3, 4}), kCos, kSin}), StatusCode::kInvalidModel,
               "needs the attribute num_heads");
  expect_error(rotary({kX4, kCos, kSin}, {{"rotary_embedding_dim", attr_int(3)}}), StatusCode::kInvalidModel,
               "must be even");
  expect_error(rotary({kX4, kCos, kSin}, {{"rotary_embedding_dim", attr_int(6)}}), StatusCode::kInvalidArgument,
               "at most the head size 4");
  expect_error(
      rotary({cast_f32(kX4, DType::kFloat64), cast_f32(kCos, DType::kFloat64), cast_f32(kSin, DType::kFloat64)}),
      StatusCode::kUnsupported, "RotaryEmbedding (opset 23) does not support X of type float64");
  expect_error(rotary({kX4, cast_f32(kCos, DType::kFloat16), kSin}), StatusCode::kInvalidModel, "cos_cache is float16");
}

}  // namespace
}  // namespace hi::test
