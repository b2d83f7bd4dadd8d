// Dropout at inference: the output is the input (shared), and the optional mask is all true
// (bool from opset 10, the input's type before). Training mode with a non-zero ratio would
// need random masks; it is refused with a clear error rather than silently ignored.
#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class DropoutOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    ratio_attr_ = ctx.get_float("ratio", 0.5f);
    (void)ctx.get_int("seed", 0);
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, opset_ >= 12 ? 3 : 1, 2));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.dtype != DType::kUndefined && !in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (ctx.has_input(1)) {
      const ir::ValueType& r = ctx.input_type(1);
      if (r.dtype != DType::kUndefined && !in_set(kFloatTypes, r.dtype))
        return error(StatusCode::kInvalidModel, "ratio must be a float scalar, got ", r.to_string());
    }
    if (ctx.has_input(2)) {
      const ir::ValueType& t = ctx.input_type(2);
      if (t.dtype != DType::kUndefined && t.dtype != DType::kBool)
        return error(StatusCode::kInvalidModel, "training_mode must be a bool scalar, got ", t.to_string());
    }
    ctx.set_output_type(0, x);
    if (ctx.num_outputs() > 1) {
      ir::ValueType mask = x;
      mask.dtype = mask_dtype(x.dtype);
      ctx.set_output_type(1, mask);
    }
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    float ratio = ratio_attr_;
    if (const Tensor* r = ctx.input(1)) {
      if (r->numel() != 1) return error(StatusCode::kInvalidArgument, "ratio must be a scalar, got ", r->type_string());
      ratio = static_cast<float>(r->as_double(0));
    }
    bool training = false;
    if (const Tensor* t = ctx.input(2)) {
      if (t->numel() != 1 || t->dtype() != DType::kBool)
        return error(StatusCode::kInvalidArgument, "training_mode must be a bool scalar, got ", t->type_string());
      training = *t->data<bool>();
    }
    if (training && ratio != 0.f)
      return error(StatusCode::kUnsupported, "training_mode is true with ratio ", ratio,
                   "; hipinfer runs Dropout for inference only");
    ctx.set_output(0, x);
    if (ctx.num_outputs() > 1 && !ctx.node().outputs[1].empty()) {
      const DType md = mask_dtype(x.dtype());
      Tensor& mask = ctx.output(1, md, x.shape());
      const int64_t n = mask.numel();
      if (!dispatch<kAllTypes>(md, [&]<typename T>() {
            T* p = mask.data<T>();
            for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(1.f);
          }))
        return unsupported_dtype(ctx.node(), md);
    }
    return Status::ok();
  }

 private:
  DType mask_dtype(DType x) const { return opset_ >= 10 ? DType::kBool : x; }

  int64_t opset_ = 13;
  float ratio_attr_ = 0.5f;
};

}  // namespace

HI_REGISTER_OP(Dropout, DropoutOp)

}  // namespace hi::ops
