// MaxUnpool: the partial inverse of MaxPool. Each X element goes to the position its index in I
// names in a zero tensor of the default shape [N, C, (in - 1) * stride - pads + kernel, ...]
// (I indexes that tensor flattened, as MaxPool's Indices do). With the output_shape input
// (opset 11) that tensor is placed at the start of a larger zero tensor of that shape, as the
// ONNX reference implementation and backend tests do.
#include "ops/conv_util.h"
#include "ops/elementwise.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

// Attribute values beyond this would let (in - 1) * stride overflow; no real model comes close.
constexpr int64_t kMaxAttr = int64_t{1} << 31;

class MaxUnpoolOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (!ctx.has("kernel_shape"))
      return ctx.fail(StatusCode::kInvalidModel, "required attribute 'kernel_shape' is missing");
    kernel_ = ctx.get_ints("kernel_shape");
    strides_ = ctx.get_ints("strides");
    pads_ = ctx.get_ints("pads");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 3));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& i = ctx.input_type(1);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype))
      return unsupported_dtype(ctx.node(), x.dtype, "X");
    if (i.dtype != DType::kUndefined && i.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "I must be int64, got ", i.to_string());
    if (ctx.has_input(2)) HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(2), "output_shape"));
    if (x.has_rank() && i.has_rank()) {
      bool same = x.rank() == i.rank();
      for (size_t d = 0; same && d < x.shape->size(); ++d) same = dims_may_match((*x.shape)[d], (*i.shape)[d]);
      if (!same)
        return error(StatusCode::kInvalidModel, "I ", i.to_string(), " must have the shape of X ", x.to_string());
    }
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() < 3) return error(StatusCode::kInvalidModel, "X must be [N, C, spatial...], got ", x.to_string());
    HI_RETURN_IF_ERROR(check_params(static_cast<size_t>(x.rank() - 2), StatusCode::kInvalidModel));
    std::vector<ir::Dim> dims = *x.shape;
    for (size_t d = 2; d < dims.size(); ++d) {
      if (!dims[d].is_known()) continue;
      const int64_t size = default_size(d - 2, dims[d].value);
      if (size < 0)
        return error(StatusCode::kInvalidModel, "X ", x.to_string(), " unpools to a negative size in dim ", d);
      dims[d] = ir::Dim::known(size);
    }
    if (ctx.has_input(2)) {
      if (const Tensor* v = ctx.input_value(2)) {
        const std::vector<int64_t> shape = v->to_int64_vector();
        HI_RETURN_IF_ERROR(check_output_shape(shape, known_dims_or(dims), StatusCode::kInvalidModel));
        dims = known_dims(shape);
      } else {
        for (size_t d = 2; d < dims.size(); ++d) dims[d] = ir::Dim{};
      }
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& ind = ctx.in(1);
    if (x.rank() < 3) return error(StatusCode::kInvalidArgument, "X must be [N, C, spatial...], got ", x.type_string());
    if (ind.dtype() != DType::kInt64 || ind.shape() != x.shape())
      return error(StatusCode::kInvalidArgument, "I ", ind.type_string(), " must be int64 with the shape of X ",
                   x.type_string());
    HI_RETURN_IF_ERROR(check_params(static_cast<size_t>(x.rank() - 2), StatusCode::kInvalidArgument));
    Shape inner = x.shape();
    for (size_t d = 2; d < inner.size(); ++d) inner[d] = default_size(d - 2, inner[d]);
    Shape out_shape = inner;
    if (const Tensor* os = ctx.input(2)) {
      if (!dtype_is_integer(os->dtype()) || os->rank() != 1)
        return error(StatusCode::kInvalidArgument, "output_shape must be a 1-D integer tensor, got ",
                     os->type_string());
      out_shape = os->to_int64_vector();
      HI_RETURN_IF_ERROR(check_output_shape(out_shape, inner, StatusCode::kInvalidArgument));
    }
    for (int64_t v : inner)
      if (v < 0)
        return error(StatusCode::kInvalidArgument, "the unpooled shape ", shape_to_string(inner), " is negative");
    const int64_t inner_numel = shape_numel(inner);
    for (int64_t k = 0; k < ind.numel(); ++k) {
      const int64_t v = ind.data<int64_t>()[k];
      if (v < 0 || v >= inner_numel)
        return error(StatusCode::kInvalidArgument, "I value ", v, " (element ", k,
                     ") is out of range for the unpooled tensor ", shape_to_string(inner), ": expected [0, ",
                     inner_numel - 1, "]");
    }
    Tensor& y = ctx.output(0, x.dtype(), out_shape);
    const std::vector<int64_t> out_strides = strides_of(out_shape);
    // Where flat position p of the unpooled tensor lands in the output.
    auto place = [&](int64_t p) {
      int64_t off = 0;
      for (size_t d = inner.size(); d-- > 0;) {
        off += (p % inner[d]) * out_strides[d];
        p /= inner[d];
      }
      return off;
    };
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* px = storage<U>(x);
          U* py = storage<U>(y);
          for (int64_t e = 0; e < y.numel(); ++e) py[e] = U{};
          for (int64_t k = 0; k < x.numel(); ++k) py[place(ind.data<int64_t>()[k])] = px[k];
        }))
      return unsupported_dtype(ctx.node(), x.dtype(), "X");
    return Status::ok();
  }

 private:
  Status check_params(size_t spatial, StatusCode code) const {
    const std::vector<int64_t> strides = strides_.empty() ? std::vector<int64_t>(spatial, 1) : strides_;
    const std::vector<int64_t> pads = pads_.empty() ? std::vector<int64_t>(2 * spatial, 0) : pads_;
    if (kernel_.size() != spatial || strides.size() != spatial || pads.size() != 2 * spatial)
      return error(code, "kernel_shape/strides/pads have ", kernel_.size(), "/", strides.size(), "/", pads.size(),
                   " values for ", spatial, " spatial dims");
    for (size_t d = 0; d < spatial; ++d) {
      if (kernel_[d] <= 0 || strides[d] <= 0)
        return error(code, "kernel_shape and strides must be positive (dim ", d, ")");
      if (kernel_[d] > kMaxAttr || strides[d] > kMaxAttr || pads[d] > kMaxAttr || pads[d + spatial] > kMaxAttr)
        return error(code, "kernel_shape/strides/pads of dim ", d, " exceed ", kMaxAttr);
      if (pads[d] < 0 || pads[d + spatial] < 0)
        return error(code, "pads ", shape_to_string(pads), " must be non-negative");
    }
    return Status::ok();
  }

  // The unpooled size of spatial dim d for an input of size `in`.
  int64_t default_size(size_t d, int64_t in) const {
    const size_t s = kernel_.size();
    const int64_t stride = strides_.empty() ? 1 : strides_[d];
    const int64_t pad = pads_.empty() ? 0 : pads_[d] + pads_[d + s];
    return (in - 1) * stride - pad + kernel_[d];
  }

  static std::vector<int64_t> known_dims_or(const std::vector<ir::Dim>& dims) {
    std::vector<int64_t> v;
    for (const auto& d : dims) v.push_back(d.is_known() ? d.value : -1);
    return v;
  }
  // output_shape has the rank of X, X's N and C, and spatial dims no smaller than the unpooled
  // ones (-1: unknown, not checked).
  static Status check_output_shape(const std::vector<int64_t>& shape, const std::vector<int64_t>& unpooled,
                                   StatusCode code) {
    if (shape.size() != unpooled.size())
      return error(code, "output_shape ", shape_to_string(shape), " must have ", unpooled.size(),
                   " dims (the rank of X)");
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] < 0) return error(code, "output_shape ", shape_to_string(shape), " has a negative dim");
      if (unpooled[d] < 0) continue;
      if ((d < 2 && shape[d] != unpooled[d]) || shape[d] < unpooled[d])
        return error(code, "output_shape ", shape_to_string(shape), " does not hold the unpooled tensor ",
                     shape_to_string(unpooled), " (dim ", d, ")");
    }
    return Status::ok();
  }

  std::vector<int64_t> kernel_, strides_, pads_;
};

}  // namespace

HI_REGISTER_OP(MaxUnpool, MaxUnpoolOp)

}  // namespace hi::ops
