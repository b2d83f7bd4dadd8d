// TensorScatter (opset 24): a KV-cache update. present = past, then for every batch b (dim 0)
// and every index prefix before `axis`, update's sequence positions s go to cache position
// write_indices[b] + s along `axis` (modulo the cache length in 'circular' mode). In 'linear'
// mode the writes must fit in the cache. write_indices defaults to zeros. Any element type.
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class TensorScatterOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -2);
    const std::string mode = ctx.get_string("mode", "linear");
    if (mode != "linear" && mode != "circular")
      return ctx.fail(StatusCode::kInvalidModel, "mode '", mode, "' is not one of linear, circular");
    circular_ = mode == "circular";
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3));
    const ir::ValueType& past = ctx.input_type(0);
    const ir::ValueType& upd = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), past.dtype, "past_cache"));
    if (upd.dtype != DType::kUndefined && past.dtype != DType::kUndefined && upd.dtype != past.dtype)
      return error(StatusCode::kInvalidModel, "update ", upd.to_string(), " must have the type of past_cache ",
                   past.to_string());
    if (ctx.has_input(2)) {
      const ir::ValueType& wi = ctx.input_type(2);
      if (wi.dtype != DType::kUndefined && wi.dtype != DType::kInt64)
        return error(StatusCode::kInvalidModel, "write_indices must be int64, got ", wi.to_string());
      if (wi.has_rank() && wi.rank() != 1)
        return error(StatusCode::kInvalidModel, "write_indices must be 1-D [batch], got ", wi.to_string());
    }
    if (past.has_rank()) {
      HI_ASSIGN_OR_RETURN(int64_t axis, seq_axis(past.rank()));
      if (upd.has_rank()) {
        if (upd.rank() != past.rank())
          return error(StatusCode::kInvalidModel, "update ", upd.to_string(), " must have the rank of past_cache ",
                       past.to_string());
        for (int64_t d = 0; d < past.rank(); ++d) {
          const ir::Dim& p = (*past.shape)[static_cast<size_t>(d)];
          const ir::Dim& u = (*upd.shape)[static_cast<size_t>(d)];
          if (d != axis && !dims_may_match(p, u))
            return error(StatusCode::kInvalidModel, "update ", upd.to_string(), " differs from past_cache ",
                         past.to_string(), " in dim ", d);
          if (d == axis && p.is_known() && u.is_known() && u.value > p.value)
            return error(StatusCode::kInvalidModel, "update ", upd.to_string(), " has a longer sequence (axis ", axis,
                         ") than past_cache ", past.to_string());
        }
      }
    }
    ctx.set_output_type(0, past);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& past = ctx.in(0);
    const Tensor& upd = ctx.in(1);
    const Tensor* wi = ctx.input(2);
    if (upd.dtype() != past.dtype())
      return error(StatusCode::kInvalidArgument, "update ", upd.type_string(), " must have the type of past_cache ",
                   past.type_string());
    HI_ASSIGN_OR_RETURN(int64_t axis, seq_axis(past.rank()));
    if (upd.rank() != past.rank())
      return error(StatusCode::kInvalidArgument, "update ", upd.type_string(), " must have the rank of past_cache ",
                   past.type_string());
    for (int64_t d = 0; d < past.rank(); ++d)
      if ((d != axis && upd.dim(d) != past.dim(d)) || (d == axis && upd.dim(d) > past.dim(d)))
        return error(StatusCode::kInvalidArgument, "update ", upd.type_string(), " does not fit past_cache ",
                     past.type_string(), " in dim ", d, " (only the sequence axis ", axis, " may be shorter)");
    const int64_t batch = past.dim(0), max_len = past.dim(axis), seq_len = upd.dim(axis);
    std::vector<int64_t> start(static_cast<size_t>(batch), 0);
    if (wi) {
      HI_RETURN_IF_ERROR(check_index_tensor(*wi, "write_indices"));
      if (wi->rank() != 1 || wi->dim(0) != batch)
        return error(StatusCode::kInvalidArgument, "write_indices ", wi->type_string(), " must be [", batch,
                     "] (the batch size)");
      for (int64_t b = 0; b < batch; ++b) {
        const int64_t w = wi->as_int64(b);
        if (!circular_ && (w < 0 || w > max_len - seq_len))
          return error(StatusCode::kInvalidArgument, "write_indices[", b, "] = ", w, " writes ", seq_len,
                       " positions past the end of the cache: expected [0, ", max_len - seq_len,
                       "] for a sequence axis of size ", max_len);
        if (circular_ && w < 0)
          return error(StatusCode::kInvalidArgument, "write_indices[", b, "] = ", w, " is negative");
        start[static_cast<size_t>(b)] = w;
      }
    }
    Tensor& out = ctx.output(0, past.dtype(), past.shape());
    // Rows: every index prefix before the axis; each row holds max_len (or seq_len) blocks of
    // `inner` contiguous elements.
    const int64_t rows = dims_product(past.shape(), 0, static_cast<size_t>(axis));
    const int64_t per_batch = batch == 0 ? 0 : rows / batch;
    const int64_t inner = dims_product(past.shape(), static_cast<size_t>(axis) + 1, past.shape().size());
    if (!dispatch_storage(past.dtype(), [&]<typename U>() {
          const U* src = storage<U>(past);
          const U* up = storage<U>(upd);
          U* dst = storage<U>(out);
          for (int64_t i = 0; i < past.numel(); ++i) dst[i] = src[i];
          for (int64_t r = 0; r < rows; ++r) {
            const int64_t b = r / per_batch;
            for (int64_t s = 0; s < seq_len; ++s) {
              // Circular: reduce first, so a huge write index cannot overflow.
              const int64_t w = start[static_cast<size_t>(b)];
              const int64_t pos = circular_ ? (w % max_len + s) % max_len : w + s;
              U* to = dst + (r * max_len + pos) * inner;
              const U* from = up + (r * seq_len + s) * inner;
              for (int64_t e = 0; e < inner; ++e) to[e] = from[e];
            }
          }
        }))
      return check_movable(ctx.node(), past.dtype());
    return Status::ok();
  }

 private:
  // The sequence axis, which must not be the batch axis 0.
  Result<int64_t> seq_axis(int64_t rank) const {
    if (rank < 2)
      return error(StatusCode::kInvalidModel, "past_cache must have rank >= 2 (batch and sequence), got rank ", rank);
    HI_ASSIGN_OR_RETURN(int64_t axis, normalize_axis(axis_, rank));
    if (axis == 0)
      return error(StatusCode::kInvalidModel, "axis ", axis_, " is the batch dim; the sequence axis must be another");
    return axis;
  }

  int64_t axis_ = -2;
  bool circular_ = false;
};

}  // namespace

HI_REGISTER_OP(TensorScatter, TensorScatterOp)

}  // namespace hi::ops
