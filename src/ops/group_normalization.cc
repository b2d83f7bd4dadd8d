// GroupNormalization: X [N, C, D1, ...] is split into num_groups groups of C / num_groups
// channels; each (instance, group) is normalised over its channels and spatial dims,
// y = (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c]. Opset 21 takes scale and bias of
// shape [C] (one per channel); opset 18 took them of shape [num_groups] (one per group). The
// first stage runs in double (at least stash_type's precision) and is rounded to X's type, as
// the spec's cast back says; the affine stage is rounded once.
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class GroupNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    groups_ = ctx.require_int("num_groups");
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    per_channel_ = ctx.opset() >= 21;
    const auto stash = static_cast<DType>(ctx.get_int("stash_type", 1));
    if (!in_set(kFloatTypes, stash))
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'stash_type' must name a float type, got ",
                      dtype_name(stash));
    if (ctx.status().is_ok() && groups_ <= 0)
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'num_groups' must be positive, got ", groups_);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 3, 3, 1));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    for (size_t i = 1; i < 3; ++i) {
      const ir::ValueType& t = ctx.input_type(i);
      const char* what = i == 1 ? "scale" : "bias";
      if (t.dtype != DType::kUndefined && x.dtype != DType::kUndefined && t.dtype != x.dtype)
        return error(StatusCode::kInvalidModel, what, " is ", dtype_name(t.dtype), " but X is ", dtype_name(x.dtype));
      if (t.has_rank() && t.rank() != 1)
        return error(StatusCode::kInvalidModel, what, " must be 1-D, got ", t.to_string());
      if (x.has_rank() && x.rank() >= 2 && t.has_rank()) {
        const ir::Dim& c = (*x.shape)[1];
        const ir::Dim& len = (*t.shape)[0];
        const ir::Dim want = per_channel_ ? c : ir::Dim::known(groups_);
        if (want.is_known() && len.is_known() && len.value != want.value)
          return error(StatusCode::kInvalidModel, what, " ", t.to_string(), " must have ", want.value,
                       per_channel_ ? " entries (one per channel)" : " entries (one per group)", ", X is ",
                       x.to_string());
      }
    }
    if (x.has_rank()) {
      if (x.rank() < 2) return error(StatusCode::kInvalidModel, "X must be [N, C, ...], got ", x.to_string());
      const ir::Dim& c = (*x.shape)[1];
      if (c.is_known() && c.value % groups_ != 0)
        return error(StatusCode::kInvalidModel, "channels (", c.value, ") must be a multiple of num_groups (", groups_,
                     ")");
    }
    ctx.set_output_type(0, x);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& scale = ctx.in(1);
    const Tensor& bias = ctx.in(2);
    if (!in_set(kFloatTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    if (x.rank() < 2) return error(StatusCode::kInvalidArgument, "X must be [N, C, ...], got ", x.type_string());
    const int64_t n = x.dim(0), c = x.dim(1);
    if (c % groups_ != 0)
      return error(StatusCode::kInvalidArgument, "channels (", c, ") must be a multiple of num_groups (", groups_, ")");
    const int64_t want = per_channel_ ? c : groups_;
    for (const Tensor* t : {&scale, &bias})
      if (t->dtype() != x.dtype() || t->rank() != 1 || t->numel() != want)
        return error(StatusCode::kInvalidArgument, t == &scale ? "scale " : "bias ", t->type_string(), " must be ",
                     dtype_name(x.dtype()), "[", want, "] for X ", x.type_string());
    const int64_t cpg = c / groups_;                        // channels per group
    const int64_t spatial = dims_product_of(x.shape(), 2);  // elements per channel
    const int64_t group_size = cpg * spatial;
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      for (int64_t b = 0; b < n; ++b)
        for (int64_t g = 0; g < groups_; ++g) {
          const int64_t base = (b * c + g * cpg) * spatial;
          double sum = 0;
          for (int64_t i = 0; i < group_size; ++i) sum += static_cast<double>(px[base + i]);
          const double mean = group_size == 0 ? 0 : sum / static_cast<double>(group_size);
          double sq = 0;
          for (int64_t i = 0; i < group_size; ++i) {
            const double d = static_cast<double>(px[base + i]) - mean;
            sq += d * d;
          }
          const double var = group_size == 0 ? 0 : sq / static_cast<double>(group_size);
          const double inv_std = 1.0 / std::sqrt(var + static_cast<double>(epsilon_));
          for (int64_t i = 0; i < group_size; ++i) {
            const int64_t ch = g * cpg + i / spatial;
            const int64_t k = per_channel_ ? ch : g;
            const double z = (static_cast<double>(px[base + i]) - mean) * inv_std;
            const auto normalized = static_cast<T>(static_cast<compute_t<T>>(z));
            const double v = static_cast<double>(normalized) * scale.as_double(k) + bias.as_double(k);
            py[base + i] = static_cast<T>(static_cast<compute_t<T>>(v));
          }
        }
    });
    return Status::ok();
  }

 private:
  static int64_t dims_product_of(const Shape& s, size_t from) {
    int64_t p = 1;
    for (size_t i = from; i < s.size(); ++i) p *= s[i];
    return p;
  }

  int64_t groups_ = 1;
  float epsilon_ = 1e-5f;
  bool per_channel_ = true;
};

}  // namespace

HI_REGISTER_OP(GroupNormalization, GroupNormalizationOp)

}  // namespace hi::ops
