// CategoryMapper (ai.onnx.ml opset 1): maps strings to integers or integers to strings through
// the parallel lists cats_strings / cats_int64s. A string input gives int64 (unknown strings get
// default_int64, -1); an int64 input gives strings (unknown integers get default_string,
// "_Unused"). The output has X's shape. The first occurrence of a repeated entry wins.
#include <unordered_map>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

class CategoryMapperOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    strings_ = ctx.get_strings("cats_strings");
    ints_ = ctx.get_ints("cats_int64s");
    default_int_ = ctx.get_int("default_int64", -1);
    default_string_ = ctx.get_string("default_string", "_Unused");
    HI_RETURN_IF_ERROR(ctx.status());
    if (strings_.size() != ints_.size())
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": cats_strings has ", strings_.size(),
                      " entries, cats_int64s has ", ints_.size());
    for (size_t i = strings_.size(); i-- > 0;) {
      to_int_[strings_[i]] = ints_[i];
      to_string_[ints_[i]] = i;
    }
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kString) | bit(DType::kInt64), "X"));
    ir::ValueType y = ctx.input_type(0);
    if (y.dtype != DType::kUndefined) y.dtype = y.dtype == DType::kString ? DType::kInt64 : DType::kString;
    ctx.set_output_type(0, y);
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() == DType::kString) {
      Tensor& y = ctx.output(0, DType::kInt64, x.shape());
      for (int64_t i = 0; i < x.numel(); ++i) {
        auto it = to_int_.find(x.strings()[i]);
        y.data<int64_t>()[i] = it == to_int_.end() ? default_int_ : it->second;
      }
      return Status::ok();
    }
    if (x.dtype() != DType::kInt64) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    Tensor& y = ctx.output(0, DType::kString, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i) {
      auto it = to_string_.find(x.data<int64_t>()[i]);
      y.strings()[i] = it == to_string_.end() ? default_string_ : strings_[it->second];
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::vector<std::string> strings_;
  std::vector<int64_t> ints_;
  int64_t default_int_ = -1;
  std::string default_string_;
  std::unordered_map<std::string, int64_t> to_int_;
  std::unordered_map<int64_t, size_t> to_string_;
};

}  // namespace

HI_REGISTER_OP(CategoryMapper, CategoryMapperOp)

}  // namespace hi::ops
