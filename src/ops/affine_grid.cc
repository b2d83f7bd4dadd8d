// AffineGrid (opset 20): the sampling grid for GridSample from affine matrices theta ([N, 2, 3]
// for size [N, C, H, W], [N, 3, 4] for [N, C, D, H, W]). Output [N, H, W, 2] (or [N, D, H, W,
// 3]) holds theta[n] @ (x, y[, z], 1) for normalised pixel centres in [-1, 1]: -1 + (2i + 1) / L,
// or with align_corners -1 + 2i / (L - 1). A dim of length 1 sits at 0 in both modes, as in
// PyTorch's affine_grid (which the op mirrors; the spec does not single the case out, and the
// ONNX reference's -1 there comes from an arange with an infinite step). x is the last dim.
#include "ops/elementwise.h"
#include "ops/index_util.h"

namespace hi::ops {
namespace {

class AffineGridOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    align_corners_ = ctx.get_int("align_corners", 0) != 0;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2));
    const ir::ValueType& theta = ctx.input_type(0);
    const ir::ValueType& size = ctx.input_type(1);
    if (theta.dtype != DType::kUndefined && !in_set(kFloatTypes, theta.dtype))
      return unsupported_dtype(ctx.node(), theta.dtype, "theta");
    if (size.dtype != DType::kUndefined && size.dtype != DType::kInt64)
      return error(StatusCode::kInvalidModel, "size must be int64, got ", size.to_string());
    if (size.has_rank() && size.rank() != 1)
      return error(StatusCode::kInvalidModel, "size must be 1-D, got ", size.to_string());
    if (theta.has_rank() && theta.rank() != 3)
      return error(StatusCode::kInvalidModel, "theta must be [N, 2, 3] or [N, 3, 4], got ", theta.to_string());
    int64_t len = -1;  // 4 (2-D) or 5 (3-D)
    if (size.is_static()) len = size.concrete_shape()[0];
    if (len < 0 && theta.has_rank() && (*theta.shape)[1].is_known()) len = (*theta.shape)[1].value + 2;
    if (len < 0) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(theta.dtype));
      return Status::ok();
    }
    if (len != 4 && len != 5)
      return error(StatusCode::kInvalidModel, "size must hold 4 ([N, C, H, W]) or 5 ([N, C, D, H, W]) values, got ",
                   len);
    const int64_t nd = len - 2;
    if (theta.has_rank()) {
      const auto& td = *theta.shape;
      if ((td[1].is_known() && td[1].value != nd) || (td[2].is_known() && td[2].value != nd + 1))
        return error(StatusCode::kInvalidModel, "theta ", theta.to_string(), " must be [N, ", nd, ", ", nd + 1,
                     "] for a ", nd, "-D size");
    }
    std::vector<ir::Dim> out(static_cast<size_t>(nd + 2));
    if (theta.has_rank()) out[0] = (*theta.shape)[0];
    if (const Tensor* v = ctx.input_value(1)) {
      HI_ASSIGN_OR_RETURN(std::vector<int64_t> s, sizes(*v, StatusCode::kInvalidModel));
      if (out[0].is_known() && out[0].value != s[0])
        return error(StatusCode::kInvalidModel, "size ", shape_to_string(s), " has N = ", s[0], " but theta is ",
                     theta.to_string());
      out[0] = ir::Dim::known(s[0]);
      for (int64_t d = 0; d < nd; ++d) out[static_cast<size_t>(d + 1)] = ir::Dim::known(s[static_cast<size_t>(d + 2)]);
    }
    out.back() = ir::Dim::known(nd);
    ctx.set_output_type(0, ir::ValueType::tensor(theta.dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& theta = ctx.in(0);
    HI_ASSIGN_OR_RETURN(std::vector<int64_t> s, sizes(ctx.in(1), StatusCode::kInvalidArgument));
    const int64_t nd = static_cast<int64_t>(s.size()) - 2;
    if (theta.rank() >= 1 && theta.dim(0) != s[0])
      return error(StatusCode::kInvalidArgument, "size ", shape_to_string(s), " has N = ", s[0], " but theta is ",
                   theta.type_string());
    if (theta.rank() != 3 || theta.dim(1) != nd || theta.dim(2) != nd + 1)
      return error(StatusCode::kInvalidArgument, "theta ", theta.type_string(), " must be [N, ", nd, ", ", nd + 1,
                   "] for size ", shape_to_string(s));
    const Shape spatial(s.begin() + 2, s.end());
    Shape out_shape = {s[0]};
    out_shape.insert(out_shape.end(), spatial.begin(), spatial.end());
    out_shape.push_back(nd);
    Tensor& y = ctx.output(0, theta.dtype(), out_shape);
    // Normalised coordinate of index i along a dim of length len.
    auto coord = [&](int64_t i, int64_t len) {
      if (len == 1) return 0.0;
      if (align_corners_) return -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(len - 1);
      return -1.0 + (2.0 * static_cast<double>(i) + 1.0) / static_cast<double>(len);
    };
    const int64_t points = shape_numel(spatial);
    const bool ok = dispatch<kFloatTypes>(theta.dtype(), [&]<typename T>() {
      const T* pt = theta.data<T>();
      T* py = y.data<T>();
      std::vector<double> base(static_cast<size_t>(nd + 1), 1.0);  // (x, y[, z], 1)
      for (int64_t n = 0; n < s[0]; ++n) {
        const T* th = pt + n * nd * (nd + 1);
        for_each_index(spatial, [&](int64_t p, const std::vector<int64_t>& idx) {
          // idx is (H, W) or (D, H, W); the homogeneous point lists the last dim (x) first.
          for (int64_t d = 0; d < nd; ++d)
            base[static_cast<size_t>(d)] =
                coord(idx[static_cast<size_t>(nd - 1 - d)], spatial[static_cast<size_t>(nd - 1 - d)]);
          for (int64_t row = 0; row < nd; ++row) {
            double v = 0;
            for (int64_t col = 0; col <= nd; ++col)
              v += static_cast<double>(th[row * (nd + 1) + col]) * base[static_cast<size_t>(col)];
            py[(n * points + p) * nd + row] = static_cast<T>(static_cast<compute_t<T>>(v));
          }
        });
      }
    });
    if (!ok) return unsupported_dtype(ctx.node(), theta.dtype(), "theta");
    return Status::ok();
  }

 private:
  static Result<std::vector<int64_t>> sizes(const Tensor& t, StatusCode code) {
    if (!dtype_is_integer(t.dtype()) || t.rank() != 1 || (t.numel() != 4 && t.numel() != 5))
      return error(code, "size must be an int64 [4] ([N, C, H, W]) or [5] ([N, C, D, H, W]) tensor, got ",
                   t.type_string());
    std::vector<int64_t> s = t.to_int64_vector();
    for (int64_t v : s)
      if (v < 0) return error(code, "size ", shape_to_string(s), " has a negative value");
    return s;
  }

  bool align_corners_ = false;
};

}  // namespace

HI_REGISTER_OP(AffineGrid, AffineGridOp)

}  // namespace hi::ops
