// TopK: the k largest (largest=1, the default) or smallest elements along 'axis' (default -1),
// with their int64 indices; outputs have the input's shape with k along the axis. Ties go to the
// lower index; NaN counts as larger than any number. The result is always sorted (sorted=0
// leaves the order undefined, so sorted is conformant). Opset 1 reads k from an attribute,
// opset 10 from a 1-element int64 input; opset 11 adds 'largest' and 'sorted'.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "ops/copy_util.h"
#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"
#include "ops/scalar_input.h"

namespace hi::ops {
namespace {

constexpr uint64_t kTopKTypes = kNumericTypes;

// a before b when a is the "better" value: larger (or smaller), NaN largest, lower index on ties.
template <typename C>
bool ranks_before(C a, int64_t ia, C b, int64_t ib, bool largest) {
  const bool na = is_nan(a), nb = is_nan(b);
  if (na || nb) {
    if (na && nb) return ia < ib;
    return largest ? na : nb;  // NaN first when largest, last when smallest
  }
  if (a != b) return largest ? a > b : a < b;
  return ia < ib;
}

class TopKOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    axis_ = ctx.get_int("axis", -1);
    k_input_ = ctx.opset() >= 10;
    if (!k_input_) {
      k_attr_ = ctx.require_int("k");
      if (ctx.status().is_ok() && k_attr_ < 0)
        return ctx.fail(StatusCode::kInvalidModel, "attribute 'k' must be >= 0, got ", k_attr_);
    }
    if (ctx.opset() >= 11) {
      const int64_t l = ctx.get_int("largest", 1), s = ctx.get_int("sorted", 1);
      if (l != 0 && l != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'largest' must be 0 or 1, got ", l);
      if (s != 0 && s != 1) return ctx.fail(StatusCode::kInvalidModel, "attribute 'sorted' must be 0 or 1, got ", s);
      largest_ = l == 1;
    }
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, k_input_ ? 2 : 1, k_input_ ? 2 : 1, 2));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kTopKTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (k_input_) HI_RETURN_IF_ERROR(check_scalar_type(ctx.node(), ctx.input_type(1), bit(DType::kInt64), "K"));
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor_unknown_shape(DType::kInt64));
      return Status::ok();
    }
    if (x.rank() == 0) return error(StatusCode::kInvalidModel, "input must have rank >= 1, got ", x.to_string());
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    std::vector<ir::Dim> out = *x.shape;
    ir::Dim& d = out[static_cast<size_t>(axis)];
    const Tensor* kv = k_input_ ? ctx.input_value(1) : nullptr;
    if (!k_input_ || kv) {
      HI_ASSIGN_OR_RETURN(const int64_t k, k_input_ ? read_k(*kv) : Result<int64_t>(k_attr_));
      if (d.is_known() && k > d.value)
        return error(StatusCode::kInvalidModel, "k = ", k, " is larger than axis ", axis, " of input ", x.to_string());
      d = ir::Dim::known(k);
    } else {
      d = ir::Dim{};
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, out));
    if (ctx.num_outputs() > 1) ctx.set_output_type(1, ir::ValueType::tensor(DType::kInt64, out));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kTopKTypes, x.dtype())) return unsupported_dtype(ctx.node(), x.dtype());
    if (x.rank() == 0) return error(StatusCode::kInvalidArgument, "input must have rank >= 1, got ", x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t axis, normalize_axis(axis_, x.rank()));
    HI_ASSIGN_OR_RETURN(const int64_t k, k_input_ ? read_k(ctx.in(1)) : Result<int64_t>(k_attr_));
    const auto a = static_cast<size_t>(axis);
    const int64_t n = x.dim(axis);
    if (k > n)
      return error(StatusCode::kInvalidArgument, "k = ", k, " is larger than axis ", axis, " of input ",
                   x.type_string());
    const int64_t outer = dims_product(x.shape(), 0, a), inner = dims_product(x.shape(), a + 1, x.shape().size());
    Shape out_shape = x.shape();
    out_shape[a] = k;
    Tensor& values = ctx.output(0, x.dtype(), out_shape);
    Tensor indices = Tensor::empty(DType::kInt64, out_shape);
    int64_t* pi = indices.data<int64_t>();
    dispatch<kTopKTypes>(x.dtype(), [&]<typename T>() {
      using C = compute_t<T>;
      const T* px = x.data<T>();
      T* pv = values.data<T>();
      std::vector<int64_t> order(static_cast<size_t>(n));
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t base = o * n * inner + i;
          auto val = [&](int64_t j) { return static_cast<C>(px[base + j * inner]); };
          std::iota(order.begin(), order.end(), int64_t{0});
          std::partial_sort(order.begin(), order.begin() + k, order.end(),
                            [&](int64_t p, int64_t q) { return ranks_before(val(p), p, val(q), q, largest_); });
          for (int64_t j = 0; j < k; ++j) {
            const int64_t out = (o * k + j) * inner + i;
            pv[out] = px[base + order[static_cast<size_t>(j)] * inner];
            pi[out] = order[static_cast<size_t>(j)];
          }
        }
    });
    if (ctx.num_outputs() > 1) ctx.set_output(1, std::move(indices));
    return Status::ok();
  }

 private:
  static Result<int64_t> read_k(const Tensor& t) {
    HI_ASSIGN_OR_RETURN(const int64_t k, scalar_int(t, "K"));
    if (k < 0) return error(StatusCode::kInvalidArgument, "K must be >= 0, got ", k);
    return k;
  }

  int64_t axis_ = -1;
  bool k_input_ = true;
  int64_t k_attr_ = 0;
  bool largest_ = true;
};

}  // namespace

HI_REGISTER_OP(TopK, TopKOp)

}  // namespace hi::ops
