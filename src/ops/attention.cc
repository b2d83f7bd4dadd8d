// Attention (opsets 23, 24 and 25): scaled dot-product attention over 4-D [B, H, S, D] or 3-D
// [B, S, H * D] inputs, with grouped-query heads (query head h reads kv head h / (Hq / Hkv)), a
// boolean or additive attn_mask (broadcast to [B, Hq, Sq, total]; a shorter last dim is padded
// with "masked"), bottom-right causal masking, softcap, a KV cache (past_* in, present_* out),
// opset 24's nonpad_kv_seqlen padding and opset 25's sliding window.
//
// Steps and roundings follow the spec's function body, where each step is a tensor of type T1:
//   Q * sqrt(scale), K * sqrt(scale) -> Q Kᵀ -> softcap -> + bias -> softmax (softmax_precision)
//   -> zero the rows with no attendable key -> P V.
// A row is "fully masked" when its additive bias (mask, causal, padding, window) is -inf
// everywhere; it yields zeros in Y and in the mode-3 qk_matmul_output, never NaN.
#include "ops/attention_util.h"
#include "ops/op_checks.h"
#include "ops/shape_util.h"

namespace hi::ops {
namespace {

using attn::HeadLayout;
using attn::kNegInf;

constexpr uint64_t kMaskTypes = kNumericTypes | bit(DType::kBool);
enum Input { kQ, kK, kV, kMask, kPastKey, kPastValue, kNonpad };
enum Output { kY, kPresentKey, kPresentValue, kQkOutput };

// Sizes of one call, from the concrete input shapes.
struct Geometry {
  bool packed = false;  // 3-D inputs
  int64_t batch = 0, q_heads = 0, kv_heads = 0, q_seq = 0, kv_seq = 0, past = 0, head = 0, v_head = 0;
  int64_t total() const { return past + kv_seq; }
  HeadLayout q() const { return {batch, q_heads, q_seq, head, packed}; }
  HeadLayout k() const { return {batch, kv_heads, kv_seq, head, packed}; }
  HeadLayout v() const { return {batch, kv_heads, kv_seq, v_head, packed}; }
  HeadLayout y() const { return {batch, q_heads, q_seq, v_head, packed}; }
};

// Symbolic dim helpers for inference: unknown in, unknown out.
ir::Dim dim_at(const ir::ValueType* t, size_t i) {
  return t && t->has_rank() && i < t->shape->size() ? (*t->shape)[i] : ir::Dim{};
}
// A sum or product of declared dims that does not fit in int64 is an invalid model, not a wrap.
Result<ir::Dim> dim_add(const ir::Dim& a, const ir::Dim& b) {
  if (!a.is_known() || !b.is_known()) return ir::Dim{};
  if (auto r = checked_add(a.value, b.value)) return ir::Dim::known(*r);
  return error(StatusCode::kInvalidModel, "the past and new sequence lengths ", a.value, " + ", b.value,
               " overflow int64");
}
Result<ir::Dim> dim_mul(const ir::Dim& a, int64_t f) {
  if (!a.is_known()) return ir::Dim{};
  if (auto r = checked_mul(a.value, f)) return ir::Dim::known(*r);
  return error(StatusCode::kInvalidModel, "the head size ", a.value, " times ", f, " heads overflows int64");
}
ir::Dim dim_div(const ir::Dim& a, int64_t d) {
  return a.is_known() && d > 0 && a.value % d == 0 ? ir::Dim::known(a.value / d) : ir::Dim{};
}

class AttentionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    is_causal_ = ctx.get_int("is_causal", 0);
    q_num_heads_ = ctx.get_int("q_num_heads", 0);
    kv_num_heads_ = ctx.get_int("kv_num_heads", 0);
    has_scale_ = ctx.has("scale");
    scale_ = ctx.get_float("scale", 1.f);
    softcap_ = ctx.get_float("softcap", 0.f);
    qk_mode_ = ctx.get_int("qk_matmul_output_mode", 0);
    if (opset_ >= 25) {
      left_window_ = ctx.get_int("left_window_size", -1);
      right_window_ = ctx.get_int("right_window_size", -1);
    }
    if (ctx.has("softmax_precision")) softmax_type_ = static_cast<DType>(ctx.get_int("softmax_precision", 1));
    HI_RETURN_IF_ERROR(ctx.status());
    if (is_causal_ != 0 && is_causal_ != 1)
      return ctx.fail(StatusCode::kInvalidModel, "attribute is_causal must be 0 or 1, got ", is_causal_);
    if (q_num_heads_ < 0 || kv_num_heads_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, "attributes q_num_heads and kv_num_heads must be positive, got ",
                      q_num_heads_, " and ", kv_num_heads_);
    if (has_scale_ && !(scale_ >= 0))
      return ctx.fail(StatusCode::kInvalidModel,
                      "attribute scale must be >= 0 (Q and K are each scaled by its square root), got ", scale_);
    if (!(softcap_ >= 0)) return ctx.fail(StatusCode::kInvalidModel, "attribute softcap must be >= 0, got ", softcap_);
    if (qk_mode_ < 0 || qk_mode_ > 3)
      return ctx.fail(StatusCode::kInvalidModel, "attribute qk_matmul_output_mode must be 0, 1, 2 or 3, got ",
                      qk_mode_);
    if (left_window_ < -1 || right_window_ < -1)
      return ctx.fail(StatusCode::kInvalidModel,
                      "attributes left_window_size and right_window_size must be -1 or >= 0, got ", left_window_,
                      " and ", right_window_);
    if (softmax_type_ != DType::kUndefined && !in_set(kFloatTypes, softmax_type_))
      return ctx.fail(StatusCode::kUnsupported, "Attention (opset ", opset_, "): softmax_precision ",
                      static_cast<int>(softmax_type_), " (", dtype_name(softmax_type_),
                      ") is not supported; expected 1 (float32), 10 (float16), 11 (float64) or 16 (bfloat16)");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, max_inputs(), 4));
    auto type_of = [&](size_t i) { return ctx.has_input(i) ? ctx.input_type(i).dtype : DType::kUndefined; };
    HI_RETURN_IF_ERROR(check_types(type_of(kQ), type_of(kK), type_of(kV), type_of(kMask), type_of(kPastKey),
                                   type_of(kPastValue), type_of(kNonpad)));
    HI_RETURN_IF_ERROR(
        check_optional_inputs(ctx.has_input(kPastKey), ctx.has_input(kPastValue), ctx.has_input(kNonpad)));
    const DType t1 = type_of(kQ), t2 = type_of(kV);
    const ir::ValueType& q = ctx.input_type(kQ);
    const ir::ValueType& k = ctx.input_type(kK);
    const ir::ValueType& v = ctx.input_type(kV);
    auto input = [&](size_t i) { return ctx.has_input(i) ? &ctx.input_type(i) : nullptr; };

    // With every shape known, the run-time checks apply as they are; else derive what is known.
    bool all_static = true;
    for (size_t i : {kQ, kK, kV, kMask, kPastKey, kPastValue, kNonpad})
      if (ctx.has_input(i) && !ctx.input_type(i).is_static()) all_static = false;
    std::vector<ir::Dim> y, present_k, present_v, qk;
    if (all_static) {
      auto concrete = [&](size_t i) {
        return ctx.has_input(i) ? std::optional<Shape>(ctx.input_type(i).concrete_shape()) : std::nullopt;
      };
      HI_ASSIGN_OR_RETURN(const Geometry g, geometry(*concrete(kQ), *concrete(kK), *concrete(kV), concrete(kPastKey),
                                                     concrete(kPastValue)));
      HI_RETURN_IF_ERROR(check_mask_and_nonpad(g, concrete(kMask), concrete(kNonpad)));
      y = known_dims(output_shape(g));
      present_k = known_dims({g.batch, g.kv_heads, g.total(), g.head});
      present_v = known_dims({g.batch, g.kv_heads, g.total(), g.v_head});
      qk = known_dims({g.batch, g.q_heads, g.q_seq, g.total()});
    } else if (q.has_rank()) {
      const bool packed = q.rank() == 3;
      if (q.rank() != 3 && q.rank() != 4)
        return error(StatusCode::kInvalidModel, "Q must be 3-D or 4-D, got ", q.to_string());
      if (packed && (q_num_heads_ == 0 || kv_num_heads_ == 0))
        return error(StatusCode::kInvalidModel, "3-D Q, K and V need the attributes q_num_heads and kv_num_heads");
      const ir::ValueType* pk = input(kPastKey);
      const ir::ValueType* pv = input(kPastValue);
      const ir::Dim batch = dim_at(&q, 0);
      const ir::Dim q_heads = packed ? ir::Dim::known(q_num_heads_) : dim_at(&q, 1);
      const ir::Dim q_seq = dim_at(&q, packed ? 1 : 2);
      const ir::Dim kv_heads = packed ? ir::Dim::known(kv_num_heads_) : dim_at(&k, 1);
      const ir::Dim kv_seq = dim_at(&k, packed ? 1 : 2);
      const ir::Dim head = packed ? dim_div(dim_at(&q, 2), q_num_heads_) : dim_at(&q, 3);
      const ir::Dim v_head = packed ? dim_div(dim_at(&v, 2), kv_num_heads_) : dim_at(&v, 3);
      HI_ASSIGN_OR_RETURN(const ir::Dim total, pk   ? dim_add(dim_at(pk, 2), kv_seq)
                                               : pv ? dim_add(dim_at(pv, 2), kv_seq)
                                                    : Result<ir::Dim>(kv_seq));
      HI_ASSIGN_OR_RETURN(const ir::Dim y_last, dim_mul(v_head, q_num_heads_));
      y = packed ? std::vector<ir::Dim>{batch, q_seq, y_last} : std::vector<ir::Dim>{batch, q_heads, q_seq, v_head};
      present_k = {batch, kv_heads, total, head};
      present_v = {batch, kv_heads, total, v_head};
      qk = {batch, q_heads, q_seq, total};
    }
    auto typed = [&](DType t, const std::vector<ir::Dim>& dims) {
      return q.has_rank() ? ir::ValueType::tensor(t, dims) : ir::ValueType::tensor_unknown_shape(t);
    };
    ctx.set_output_type(kY, typed(t1, y));
    if (ctx.num_outputs() > kPresentKey) ctx.set_output_type(kPresentKey, typed(t1, present_k));
    if (ctx.num_outputs() > kPresentValue) ctx.set_output_type(kPresentValue, typed(t2, present_v));
    if (ctx.num_outputs() > kQkOutput) ctx.set_output_type(kQkOutput, typed(t1, qk));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& q = ctx.in(kQ);
    const Tensor& k = ctx.in(kK);
    const Tensor& v = ctx.in(kV);
    const Tensor* mask = ctx.input(kMask);
    const Tensor* past_k = ctx.input(kPastKey);
    const Tensor* past_v = ctx.input(kPastValue);
    const Tensor* nonpad = ctx.input(kNonpad);
    auto type_of = [](const Tensor* t) { return t ? t->dtype() : DType::kUndefined; };
    HI_RETURN_IF_ERROR(
        check_types(q.dtype(), k.dtype(), v.dtype(), type_of(mask), type_of(past_k), type_of(past_v), type_of(nonpad)));
    HI_RETURN_IF_ERROR(check_optional_inputs(past_k != nullptr, past_v != nullptr, nonpad != nullptr));
    auto shape_of = [](const Tensor* t) { return t ? std::optional<Shape>(t->shape()) : std::nullopt; };
    HI_ASSIGN_OR_RETURN(const Geometry g,
                        geometry(q.shape(), k.shape(), v.shape(), shape_of(past_k), shape_of(past_v)));
    HI_RETURN_IF_ERROR(check_mask_and_nonpad(g, shape_of(mask), shape_of(nonpad)));
    const DType t1 = q.dtype();
    const DType softmax_type = softmax_type_ == DType::kUndefined ? t1 : softmax_type_;
    const int64_t total = g.total();

    // The present caches: past followed by the new keys/values, [B, Hkv, total, D].
    const std::vector<double> keys = with_past(past_k, k, g.k(), g.past);
    const std::vector<double> values = with_past(past_v, v, g.v(), g.past);
    if (wants(ctx, kPresentKey)) attn::store(keys, ctx.output(kPresentKey, t1, {g.batch, g.kv_heads, total, g.head}));
    if (wants(ctx, kPresentValue))
      attn::store(values, ctx.output(kPresentValue, v.dtype(), {g.batch, g.kv_heads, total, g.v_head}));

    // Q and K each scaled by sqrt(scale), rounded to T1 like the spec's scaled tensors.
    const double scale = has_scale_ ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(g.head));
    const double sqrt_scale = attn::round_to(t1, std::sqrt(scale));
    std::vector<double> qs = attn::to_bhsd(q, g.q());
    std::vector<double> ks = keys;
    for (double& x : qs) x = attn::round_to(t1, x * sqrt_scale);
    for (double& x : ks) x = attn::round_to(t1, x * sqrt_scale);

    const std::vector<int64_t> offsets = causal_offsets(g, nonpad);
    std::vector<int64_t> valid(static_cast<size_t>(g.batch), total);
    if (nonpad) valid = nonpad->to_int64_vector();
    for (int64_t b = 0; nonpad && b < g.batch; ++b)
      if (valid[static_cast<size_t>(b)] < 0 || valid[static_cast<size_t>(b)] > g.kv_seq)
        return error(StatusCode::kInvalidArgument, "nonpad_kv_seqlen[", b, "] = ", valid[static_cast<size_t>(b)],
                     " is outside [0, kv_sequence_length ", g.kv_seq, "]");
    const int64_t mask_len = mask ? mask->shape().back() : total;
    const std::optional<BroadcastIndex> mask_index =
        mask ? std::optional<BroadcastIndex>(BroadcastIndex({g.batch, g.q_heads, g.q_seq, mask_len}, mask->shape()))
             : std::nullopt;
    std::vector<double> y(static_cast<size_t>(g.y().numel()));
    std::vector<double> qk_out(static_cast<size_t>(g.batch * g.q_heads * g.q_seq * total));
    std::vector<double> scores(static_cast<size_t>(g.q_seq * total)), bias(static_cast<size_t>(total));
    std::vector<double> head_out(static_cast<size_t>(g.q_seq * g.v_head));
    const int64_t group = g.q_heads / g.kv_heads;
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t h = 0; h < g.q_heads; ++h) {
        const int64_t kvh = h / group;
        const double* qh = qs.data() + (b * g.q_heads + h) * g.q_seq * g.head;
        const double* kh = ks.data() + (b * g.kv_heads + kvh) * total * g.head;
        const double* vh = values.data() + (b * g.kv_heads + kvh) * total * g.v_head;
        double* qk_head = qk_out.data() + (b * g.q_heads + h) * g.q_seq * total;
        attn::matmul_qkt(qh, kh, g.q_seq, total, g.head, scores.data());
        for (int64_t i = 0; i < g.q_seq; ++i) {
          double* row = scores.data() + i * total;
          double* qk_row = qk_head + i * total;
          for (int64_t j = 0; j < total; ++j) row[j] = attn::round_to(t1, row[j]);
          if (qk_mode_ == 0) std::copy(row, row + total, qk_row);
          if (softcap_ > 0)
            for (int64_t j = 0; j < total; ++j) row[j] = attn::round_to(t1, attn::softcap(row[j], softcap_));
          if (qk_mode_ == 1) std::copy(row, row + total, qk_row);
          bias_row(g, mask, mask_index, b, h, i, offsets[static_cast<size_t>(b)], valid[static_cast<size_t>(b)], t1,
                   bias.data());
          for (int64_t j = 0; j < total; ++j) row[j] = attn::round_to(t1, row[j] + bias[static_cast<size_t>(j)]);
          if (qk_mode_ == 2) std::copy(row, row + total, qk_row);
          for (int64_t j = 0; j < total; ++j) row[j] = attn::round_to(softmax_type, row[j]);
          attn::softmax_row(row, total);
          const bool no_key = attn::all_masked(bias.data(), total);
          for (int64_t j = 0; j < total; ++j)
            row[j] = no_key ? 0.0 : attn::round_to(t1, attn::round_to(softmax_type, row[j]));
          if (qk_mode_ == 3) std::copy(row, row + total, qk_row);
        }
        attn::matmul_pv(scores.data(), vh, g.q_seq, total, g.v_head, head_out.data());
        const HeadLayout ly = g.y();
        for (int64_t i = 0; i < g.q_seq; ++i)
          for (int64_t e = 0; e < g.v_head; ++e)
            y[static_cast<size_t>(ly.offset(b, h, i, e))] = head_out[static_cast<size_t>(i * g.v_head + e)];
      }
    attn::store(y, ctx.output(kY, t1, output_shape(g)));
    if (wants(ctx, kQkOutput)) attn::store(qk_out, ctx.output(kQkOutput, t1, {g.batch, g.q_heads, g.q_seq, total}));
    return Status::ok();
  }

 private:
  size_t max_inputs() const { return opset_ >= 24 ? 7 : 6; }

  static bool wants(const RunContext& ctx, size_t i) { return ctx.num_outputs() > i && !ctx.node().outputs[i].empty(); }

  Status unsupported(DType t, const char* what, const char* expected) const {
    return error(StatusCode::kUnsupported, "Attention (opset ", opset_, ") does not support ", what, " of type ",
                 dtype_name(t), "; expected ", expected);
  }

  // Types as the spec constrains them (kUndefined: absent or not known yet).
  Status check_types(DType q, DType k, DType v, DType mask, DType past_k, DType past_v, DType nonpad) const {
    const char* floats = "float32, float64, float16 or bfloat16";
    if (q != DType::kUndefined && !in_set(kFloatTypes, q)) return unsupported(q, "Q", floats);
    if (v != DType::kUndefined && !in_set(kFloatTypes, v)) return unsupported(v, "V", floats);
    if (mask != DType::kUndefined && !in_set(kMaskTypes, mask))
      return unsupported(mask, "attn_mask", "bool or a numeric type");
    if (nonpad != DType::kUndefined && nonpad != DType::kInt64) return unsupported(nonpad, "nonpad_kv_seqlen", "int64");
    auto same = [](DType a, DType b) { return a == DType::kUndefined || b == DType::kUndefined || a == b; };
    if (!same(k, q))
      return error(StatusCode::kInvalidModel, "K is ", dtype_name(k), " but Q is ", dtype_name(q),
                   "; they must match (T1)");
    if (!same(past_k, q))
      return error(StatusCode::kInvalidModel, "past_key is ", dtype_name(past_k), " but Q is ", dtype_name(q),
                   "; they must match (T1)");
    if (!same(past_v, v))
      return error(StatusCode::kInvalidModel, "past_value is ", dtype_name(past_v), " but V is ", dtype_name(v),
                   "; they must match (T2)");
    return Status::ok();
  }

  static Status check_optional_inputs(bool past_k, bool past_v, bool nonpad) {
    if (past_k != past_v)
      return error(StatusCode::kInvalidModel, "past_key and past_value must be given together, got only ",
                   past_k ? "past_key" : "past_value");
    if (nonpad && past_k)
      return error(
          StatusCode::kInvalidModel,
          "nonpad_kv_seqlen (an external cache) cannot be combined with past_key/past_value (an internal cache)");
    return Status::ok();
  }

  // Sizes from the input shapes, with every consistency check; InvalidArgument on a mismatch.
  Result<Geometry> geometry(const Shape& q, const Shape& k, const Shape& v, const std::optional<Shape>& past_k,
                            const std::optional<Shape>& past_v) const {
    const auto s = [](const Shape& x) { return shape_to_string(x); };
    const StatusCode bad = StatusCode::kInvalidArgument;
    if ((q.size() != 3 && q.size() != 4) || k.size() != q.size() || v.size() != q.size())
      return error(bad, "Q, K and V must all be 3-D or all be 4-D, got Q ", s(q), ", K ", s(k), ", V ", s(v));
    Geometry g;
    g.packed = q.size() == 3;
    g.batch = q[0];
    if (g.packed) {
      if (q_num_heads_ == 0 || kv_num_heads_ == 0)
        return error(bad, "3-D Q, K and V need the attributes q_num_heads and kv_num_heads (got ", q_num_heads_,
                     " and ", kv_num_heads_, ")");
      g.q_heads = q_num_heads_;
      g.kv_heads = kv_num_heads_;
      g.q_seq = q[1];
      g.kv_seq = k[1];
      if (q[2] % g.q_heads != 0)
        return error(bad, "Q's hidden size ", q[2], " is not a multiple of q_num_heads ", g.q_heads);
      g.head = q[2] / g.q_heads;
      if (!checked_mul(g.kv_heads, g.head) || !checked_mul(g.q_heads, v[2] / g.kv_heads))
        return error(bad, "the head counts q_num_heads ", g.q_heads, " and kv_num_heads ", g.kv_heads,
                     " times the head sizes of Q ", s(q), " and V ", s(v), " overflow int64");
      if (k[2] != g.kv_heads * g.head)
        return error(bad, "K's hidden size must be kv_num_heads * head_size = ", g.kv_heads, " * ", g.head, " = ",
                     g.kv_heads * g.head, ", got ", k[2]);
      if (v[2] % g.kv_heads != 0)
        return error(bad, "V's hidden size ", v[2], " is not a multiple of kv_num_heads ", g.kv_heads);
      g.v_head = v[2] / g.kv_heads;
      if (k[0] != g.batch || v[0] != g.batch || v[1] != g.kv_seq)
        return error(bad, "K ", s(k), " and V ", s(v), " must be [batch ", g.batch, ", kv_sequence_length, hidden]");
    } else {
      if ((q_num_heads_ != 0 || kv_num_heads_ != 0) && opset_ >= 25)
        return error(bad, "q_num_heads and kv_num_heads must not be given for 4-D inputs (opset ", opset_, ")");
      g.q_heads = q[1];
      g.q_seq = q[2];
      g.head = q[3];
      g.kv_heads = k[1];
      g.kv_seq = k[2];
      g.v_head = v[3];
      if (q_num_heads_ != 0 && q_num_heads_ != g.q_heads)
        return error(bad, "attribute q_num_heads ", q_num_heads_, " does not match Q's head dim ", g.q_heads, " in ",
                     s(q));
      if (kv_num_heads_ != 0 && kv_num_heads_ != g.kv_heads)
        return error(bad, "attribute kv_num_heads ", kv_num_heads_, " does not match K's head dim ", g.kv_heads, " in ",
                     s(k));
      if (k != Shape{g.batch, g.kv_heads, g.kv_seq, g.head})
        return error(bad, "K must be [", g.batch, ", kv_num_heads, kv_sequence_length, ", g.head,
                     "] (Q's batch and head size), got ", s(k));
      if (v[0] != g.batch || v[1] != g.kv_heads || v[2] != g.kv_seq)
        return error(bad, "V must be [", g.batch, ", ", g.kv_heads, ", ", g.kv_seq, ", v_head_size] to match K ", s(k),
                     ", got ", s(v));
    }
    if (g.kv_heads <= 0 || g.q_heads % g.kv_heads != 0)
      return error(bad, "the number of query heads ", g.q_heads,
                   " must be a multiple of the number of key/value heads ", g.kv_heads);
    if (past_k) {
      g.past = past_k->size() == 4 ? (*past_k)[2] : -1;
      if (*past_k != Shape{g.batch, g.kv_heads, g.past, g.head})
        return error(bad, "past_key must be [", g.batch, ", ", g.kv_heads, ", past_sequence_length, ", g.head,
                     "], got ", s(*past_k));
      if (!past_v || *past_v != Shape{g.batch, g.kv_heads, g.past, g.v_head})
        return error(bad, "past_value must be [", g.batch, ", ", g.kv_heads, ", ", g.past, ", ", g.v_head,
                     "] to match past_key and V, got ", past_v ? s(*past_v) : "none");
    }
    if (!checked_add(g.past, g.kv_seq))
      return error(bad, "the past and new sequence lengths ", g.past, " + ", g.kv_seq, " overflow int64");
    return g;
  }

  // attn_mask broadcasts to [B, Hq, Sq, L] with L <= total (padded as masked); nonpad is [B].
  static Status check_mask_and_nonpad(const Geometry& g, const std::optional<Shape>& mask,
                                      const std::optional<Shape>& nonpad) {
    if (mask) {
      if (mask->empty() || mask->size() > 4)
        return error(StatusCode::kInvalidArgument, "attn_mask must have rank 1 to 4, got ", shape_to_string(*mask));
      const int64_t len = mask->back();
      if (len > g.total())
        return error(StatusCode::kInvalidArgument, "attn_mask's last dim ", len,
                     " is longer than the total sequence length ", g.total(), " (past ", g.past, " + kv ", g.kv_seq,
                     ")");
      HI_RETURN_IF_ERROR(check_unidirectional(*mask, Shape{g.batch, g.q_heads, g.q_seq, len}, "attn_mask",
                                              "[batch, q_num_heads, q_sequence_length, mask length]"));
    }
    if (nonpad && *nonpad != Shape{g.batch})
      return error(StatusCode::kInvalidArgument, "nonpad_kv_seqlen must be [batch] = [", g.batch, "], got ",
                   shape_to_string(*nonpad));
    return Status::ok();
  }

  Shape output_shape(const Geometry& g) const {
    return g.packed ? Shape{g.batch, g.q_seq, g.q_heads * g.v_head} : Shape{g.batch, g.q_heads, g.q_seq, g.v_head};
  }

  // past ++ current along the sequence, as [B, H, past + S, D] doubles.
  static std::vector<double> with_past(const Tensor* past, const Tensor& cur, const HeadLayout& l, int64_t past_len) {
    const std::vector<double> c = attn::to_bhsd(cur, l);
    const int64_t total = past_len + l.seq;
    std::vector<double> out(static_cast<size_t>(l.batch * l.heads * total * l.head_size));
    for (int64_t bh = 0; bh < l.batch * l.heads; ++bh) {
      double* dst = out.data() + bh * total * l.head_size;
      for (int64_t i = 0; i < past_len * l.head_size; ++i) dst[i] = past->as_double(bh * past_len * l.head_size + i);
      std::copy(c.begin() + bh * l.seq * l.head_size, c.begin() + (bh + 1) * l.seq * l.head_size,
                dst + past_len * l.head_size);
    }
    return out;
  }

  // Per batch, how many valid keys precede the query block (bottom-right causal alignment):
  // the past length with an internal cache, nonpad_kv_seqlen - Sq with an external one, else 0.
  static std::vector<int64_t> causal_offsets(const Geometry& g, const Tensor* nonpad) {
    std::vector<int64_t> off(static_cast<size_t>(g.batch), g.past);
    if (nonpad)
      for (int64_t b = 0; b < g.batch; ++b) off[static_cast<size_t>(b)] = nonpad->as_int64(b) - g.q_seq;
    return off;
  }

  // The additive bias of row (b, h, i): attn_mask (bool: false -> -inf), then causal, padding
  // (keys at or past `valid`) and window constraints add -inf where a key is not allowed.
  void bias_row(const Geometry& g, const Tensor* mask, const std::optional<BroadcastIndex>& mask_index, int64_t b,
                int64_t h, int64_t i, int64_t offset, int64_t valid, DType t1, double* bias) const {
    const int64_t total = g.total();
    const int64_t len = mask ? mask->shape().back() : total;
    for (int64_t j = 0; j < total; ++j) {
      double x = 0;
      if (mask) {
        if (j >= len) {
          x = kNegInf;
        } else {
          const int64_t at = mask_index->offset(((b * g.q_heads + h) * g.q_seq + i) * len + j);
          const double m = mask->as_double(at);
          x = mask->dtype() == DType::kBool ? (m != 0 ? 0.0 : kNegInf) : m;
        }
      }
      const int64_t diff = i + offset - j;  // distance of the query's absolute position past key j
      if (is_causal_ && diff < 0) x += kNegInf;
      if (j >= valid) x += kNegInf;
      if ((left_window_ >= 0 && diff > left_window_) || (right_window_ >= 0 && -diff > right_window_)) x += kNegInf;
      bias[j] = attn::round_to(t1, x);
    }
  }

  int64_t opset_ = 23;
  int64_t is_causal_ = 0;
  int64_t q_num_heads_ = 0, kv_num_heads_ = 0;
  bool has_scale_ = false;
  float scale_ = 1.f;
  float softcap_ = 0.f;
  int64_t qk_mode_ = 0;
  int64_t left_window_ = -1, right_window_ = -1;
  DType softmax_type_ = DType::kUndefined;
};

}  // namespace

HI_REGISTER_OP(Attention, AttentionOp)

}  // namespace hi::ops
