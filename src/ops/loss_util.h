// Shared by NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: the attributes, the shape
// checks, and the weighted, reduced gather of -input[n, target[n, d...], d...].
//
// input is [N, C, d1, .., dk] (k >= 0), target is [N, d1, .., dk] of int32/int64, the optional
// weight is [C]. Each sample's loss is -input[n, c, d] * w with c = target[n, d] and w =
// weight[c] (1 without weights), or 0 with w = 0 where c == ignore_index. A target outside
// [0, C) that is not ignore_index is an error. reduction "none" returns the [N, d1, .., dk]
// losses; "sum" their sum; "mean" (the default) sum(loss) / sum(w), so that with ignore_index
// and no weights it is the mean over the samples that count. Sums run in double.
#pragma once

#include <optional>
#include <string>

#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {

enum class LossReduction { kNone, kSum, kMean };

struct LossAttributes {
  LossReduction reduction = LossReduction::kMean;
  std::optional<int64_t> ignore_index;

  Status parse(InitContext& ctx) {
    const std::string r = ctx.get_string("reduction", "mean");
    if (r == "none") reduction = LossReduction::kNone;
    else if (r == "sum") reduction = LossReduction::kSum;
    else if (r == "mean") reduction = LossReduction::kMean;
    else
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'reduction' must be \"none\", \"sum\" or \"mean\", got \"",
                      r, "\"");
    if (ctx.has("ignore_index")) ignore_index = ctx.get_int("ignore_index", 0);
    return ctx.status();
  }
};

// Inference shared by both ops: input types and shapes; sets output 0 (the loss).
inline Status infer_loss(InferContext& ctx, const LossAttributes& attrs) {
  const ir::ValueType& x = ctx.input_type(0);
  const ir::ValueType& target = ctx.input_type(1);
  if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
    return unsupported_dtype(ctx.node(), x.dtype, "input");
  if (target.dtype != DType::kUndefined && target.dtype != DType::kInt32 && target.dtype != DType::kInt64)
    return error(StatusCode::kInvalidModel, "target must be int32 or int64, got ", target.to_string());
  if (ctx.has_input(2)) {
    const ir::ValueType& w = ctx.input_type(2);
    if (w.dtype != DType::kUndefined && x.dtype != DType::kUndefined && w.dtype != x.dtype)
      return error(StatusCode::kInvalidModel, "weight is ", w.to_string(), " but input is ", x.to_string());
    if (w.has_rank() && w.rank() != 1)
      return error(StatusCode::kInvalidModel, "weight must be 1-D [C], got ", w.to_string());
    if (w.has_rank() && x.has_rank() && x.rank() >= 2) {
      const ir::Dim& c = (*x.shape)[1];
      const ir::Dim& wc = (*w.shape)[0];
      if (c.is_known() && wc.is_known() && c.value != wc.value)
        return error(StatusCode::kInvalidModel, "weight ", w.to_string(), " must have one entry per class of input ",
                     x.to_string());
    }
  }
  if (x.has_rank() && x.rank() < 2)
    return error(StatusCode::kInvalidModel, "input must be [N, C, ...], got ", x.to_string());
  if (x.has_rank() && target.has_rank()) {
    bool ok = target.rank() == x.rank() - 1;
    for (int64_t d = 0; ok && d < target.rank(); ++d) {
      const ir::Dim& a = (*target.shape)[static_cast<size_t>(d)];
      const ir::Dim& b = (*x.shape)[static_cast<size_t>(d == 0 ? 0 : d + 1)];
      ok = !(a.is_known() && b.is_known() && a.value != b.value);
    }
    if (!ok)
      return error(StatusCode::kInvalidModel, "target ", target.to_string(), " must be input ", x.to_string(),
                   " without its class dim (dim 1)");
  }
  if (attrs.reduction != LossReduction::kNone) ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, {}));
  else if (target.has_rank()) ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, *target.shape));
  else if (x.has_rank()) {
    std::vector<ir::Dim> dims = *x.shape;
    dims.erase(dims.begin() + 1);
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
  } else {
    ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
  }
  return Status::ok();
}

// Run-time shape checks; returns C.
inline Result<int64_t> check_loss_shapes(const Tensor& x, const Tensor& target, const Tensor* weight) {
  if (x.rank() < 2) return error(StatusCode::kInvalidArgument, "input must be [N, C, ...], got ", x.type_string());
  if (target.dtype() != DType::kInt32 && target.dtype() != DType::kInt64)
    return error(StatusCode::kInvalidArgument, "target must be int32 or int64, got ", target.type_string());
  bool ok = target.rank() == x.rank() - 1;
  for (int64_t d = 0; ok && d < target.rank(); ++d) ok = target.dim(d) == x.dim(d == 0 ? 0 : d + 1);
  if (!ok)
    return error(StatusCode::kInvalidArgument, "target ", target.type_string(), " must be input ", x.type_string(),
                 " without its class dim (dim 1)");
  const int64_t c = x.dim(1);
  if (weight && (weight->dtype() != x.dtype() || weight->rank() != 1 || weight->dim(0) != c))
    return error(StatusCode::kInvalidArgument, "weight ", weight->type_string(), " must be ", dtype_name(x.dtype()),
                 "[", c, "] for input ", x.type_string());
  return c;
}

// The loss from log-probabilities `logp` laid out as input ([N, C, D] flattened, in double),
// written to output 0 of ctx in dtype `dtype`.
inline Status reduce_loss(RunContext& ctx, const LossAttributes& attrs, const std::vector<double>& logp, int64_t c,
                          const Tensor& target, const Tensor* weight, DType dtype) {
  const int64_t n = target.rank() == 0 ? 1 : target.dim(0);
  const int64_t samples = target.numel();
  const int64_t d_size = n == 0 ? 0 : samples / n;
  std::vector<double> loss(static_cast<size_t>(samples)), w(static_cast<size_t>(samples));
  for (int64_t s = 0; s < samples; ++s) {
    const int64_t t = target.as_int64(s);
    const auto su = static_cast<size_t>(s);
    if (attrs.ignore_index && t == *attrs.ignore_index) {
      loss[su] = 0;
      w[su] = 0;
      continue;
    }
    if (t < 0 || t >= c)
      return error(StatusCode::kInvalidArgument, "target value ", t, " (element ", s, " of target ",
                   target.type_string(), ") is outside the classes [0, ", c, ")",
                   attrs.ignore_index ? str(" and is not ignore_index ", *attrs.ignore_index) : std::string());
    const int64_t b = s / d_size, d = s % d_size;
    w[su] = weight ? weight->as_double(t) : 1.0;
    loss[su] = -logp[static_cast<size_t>((b * c + t) * d_size + d)] * w[su];
  }
  auto store = [&](Tensor& out, int64_t i, double v) {
    dispatch<kFloatTypes>(dtype,
                          [&]<typename T>() { out.data<T>()[i] = static_cast<T>(static_cast<compute_t<T>>(v)); });
  };
  if (attrs.reduction == LossReduction::kNone) {
    Tensor& out = ctx.output(0, dtype, target.shape());
    for (int64_t s = 0; s < samples; ++s) store(out, s, loss[static_cast<size_t>(s)]);
    return Status::ok();
  }
  double sum = 0, wsum = 0;
  for (int64_t s = 0; s < samples; ++s) {
    sum += loss[static_cast<size_t>(s)];
    wsum += w[static_cast<size_t>(s)];
  }
  Tensor& out = ctx.output(0, dtype, {});
  store(out, 0, attrs.reduction == LossReduction::kSum ? sum : sum / wsum);
  return Status::ok();
}

}  // namespace hi::ops
