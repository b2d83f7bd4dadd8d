// ReverseSequence (opset 10): for each batch entry b, reverses the first sequence_lens[b]
// elements along time_axis and copies the rest. batch_axis and time_axis are 0 and 1 (either
// way round); the input has rank >= 2; sequence_lens is int64 [batch] with values in
// [0, time length]. Any element type.
#include "ops/copy_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class ReverseSequenceOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    batch_axis_ = ctx.get_int("batch_axis", 1);
    time_axis_ = ctx.get_int("time_axis", 0);
    if ((batch_axis_ != 0 && batch_axis_ != 1) || (time_axis_ != 0 && time_axis_ != 1) || batch_axis_ == time_axis_)
      return ctx.fail(StatusCode::kInvalidModel,
                      "batch_axis and time_axis must be 0 and 1 in some order, got batch_axis=", batch_axis_,
                      " and time_axis=", time_axis_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& lens = ctx.input_type(1);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (x.has_rank() && x.rank() < 2)
      return error(StatusCode::kInvalidModel, "input must have rank >= 2, got ", x.to_string());
    if (lens.dtype != DType::kUndefined && lens.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "sequence_lens must be int64, got ", lens.to_string());
    if (lens.has_rank() && lens.rank() != 1)
      return error(StatusCode::kInvalidModel, "sequence_lens must be 1-D, got ", lens.to_string());
    if (x.has_rank() && lens.has_rank()) {
      const ir::Dim& b = (*x.shape)[static_cast<size_t>(batch_axis_)];
      const ir::Dim& l = (*lens.shape)[0];
      if (b.is_known() && l.is_known() && b.value != l.value)
        return error(StatusCode::kInvalidModel, "sequence_lens ", lens.to_string(),
                     " must have one entry per batch entry (", b.value, ") of input ", x.to_string());
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& lens = ctx.in(1);
    if (x.rank() < 2) return error(StatusCode::kInvalidArgument, "input must have rank >= 2, got ", x.type_string());
    if (lens.dtype() != DType::kInt64 || lens.rank() != 1)
      return error(StatusCode::kInvalidArgument, "sequence_lens must be a 1-D int64 tensor, got ", lens.type_string());
    const int64_t batch = x.dim(batch_axis_), time = x.dim(time_axis_);
    if (lens.numel() != batch)
      return error(StatusCode::kInvalidArgument, "sequence_lens ", lens.type_string(),
                   " must have one entry per batch entry (", batch, ") of input ", x.type_string());
    const int64_t* pl = lens.data<int64_t>();
    for (int64_t b = 0; b < batch; ++b)
      if (pl[b] < 0 || pl[b] > time)
        return error(StatusCode::kInvalidArgument, "sequence_lens[", b, "] = ", pl[b], " is outside [0, ", time,
                     "] (the length of time_axis ", time_axis_, ")");
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const int64_t inner = dims_product(x.shape(), 2, x.shape().size());
    // Offset of (time t, batch b) in the first two dims.
    auto row = [&](int64_t t, int64_t b) { return time_axis_ == 0 ? (t * batch + b) : (b * time + t); };
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(y);
          for (int64_t b = 0; b < batch; ++b)
            for (int64_t t = 0; t < time; ++t) {
              const int64_t from = t < pl[b] ? pl[b] - 1 - t : t;
              for (int64_t i = 0; i < inner; ++i) dst[row(t, b) * inner + i] = src[row(from, b) * inner + i];
            }
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  int64_t batch_axis_ = 1;
  int64_t time_axis_ = 0;
};

}  // namespace

HI_REGISTER_OP(ReverseSequence, ReverseSequenceOp)

}  // namespace hi::ops
