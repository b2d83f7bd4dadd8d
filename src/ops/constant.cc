// Constant: a tensor given by one of the attributes value, sparse_value (made dense by the model
// reader), value_float(s), value_int(s), value_string(s).
#include "ops/op.h"

namespace hi::ops {
namespace {

class ConstantOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    int given = 0;
    for (const char* a : {"value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                          "value_strings", "sparse_value"})
      given += ctx.has(a) ? 1 : 0;
    if (given != 1)
      return ctx.fail(StatusCode::kInvalidModel, "exactly one value attribute must be set, found ", given);
    try {
      if (const Tensor* t = ctx.get_tensor("value")) value_ = *t;
      else if (const Tensor* dense = ctx.get_tensor("sparse_value")) value_ = *dense;
      else if (ctx.has("value_float")) value_ = Tensor::scalar<float>(ctx.get_float("value_float", 0));
      else if (ctx.has("value_int")) value_ = Tensor::scalar<int64_t>(ctx.get_int("value_int", 0));
      else if (ctx.has("value_floats")) {
        auto v = ctx.get_floats("value_floats");
        value_ = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      } else if (ctx.has("value_ints")) {
        auto v = ctx.get_ints("value_ints");
        value_ = Tensor::from_vector(v, {static_cast<int64_t>(v.size())});
      } else if (ctx.has("value_string")) {
        value_ = Tensor::empty(DType::kString, {});
        value_.strings()[0] = ctx.get_string("value_string", "");
      } else if (ctx.has("value_strings")) {
        auto v = ctx.get_strings("value_strings");
        value_ = Tensor::empty(DType::kString, {static_cast<int64_t>(v.size())});
        for (size_t i = 0; i < v.size(); ++i) value_.strings()[i] = v[i];
      }
    } catch (const OutOfMemory& e) {
      return ctx.fail(StatusCode::kOutOfMemory, e.what);
    }
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override {
    ctx.set_output_value(0, value_);
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    ctx.set_output(0, value_);
    return Status::ok();
  }

 private:
  Tensor value_;
};

}  // namespace

HI_REGISTER_OP(Constant, ConstantOp)

}  // namespace hi::ops
