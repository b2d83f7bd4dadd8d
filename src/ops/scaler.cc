// Scaler (ai.onnx.ml opset 1): Y = (X - offset) * scale, as float. offset and scale each hold
// one value (applied to every element) or one per feature (X's last dim).
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kScalerTypes = bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32);

class ScalerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    offset_ = ctx.get_floats("offset");
    scale_ = ctx.get_floats("scale");
    HI_RETURN_IF_ERROR(ctx.status());
    if (offset_.empty() || scale_.empty())
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                      ": offset and scale must both be set, got ", offset_.size(), " and ", scale_.size(), " values");
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kScalerTypes, "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.has_rank() && x.rank() > 0 && x.shape->back().is_known())
      HI_RETURN_IF_ERROR(check_lengths(x.shape->back().value, StatusCode::kInvalidModel));
    ir::ValueType y = x;
    y.dtype = DType::kFloat32;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (!in_set(kScalerTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    const int64_t f = rows_of(x.shape()).features;
    HI_RETURN_IF_ERROR(check_lengths(f, StatusCode::kInvalidArgument));
    Tensor& y = ctx.output(0, DType::kFloat32, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t c = f > 0 ? static_cast<size_t>(i % f) : 0;
      const double offset = offset_.size() == 1 ? offset_[0] : offset_[c];
      const double scale = scale_.size() == 1 ? scale_[0] : scale_[c];
      y.data<float>()[i] = static_cast<float>((x.as_double(i) - offset) * scale);
    }
    return Status::ok();
  }

 private:
  Status check_lengths(int64_t features, StatusCode code) const {
    for (const auto* v : {&offset_, &scale_})
      if (v->size() != 1 && static_cast<int64_t>(v->size()) != features)
        return error(code, "Scaler (ai.onnx.ml opset ", opset_, "): ", v == &offset_ ? "offset" : "scale", " has ",
                     v->size(), " values, expected 1 or the ", features, " features of X");
    return Status::ok();
  }

  int64_t opset_ = 0;
  std::vector<float> offset_, scale_;
};

}  // namespace

HI_REGISTER_OP(Scaler, ScalerOp)

}  // namespace hi::ops
