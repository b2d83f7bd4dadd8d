// RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim values of every head by
// position-dependent angles. X is 4-D [B, H, S, D] or 3-D [B, S, H * D] (num_heads given). The
// pairs rotated are (x[k], x[k + rot/2]) or, with interleaved=1, (x[2k], x[2k + 1]):
//   x1' = cos * x1 - sin * x2,  x2' = sin * x1 + cos * x2
// cos and sin come from cos_cache/sin_cache rows picked by position_ids [B, S] (caches
// [max_position + 1, rot/2]) or, without position_ids, straight from [B, S, rot/2] caches.
// Values past rotary_embedding_dim are copied. Computed in float and rounded once (the spec's
// types are float32, float16 and bfloat16).
#include "ops/attention_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

using attn::HeadLayout;

constexpr uint64_t kRotaryTypes = bit(DType::kFloat32) | bit(DType::kFloat16) | bit(DType::kBFloat16);

class RotaryEmbeddingOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    interleaved_ = ctx.get_int("interleaved", 0);
    rotary_dim_ = ctx.get_int("rotary_embedding_dim", 0);
    num_heads_ = ctx.get_int("num_heads", 0);
    HI_RETURN_IF_ERROR(ctx.status());
    if (interleaved_ != 0 && interleaved_ != 1)
      return ctx.fail(StatusCode::kInvalidModel, "attribute interleaved must be 0 or 1, got ", interleaved_);
    if (rotary_dim_ < 0 || rotary_dim_ % 2 != 0)
      return ctx.fail(StatusCode::kInvalidModel, "attribute rotary_embedding_dim must be even and >= 0, got ",
                      rotary_dim_);
    if (num_heads_ < 0)
      return ctx.fail(StatusCode::kInvalidModel, "attribute num_heads must be positive, got ", num_heads_);
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 4, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_types(x.dtype, ctx.input_type(1).dtype, ctx.input_type(2).dtype,
                                   ctx.has_input(3) ? ctx.input_type(3).dtype : DType::kUndefined));
    if (x.has_rank() && x.rank() != 3 && x.rank() != 4)
      return error(StatusCode::kInvalidModel, "input X must be 3-D or 4-D, got ", x.to_string());
    if (x.rank() == 3 && num_heads_ == 0)
      return error(StatusCode::kInvalidModel, "a 3-D input X needs the attribute num_heads");
    bool all_static = true;
    for (size_t i = 0; i < ctx.num_inputs(); ++i)
      if (ctx.has_input(i) && !ctx.input_type(i).is_static()) all_static = false;
    if (all_static) {
      const Shape pos = ctx.has_input(3) ? ctx.input_type(3).concrete_shape() : Shape{};
      HI_ASSIGN_OR_RETURN(const HeadLayout l, layout(x.concrete_shape()));
      HI_RETURN_IF_ERROR(check_caches(l, ctx.input_type(1).concrete_shape(), ctx.input_type(2).concrete_shape(),
                                      ctx.has_input(3) ? &pos : nullptr));
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& cos = ctx.in(1);
    const Tensor& sin = ctx.in(2);
    const Tensor* pos = ctx.input(3);
    HI_RETURN_IF_ERROR(check_types(x.dtype(), cos.dtype(), sin.dtype(), pos ? pos->dtype() : DType::kUndefined));
    HI_ASSIGN_OR_RETURN(const HeadLayout l, layout(x.shape()));
    const Shape pos_shape = pos ? pos->shape() : Shape{};
    HI_RETURN_IF_ERROR(check_caches(l, cos.shape(), sin.shape(), pos ? &pos_shape : nullptr));
    const int64_t rot = rotary_dim_ == 0 ? l.head_size : rotary_dim_;
    const int64_t half = rot / 2;
    const int64_t cache_rows = cos.dim(0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    Status status = Status::ok();
    dispatch<kRotaryTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      const T* pc = cos.data<T>();
      const T* ps = sin.data<T>();
      T* py = y.data<T>();
      std::copy(px, px + x.numel(), py);  // the part past rotary_embedding_dim stays as it is
      for (int64_t b = 0; b < l.batch; ++b)
        for (int64_t s = 0; s < l.seq; ++s) {
          // Row of the caches for this token: position_ids[b, s], or (b, s) itself.
          int64_t row = b * l.seq + s;
          if (pos) {
            row = pos->as_int64(b * l.seq + s);
            if (row < 0 || row >= cache_rows) {
              status = error(StatusCode::kInvalidArgument, "position_ids[", b, ", ", s, "] = ", row,
                             " is outside the cos/sin caches' rows [0, ", cache_rows, ")");
              return;
            }
          }
          for (int64_t h = 0; h < l.heads; ++h)
            for (int64_t k = 0; k < half; ++k) {
              const int64_t i1 = l.offset(b, h, s, interleaved_ ? 2 * k : k);
              const int64_t i2 = l.offset(b, h, s, interleaved_ ? 2 * k + 1 : k + half);
              const float c = static_cast<float>(pc[row * half + k]);
              const float sn = static_cast<float>(ps[row * half + k]);
              const float x1 = static_cast<float>(px[i1]);
              const float x2 = static_cast<float>(px[i2]);
              py[i1] = static_cast<T>(c * x1 - sn * x2);
              py[i2] = static_cast<T>(sn * x1 + c * x2);
            }
        }
    });
    return status;
  }

 private:
  Status check_types(DType x, DType cos, DType sin, DType pos) const {
    if (x != DType::kUndefined && !in_set(kRotaryTypes, x))
      return error(StatusCode::kUnsupported, "RotaryEmbedding (opset ", opset_, ") does not support X of type ",
                   dtype_name(x), "; expected float32, float16 or bfloat16");
    for (const auto& [t, name] : {std::pair{cos, "cos_cache"}, std::pair{sin, "sin_cache"}})
      if (t != DType::kUndefined && x != DType::kUndefined && t != x)
        return error(StatusCode::kInvalidModel, name, " is ", dtype_name(t), " but X is ", dtype_name(x),
                     "; they must match");
    if (pos != DType::kUndefined && pos != DType::kInt64)
      return error(StatusCode::kUnsupported, "RotaryEmbedding (opset ", opset_,
                   ") does not support position_ids of type ", dtype_name(pos), "; expected int64");
    return Status::ok();
  }

  // X's sizes as heads; InvalidArgument when they do not fit the attributes.
  Result<HeadLayout> layout(const Shape& x) const {
    HeadLayout l;
    if (x.size() == 4) {
      l = {x[0], x[1], x[2], x[3], false};
      if (num_heads_ != 0 && num_heads_ != l.heads)
        return error(StatusCode::kInvalidArgument, "attribute num_heads ", num_heads_, " does not match X's head dim ",
                     l.heads, " in ", shape_to_string(x));
    } else if (x.size() == 3) {
      if (num_heads_ == 0) return error(StatusCode::kInvalidArgument, "a 3-D input X needs the attribute num_heads");
      if (x[2] % num_heads_ != 0)
        return error(StatusCode::kInvalidArgument, "X's hidden size ", x[2], " is not a multiple of num_heads ",
                     num_heads_);
      l = {x[0], num_heads_, x[1], x[2] / num_heads_, true};
    } else {
      return error(StatusCode::kInvalidArgument, "input X must be 3-D or 4-D, got ", shape_to_string(x));
    }
    const int64_t rot = rotary_dim_ == 0 ? l.head_size : rotary_dim_;
    if (rot % 2 != 0 || rot > l.head_size)
      return error(StatusCode::kInvalidArgument, "the rotated size ", rot, " must be even and at most the head size ",
                   l.head_size, rotary_dim_ == 0 ? " (rotary_embedding_dim is 0: the whole head rotates)" : "");
    return l;
  }

  // cos/sin caches: [rows, rot/2] with position_ids [B, S], else [B, S, rot/2].
  Status check_caches(const HeadLayout& l, const Shape& cos, const Shape& sin, const Shape* pos) const {
    const int64_t half = (rotary_dim_ == 0 ? l.head_size : rotary_dim_) / 2;
    if (cos != sin)
      return error(StatusCode::kInvalidArgument, "cos_cache ", shape_to_string(cos), " and sin_cache ",
                   shape_to_string(sin), " must have the same shape");
    if (pos) {
      if (*pos != Shape{l.batch, l.seq})
        return error(StatusCode::kInvalidArgument, "position_ids must be [batch, sequence_length] = [", l.batch, ", ",
                     l.seq, "], got ", shape_to_string(*pos));
      if (cos.size() != 2 || cos[1] != half)
        return error(StatusCode::kInvalidArgument, "with position_ids, cos_cache must be [max_position_id + 1, ", half,
                     "], got ", shape_to_string(cos));
    } else if (cos != Shape{l.batch, l.seq, half}) {
      return error(StatusCode::kInvalidArgument, "without position_ids, cos_cache must be [batch, sequence_length, ",
                   half, "] = [", l.batch, ", ", l.seq, ", ", half, "], got ", shape_to_string(cos));
    }
    return Status::ok();
  }

  int64_t opset_ = 23;
  int64_t interleaved_ = 0;
  int64_t rotary_dim_ = 0;
  int64_t num_heads_ = 0;
};

}  // namespace

HI_REGISTER_OP(RotaryEmbedding, RotaryEmbeddingOp)

}  // namespace hi::ops
