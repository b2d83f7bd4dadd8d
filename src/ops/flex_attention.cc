// FlexAttention (ai.onnx.preview, version 1): scaled dot-product attention over 4-D Q [B, Hq, L, E],
// K [B, Hkv, S, E], V [B, Hkv, S, Ev] (query head h reads kv head h / (Hq / Hkv)), with two
// optional subgraphs: score_mod on the scores [B, Hq, L, S] before the softmax, and prob_mod on
// the probabilities after it. Both see tensors of the softmax precision C: softmax_precision when
// given, else float64 for float64 inputs and float32 for the others.
//   scores = (Q * sqrt(scale)) (K * sqrt(scale))ᵀ   (rounded to T, then held in C)
//   Y = prob_mod(softmax(score_mod(scores))) V     (rounded once to T)
// A row whose scores are all -inf (masked by score_mod) softmaxes to zeros, not NaN.
#include "ops/attention_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class FlexAttentionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    has_scale_ = ctx.has("scale");
    scale_ = ctx.get_float("scale", 1.f);
    has_score_mod_ = ctx.get_graph("score_mod") != nullptr;
    has_prob_mod_ = ctx.get_graph("prob_mod") != nullptr;
    if (ctx.has("softmax_precision")) softmax_type_ = static_cast<DType>(ctx.get_int("softmax_precision", 1));
    HI_RETURN_IF_ERROR(ctx.status());
    if (softmax_type_ != DType::kUndefined && !in_set(kFloatTypes, softmax_type_))
      return ctx.fail(StatusCode::kUnsupported, "FlexAttention (ai.onnx.preview version ", opset_,
                      "): softmax_precision ", static_cast<int>(softmax_type_), " (", dtype_name(softmax_type_),
                      ") is not supported; expected 1 (float32), 10 (float16), 11 (float64) or 16 (bfloat16)");
    if (has_scale_ && !(scale_ >= 0))
      return ctx.fail(StatusCode::kInvalidModel,
                      "attribute scale must be >= 0 (Q and K are each scaled by its square root), got ", scale_);
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3, 1));
    const ir::ValueType& q = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_types(q.dtype, ctx.input_type(1).dtype, ctx.input_type(2).dtype));
    for (size_t i = 0; i < 3; ++i)
      if (ctx.input_type(i).has_rank() && ctx.input_type(i).rank() != 4)
        return error(StatusCode::kInvalidModel, "Q, K and V must be 4-D, got ", kNames[i], " ",
                     ctx.input_type(i).to_string());
    if (q.is_static() && ctx.input_type(1).is_static() && ctx.input_type(2).is_static())
      HI_RETURN_IF_ERROR(
          check_shapes(q.concrete_shape(), ctx.input_type(1).concrete_shape(), ctx.input_type(2).concrete_shape()));
    const ir::ValueType& v = ctx.input_type(2);
    if (q.has_rank()) {
      const ir::Dim v_head = v.has_rank() ? (*v.shape)[3] : ir::Dim{};
      ctx.set_output_type(0, ir::ValueType::tensor(q.dtype, {(*q.shape)[0], (*q.shape)[1], (*q.shape)[2], v_head}));
    } else {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(q.dtype));
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& q = ctx.in(0);
    const Tensor& k = ctx.in(1);
    const Tensor& v = ctx.in(2);
    HI_RETURN_IF_ERROR(check_types(q.dtype(), k.dtype(), v.dtype()));
    HI_RETURN_IF_ERROR(check_shapes(q.shape(), k.shape(), v.shape()));
    const int64_t batch = q.dim(0), q_heads = q.dim(1), len = q.dim(2), head = q.dim(3);
    const int64_t kv_heads = k.dim(1), kv_len = k.dim(2), v_head = v.dim(3);
    const DType t = q.dtype();
    const DType c = softmax_type_ != DType::kUndefined ? softmax_type_ : t == DType::kFloat64 ? t : DType::kFloat32;
    const Shape score_shape{batch, q_heads, len, kv_len};

    // Scores in T (Q and K each scaled by sqrt(scale), rounded to T), then held in C.
    const double scale = has_scale_ ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(head));
    const double sqrt_scale = attn::round_to(t, std::sqrt(static_cast<double>(static_cast<float>(scale))));
    std::vector<double> qs = attn::to_doubles(q), ks = attn::to_doubles(k);
    for (double& x : qs) x = attn::round_to(t, x * sqrt_scale);
    for (double& x : ks) x = attn::round_to(t, x * sqrt_scale);
    const std::vector<double> vs = attn::to_doubles(v);
    std::vector<double> scores(static_cast<size_t>(shape_numel(score_shape)));
    const int64_t group = q_heads / kv_heads;
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < q_heads; ++h)
        attn::matmul_qkt(qs.data() + (b * q_heads + h) * len * head,
                         ks.data() + (b * kv_heads + h / group) * kv_len * head, len, kv_len, head,
                         scores.data() + (b * q_heads + h) * len * kv_len);
    for (double& x : scores) x = attn::round_to(c, attn::round_to(t, x));

    if (has_score_mod_) HI_RETURN_IF_ERROR(apply_mod(ctx, "score_mod", c, score_shape, scores));
    for (int64_t row = 0; row < batch * q_heads * len; ++row) attn::softmax_row(scores.data() + row * kv_len, kv_len);
    attn::round_all(c, scores);
    if (has_prob_mod_) HI_RETURN_IF_ERROR(apply_mod(ctx, "prob_mod", c, score_shape, scores));

    // V in C, the product accumulated in double and rounded once to T.
    std::vector<double> y(static_cast<size_t>(batch * q_heads * len * v_head));
    std::vector<double> vc = vs;
    attn::round_all(c, vc);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t h = 0; h < q_heads; ++h)
        attn::matmul_pv(scores.data() + (b * q_heads + h) * len * kv_len,
                        vc.data() + (b * kv_heads + h / group) * kv_len * v_head, len, kv_len, v_head,
                        y.data() + (b * q_heads + h) * len * v_head);
    attn::store(y, ctx.output(0, t, {batch, q_heads, len, v_head}));
    return Status::ok();
  }

 private:
  static constexpr const char* kNames[] = {"Q", "K", "V"};

  // Runs a modifier subgraph on `values` (shape `shape`, type c) and reads its result back.
  static Status apply_mod(RunContext& ctx, const char* attr, DType c, const Shape& shape, std::vector<double>& values) {
    Tensor in = Tensor::empty(c, shape);
    attn::store(values, in);
    std::vector<Value> outs;
    HI_RETURN_IF_ERROR(ctx.run_subgraph(attr, {Value::of(std::move(in))}, &outs));
    if (outs.size() != 1 || !outs[0].is_tensor())
      return error(StatusCode::kInvalidArgument, attr, " must produce exactly one tensor, got ", outs.size(),
                   " outputs");
    const Tensor& out = outs[0].tensor;
    if (out.shape() != shape || !in_set(kFloatTypes, out.dtype()))
      return error(StatusCode::kInvalidArgument, attr, " must return a float tensor of shape ", shape_to_string(shape),
                   " (its input's), got ", out.type_string());
    for (int64_t i = 0; i < out.numel(); ++i) values[static_cast<size_t>(i)] = attn::round_to(c, out.as_double(i));
    return Status::ok();
  }

  Status check_types(DType q, DType k, DType v) const {
    const DType types[] = {q, k, v};
    for (size_t i = 0; i < 3; ++i) {
      if (types[i] == DType::kUndefined) continue;
      if (!in_set(kFloatTypes, types[i]))
        return error(StatusCode::kUnsupported, "FlexAttention (ai.onnx.preview version ", opset_, ") does not support ",
                     kNames[i], " of type ", dtype_name(types[i]), "; expected float32, float64, float16 or bfloat16");
      if (q != DType::kUndefined && types[i] != q)
        return error(StatusCode::kInvalidModel, kNames[i], " is ", dtype_name(types[i]), " but Q is ", dtype_name(q),
                     "; they must match");
    }
    return Status::ok();
  }

  static Status check_shapes(const Shape& q, const Shape& k, const Shape& v) {
    const StatusCode bad = StatusCode::kInvalidArgument;
    if (q.size() != 4 || k.size() != 4 || v.size() != 4)
      return error(bad, "Q, K and V must be 4-D, got ", shape_to_string(q), ", ", shape_to_string(k), ", ",
                   shape_to_string(v));
    if (k[0] != q[0] || k[3] != q[3])
      return error(bad, "K must be [", q[0], ", kv_num_heads, kv_sequence_length, ", q[3],
                   "] (Q's batch and head size), got ", shape_to_string(k));
    if (v[0] != q[0] || v[1] != k[1] || v[2] != k[2])
      return error(bad, "V must be [", q[0], ", ", k[1], ", ", k[2], ", v_head_size] to match K, got ",
                   shape_to_string(v));
    if (k[1] <= 0 || q[1] % k[1] != 0)
      return error(bad, "the number of query heads ", q[1], " must be a multiple of the number of key/value heads ",
                   k[1]);
    return Status::ok();
  }

  int64_t opset_ = 1;
  bool has_scale_ = false;
  float scale_ = 1.f;
  bool has_score_mod_ = false, has_prob_mod_ = false;
  DType softmax_type_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(FlexAttention, FlexAttentionOp)

}  // namespace hi::ops
