// LinearAttention (opset 27): a recurrent state S [d_k, d_v] per batch and kv head, updated token
// by token (query head h reads kv head h / (Hq / Hkv)):
//   gated, gated_delta:  S *= exp(g_t)          (g_t per head, or per key dim)
//   delta, gated_delta:  v_t <- beta_t * (v_t - Sᵀ k_t)
//   every rule:          S += k_t ⊗ v_t;  o_t = scale * q_tᵀ S
// query/key/value (and decay, beta) are 3-D [B, T, H * D]; past_state and present_state are
// [B, Hkv, d_k, d_v] (zeros when past_state is absent). The state runs in double; output is
// rounded once to the query's type, present_state to past_state's type (the query's without it).
// chunk_size is a tuning hint for chunk-parallel kernels and does not change the result.
#include <cmath>

#include "ops/attention_util.h"
#include "ops/op_checks.h"
#include "ops/shape_util.h"

namespace hi::ops {
namespace {

using attn::HeadLayout;

constexpr uint64_t kLinearTypes = bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16);
enum Input { kQuery, kKey, kValue, kPastState, kDecay, kBeta };

struct Sizes {
  int64_t batch = 0, steps = 0, q_heads = 0, kv_heads = 0, dk = 0, dv = 0;
  bool decay_per_key = false;  // decay is [B, T, Hkv * d_k], else [B, T, Hkv]
  bool beta_per_head = false;  // beta is [B, T, Hkv], else [B, T, 1]
};

class LinearAttentionOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    q_heads_ = ctx.require_int("q_num_heads");
    kv_heads_ = ctx.require_int("kv_num_heads");
    scale_ = ctx.get_float("scale", 0.f);
    rule_ = ctx.get_string("update_rule", "gated_delta");
    HI_RETURN_IF_ERROR(ctx.status());
    if (rule_ != "linear" && rule_ != "gated" && rule_ != "delta" && rule_ != "gated_delta")
      return ctx.fail(StatusCode::kInvalidModel,
                      "attribute update_rule must be 'linear', 'gated', 'delta' or 'gated_delta', got '", rule_, "'");
    if (q_heads_ <= 0 || kv_heads_ <= 0 || q_heads_ % kv_heads_ != 0)
      return ctx.fail(StatusCode::kInvalidModel, "q_num_heads ", q_heads_,
                      " must be a positive multiple of kv_num_heads ", kv_heads_);
    gated_ = rule_ == "gated" || rule_ == "gated_delta";
    delta_ = rule_ == "delta" || rule_ == "gated_delta";
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 6, 2));
    HI_RETURN_IF_ERROR(check_present(ctx.has_input(kDecay), ctx.has_input(kBeta)));
    auto type_of = [&](size_t i) { return ctx.has_input(i) ? ctx.input_type(i).dtype : DType::kUndefined; };
    for (size_t i = 0; i < ctx.num_inputs(); ++i) HI_RETURN_IF_ERROR(check_type(i, type_of(i), type_of(kQuery)));
    const ir::ValueType& q = ctx.input_type(kQuery);
    const ir::ValueType& v = ctx.input_type(kValue);
    const ir::ValueType& k = ctx.input_type(kKey);
    bool all_static = true;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && !ctx.input_type(i).is_static()) all_static = false;
    if (all_static) {
      std::vector<Shape> shapes(6);
      for (size_t i = 0; i < ctx.num_inputs(); ++i)
        if (ctx.has_input(i)) shapes[i] = ctx.input_type(i).concrete_shape();
      HI_RETURN_IF_ERROR(sizes(shapes, ctx.has_input(kPastState)).status());
    }
    const DType state_type = ctx.has_input(kPastState) ? type_of(kPastState) : type_of(kQuery);
    auto dim = [](const ir::ValueType& t, size_t i) {
      return t.has_rank() && t.rank() == 3 ? (*t.shape)[i] : ir::Dim{};
    };
    auto div = [](const ir::Dim& d, int64_t n) {
      return d.is_known() && d.value % n == 0 ? ir::Dim::known(d.value / n) : ir::Dim{};
    };
    const ir::Dim dv = div(dim(v, 2), kv_heads_);
    ir::Dim out_last;
    if (dv.is_known()) {
      const auto n = checked_mul(dv.value, q_heads_);
      if (!n)
        return error(StatusCode::kInvalidModel, "q_num_heads ", q_heads_, " times d_v ", dv.value, " overflows int64");
      out_last = ir::Dim::known(*n);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(type_of(kQuery), {dim(q, 0), dim(q, 1), out_last}));
    if (ctx.num_outputs() > 1)
      ctx.set_output_type(
          1, ir::ValueType::tensor(state_type, {dim(q, 0), ir::Dim::known(kv_heads_), div(dim(k, 2), kv_heads_), dv}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_present(ctx.input(kDecay) != nullptr, ctx.input(kBeta) != nullptr));
    const Tensor& query = ctx.in(kQuery);
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i)) HI_RETURN_IF_ERROR(check_type(i, ctx.input(i)->dtype(), query.dtype()));
    std::vector<Shape> shapes(6);
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.input(i)) shapes[i] = ctx.input(i)->shape();
    const Tensor* past = ctx.input(kPastState);
    HI_ASSIGN_OR_RETURN(const Sizes s, sizes(shapes, past != nullptr));
    const std::vector<double> q = attn::to_bhsd(query, {s.batch, s.q_heads, s.steps, s.dk, true});
    const std::vector<double> k = attn::to_bhsd(ctx.in(kKey), {s.batch, s.kv_heads, s.steps, s.dk, true});
    const std::vector<double> v = attn::to_bhsd(ctx.in(kValue), {s.batch, s.kv_heads, s.steps, s.dv, true});
    const Tensor* decay = ctx.input(kDecay);
    const Tensor* beta = ctx.input(kBeta);
    std::vector<double> state =
        past ? attn::to_doubles(*past) : std::vector<double>(static_cast<size_t>(s.batch * s.kv_heads * s.dk * s.dv));
    const double scale = scale_ != 0 ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(s.dk));
    const HeadLayout out_layout{s.batch, s.q_heads, s.steps, s.dv, true};
    std::vector<double> out(static_cast<size_t>(out_layout.numel()));
    const int64_t group = s.q_heads / s.kv_heads;
    std::vector<double> val(static_cast<size_t>(s.dv));
    for (int64_t b = 0; b < s.batch; ++b)
      for (int64_t t = 0; t < s.steps; ++t)
        for (int64_t h = 0; h < s.kv_heads; ++h) {
          double* st = state.data() + (b * s.kv_heads + h) * s.dk * s.dv;  // [dk, dv]
          const double* kt = k.data() + ((b * s.kv_heads + h) * s.steps + t) * s.dk;
          const double* vt = v.data() + ((b * s.kv_heads + h) * s.steps + t) * s.dv;
          if (gated_)
            for (int64_t d = 0; d < s.dk; ++d) {
              const int64_t at = s.decay_per_key ? (b * s.steps + t) * s.kv_heads * s.dk + h * s.dk + d
                                                 : (b * s.steps + t) * s.kv_heads + h;
              const double g = std::exp(decay->as_double(at));
              for (int64_t m = 0; m < s.dv; ++m) st[d * s.dv + m] *= g;
            }
          std::copy(vt, vt + s.dv, val.begin());
          if (delta_) {
            const double rate = beta->as_double(s.beta_per_head ? (b * s.steps + t) * s.kv_heads + h : b * s.steps + t);
            for (int64_t m = 0; m < s.dv; ++m) {
              double retrieved = 0;
              for (int64_t d = 0; d < s.dk; ++d) retrieved += st[d * s.dv + m] * kt[d];
              val[static_cast<size_t>(m)] = rate * (vt[m] - retrieved);
            }
          }
          for (int64_t d = 0; d < s.dk; ++d)
            for (int64_t m = 0; m < s.dv; ++m) st[d * s.dv + m] += kt[d] * val[static_cast<size_t>(m)];
          for (int64_t qh = h * group; qh < (h + 1) * group; ++qh) {
            const double* qt = q.data() + ((b * s.q_heads + qh) * s.steps + t) * s.dk;
            for (int64_t m = 0; m < s.dv; ++m) {
              double acc = 0;
              for (int64_t d = 0; d < s.dk; ++d) acc += qt[d] * st[d * s.dv + m];
              out[static_cast<size_t>(out_layout.offset(b, qh, t, m))] = scale * acc;
            }
          }
        }
    attn::store(out, ctx.output(0, query.dtype(), {s.batch, s.steps, s.q_heads * s.dv}));
    if (ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty())
      attn::store(state, ctx.output(1, past ? past->dtype() : query.dtype(), {s.batch, s.kv_heads, s.dk, s.dv}));
    return Status::ok();
  }

 private:
  Status check_present(bool decay, bool beta) const {
    if (gated_ != decay)
      return error(StatusCode::kInvalidModel, "update_rule '", rule_, "' ", gated_ ? "needs" : "does not take",
                   " the decay input");
    if (delta_ != beta)
      return error(StatusCode::kInvalidModel, "update_rule '", rule_, "' ", delta_ ? "needs" : "does not take",
                   " the beta input");
    return Status::ok();
  }

  Status check_type(size_t i, DType t, DType query) const {
    static const char* const kNames[] = {"query", "key", "value", "past_state", "decay", "beta"};
    if (t == DType::kUndefined) return Status::ok();
    if (!in_set(kLinearTypes, t))
      return error(StatusCode::kUnsupported, "LinearAttention (opset ", opset_, ") does not support ", kNames[i],
                   " of type ", dtype_name(t), "; expected float32, float16 or bfloat16");
    // past_state has its own type S; the others share the query's type T.
    if (i != kPastState && query != DType::kUndefined && t != query)
      return error(StatusCode::kInvalidModel, kNames[i], " is ", dtype_name(t), " but query is ", dtype_name(query),
                   "; they must match");
    return Status::ok();
  }

  // Sizes from the concrete shapes (empty for absent inputs), every one checked.
  Result<Sizes> sizes(const std::vector<Shape>& in, bool has_past) const {
    const StatusCode bad = StatusCode::kInvalidArgument;
    const auto text = [](const Shape& x) { return shape_to_string(x); };
    const Shape& q = in[kQuery];
    const Shape& k = in[kKey];
    const Shape& v = in[kValue];
    if (q.size() != 3 || k.size() != 3 || v.size() != 3)
      return error(bad, "query, key and value must be 3-D [batch, steps, heads * size], got ", text(q), ", ", text(k),
                   ", ", text(v));
    Sizes s{q[0], q[1], q_heads_, kv_heads_, 0, 0};
    if (q[2] % q_heads_ != 0)
      return error(bad, "query's last dim ", q[2], " is not a multiple of q_num_heads ", q_heads_);
    s.dk = q[2] / q_heads_;
    if (k != Shape{s.batch, s.steps, kv_heads_ * s.dk})
      return error(bad, "key must be [", s.batch, ", ", s.steps, ", kv_num_heads * d_k = ", kv_heads_ * s.dk, "], got ",
                   text(k));
    if (v[0] != s.batch || v[1] != s.steps || v[2] % kv_heads_ != 0)
      return error(bad, "value must be [", s.batch, ", ", s.steps, ", kv_num_heads * d_v] with kv_num_heads ",
                   kv_heads_, ", got ", text(v));
    s.dv = v[2] / kv_heads_;
    // The output's last dim and the state's size: products of model dims that must fit in int64.
    if (!checked_mul(q_heads_, s.dv) || shape_numel({s.batch, kv_heads_, s.dk, s.dv}) < 0)
      return error(bad, "q_num_heads ", q_heads_, " times d_v ", s.dv, ", or the state [", s.batch, ", ", kv_heads_,
                   ", ", s.dk, ", ", s.dv, "], overflows int64");
    if (has_past && in[kPastState] != Shape{s.batch, kv_heads_, s.dk, s.dv})
      return error(bad, "past_state must be [", s.batch, ", ", kv_heads_, ", ", s.dk, ", ", s.dv, "], got ",
                   text(in[kPastState]));
    if (gated_) {
      const Shape& d = in[kDecay];
      if (d.size() != 3 || d[0] != s.batch || d[1] != s.steps || (d[2] != kv_heads_ && d[2] != kv_heads_ * s.dk))
        return error(bad, "decay must be [", s.batch, ", ", s.steps, ", ", kv_heads_, " or ", kv_heads_ * s.dk,
                     "], got ", text(d));
      s.decay_per_key = d[2] != kv_heads_;
    }
    if (delta_) {
      const Shape& b = in[kBeta];
      if (b.size() != 3 || b[0] != s.batch || b[1] != s.steps || (b[2] != kv_heads_ && b[2] != 1))
        return error(bad, "beta must be [", s.batch, ", ", s.steps, ", ", kv_heads_, " or 1], got ", text(b));
      s.beta_per_head = b[2] == kv_heads_ && kv_heads_ != 1;
    }
    return s;
  }

  int64_t opset_ = 27;
  int64_t q_heads_ = 0, kv_heads_ = 0;
  float scale_ = 0.f;
  std::string rule_;
  bool gated_ = false, delta_ = false;
};

}  // namespace

HI_REGISTER_OP(LinearAttention, LinearAttentionOp)

}  // namespace hi::ops
