// CenterCropPad (opset 18): crops or zero-pads each axis in `axes` (default all) to the size in
// `shape`, keeping the content centred. An odd difference leaves the extra element at the end
// when cropping and the extra padding at the end when padding (start = diff / 2). Any element
// type (strings pad with "").
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class CenterCropPadOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    has_axes_ = ctx.has("axes");
    axes_ = ctx.get_ints("axes");
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype, "input_data"));
    HI_RETURN_IF_ERROR(check_int_list_type(ctx.input_type(1), "shape"));
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> axes, resolve_axes(x.rank(), StatusCode::kInvalidModel));
    std::vector<ir::Dim> dims = *x.shape;
    const ir::ValueType& st = ctx.input_type(1);
    if (st.is_static() && st.rank() == 1 && st.concrete_shape()[0] != static_cast<int64_t>(axes.size()))
      return error(StatusCode::kInvalidModel, "shape ", st.to_string(), " must have one value per axis (", axes.size(),
                   ")");
    if (const Tensor* v = ctx.input_value(1)) {
      HI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, target_sizes(*v, axes.size(), StatusCode::kInvalidModel));
      for (size_t i = 0; i < axes.size(); ++i) dims[static_cast<size_t>(axes[i])] = ir::Dim::known(sizes[i]);
      HI_RETURN_IF_ERROR(check_output_dims(dims, "input 'shape' " + shape_to_string(sizes)));
    } else {
      for (int64_t a : axes) dims[static_cast<size_t>(a)] = ir::Dim{};
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, std::move(dims)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> axes, resolve_axes(x.rank(), StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, target_sizes(ctx.in(1), axes.size(), StatusCode::kInvalidArgument));
    const size_t rank = x.shape().size();
    Shape out_shape = x.shape();
    // Per axis: output index o reads input index o + shift when that lies inside the input.
    std::vector<int64_t> shift(rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const auto a = static_cast<size_t>(axes[i]);
      const int64_t in = x.shape()[a], want = sizes[i];
      out_shape[a] = want;
      shift[a] = want <= in ? (in - want) / 2 : -((want - in) / 2);
    }
    HI_RETURN_IF_ERROR(
        check_output_shape(out_shape, "input 'shape' " + shape_to_string(sizes), StatusCode::kInvalidArgument));
    Tensor& out = ctx.output(0, x.dtype(), out_shape);
    const std::vector<int64_t> strides = strides_of(x.shape());
    if (!dispatch_storage(x.dtype(), [&]<typename U>() {
          const U* src = storage<U>(x);
          U* dst = storage<U>(out);
          for_each_index(out_shape, [&](int64_t lin, const std::vector<int64_t>& idx) {
            int64_t off = 0;
            bool inside = true;
            for (size_t d = 0; d < rank && inside; ++d) {
              const int64_t i = idx[d] + shift[d];
              inside = i >= 0 && i < x.shape()[d];
              off += i * strides[d];
            }
            dst[lin] = inside ? src[off] : U{};
          });
        }))
      return check_movable(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  Result<std::vector<int64_t>> resolve_axes(int64_t rank, StatusCode code) const {
    if (!has_axes_) {
      std::vector<int64_t> all;
      for (int64_t i = 0; i < rank; ++i) all.push_back(i);
      return all;
    }
    auto r = normalize_axes(axes_, rank, "axes");
    if (!r.is_ok()) return Status(code, r.status().message());
    return r;
  }

  static Result<std::vector<int64_t>> target_sizes(const Tensor& t, size_t n, StatusCode code) {
    if (!dtype_is_integer(t.dtype()) || t.rank() != 1)
      return error(code, "shape must be a 1-D integer tensor, got ", t.type_string());
    std::vector<int64_t> v = t.to_int64_vector();
    if (v.size() != n) return error(code, "shape ", shape_to_string(v), " must have one value per axis (", n, ")");
    for (int64_t s : v)
      if (s < 0) return error(code, "shape ", shape_to_string(v), " has a negative size");
    return v;
  }

  bool has_axes_ = false;
  std::vector<int64_t> axes_;
};

}  // namespace

HI_REGISTER_OP(CenterCropPad, CenterCropPadOp)

}  // namespace hi::ops
