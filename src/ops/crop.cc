// Crop (opset 1, experimental; removed from ONNX in opset 10): crops an [N, C, H, W] input.
// border = [left, top, right, bottom]. Without `scale` the output is
// [N, C, H - top - bottom, W - left - right]; with scale = [h, w] it is the h x w window whose
// top-left corner is (top, left) (right and bottom are then unused).
#include "ops/copy_util.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class CropOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    border_ = ctx.get_ints("border");
    scale_ = ctx.get_ints("scale");
    HI_RETURN_IF_ERROR(ctx.status());
    if (border_.size() != 4)
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": border must be [left, top, right, bottom], got ", border_.size(), " values");
    for (int64_t b : border_)
      if (b < 0)
        return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": border values must be >= 0, got ",
                        b);
    if (!scale_.empty() && (scale_.size() != 2 || scale_[0] < 0 || scale_[1] < 0))
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": scale must be [height, width] >= 0, got ", scale_.size(), " values");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    const ir::ValueType& x = ctx.input_type(0);
    HI_RETURN_IF_ERROR(check_movable(ctx.node(), x.dtype));
    if (!x.has_rank()) {
      ctx.set_output_type(0, x);
      return Status::ok();
    }
    if (x.rank() != 4)
      return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": input must be [N, C, H, W], got ",
                   x.to_string());
    std::vector<ir::Dim> y = *x.shape;
    for (int d = 0; d < 2; ++d) {
      const ir::Dim in = (*x.shape)[static_cast<size_t>(2 + d)];
      if (!in.is_known()) {
        y[static_cast<size_t>(2 + d)] = scale_.empty() ? ir::Dim{} : ir::Dim::known(scale_[static_cast<size_t>(d)]);
        continue;
      }
      HI_ASSIGN_OR_RETURN(const int64_t size, window(d, in.value, StatusCode::kInvalidModel));
      y[static_cast<size_t>(2 + d)] = ir::Dim::known(size);
    }
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, y));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() != 4)
      return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": input must be [N, C, H, W], got ",
                   x.type_string());
    HI_ASSIGN_OR_RETURN(const int64_t h, window(0, x.dim(2), StatusCode::kInvalidArgument));
    HI_ASSIGN_OR_RETURN(const int64_t w, window(1, x.dim(3), StatusCode::kInvalidArgument));
    const int64_t planes = x.dim(0) * x.dim(1), in_h = x.dim(2), in_w = x.dim(3);
    const int64_t top = border_[1], left = border_[0];
    Tensor& y = ctx.output(0, x.dtype(), {x.dim(0), x.dim(1), h, w});
    const bool ok = dispatch_storage(x.dtype(), [&]<typename U>() {
      const U* px = storage<U>(x);
      U* py = storage<U>(y);
      for (int64_t p = 0; p < planes; ++p)
        for (int64_t i = 0; i < h; ++i)
          for (int64_t j = 0; j < w; ++j) py[(p * h + i) * w + j] = px[(p * in_h + top + i) * in_w + left + j];
    });
    if (!ok) return unsupported_type(ctx.node(), opset_, "input", x.dtype());
    return Status::ok();
  }

 private:
  // The output size along spatial dim d (0: height, 1: width) for an input of size `in`.
  Result<int64_t> window(int d, int64_t in, StatusCode code) const {
    const int64_t start = border_[static_cast<size_t>(1 - d)];  // top for height, left for width
    const int64_t size =
        scale_.empty() ? in - start - border_[static_cast<size_t>(3 - d)] : scale_[static_cast<size_t>(d)];
    if (size < 0 || start + size > in)
      return error(code, "Crop (opset ", opset_, "): the ", d == 0 ? "height" : "width", " window [", start, ", ",
                   start + size, ") does not fit the input's ", in);
    return size;
  }

  int64_t opset_ = 0;
  std::vector<int64_t> border_, scale_;
};

}  // namespace

HI_REGISTER_OP(Crop, CropOp)

}  // namespace hi::ops
