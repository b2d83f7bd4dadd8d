// ZipMap (ai.onnx.ml opset 1): each row of X (float [N, C], or [C] as one row) becomes a map from
// the C class labels (classlabels_strings or classlabels_int64s) to that row's scores. The output
// is a sequence of N maps: how scikit-learn and Custom Vision classifiers return probabilities.
#include <algorithm>

#include "ops/ml_util.h"
#include "ops/op_checks.h"
#include "ops/sequence_util.h"

namespace hi::ops {
namespace {

class ZipMapOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    label_ = op_label(ctx.node(), opset_);
    const std::vector<std::string> strings = ctx.get_strings("classlabels_strings");
    const std::vector<int64_t> ints = ctx.get_ints("classlabels_int64s");
    HI_RETURN_IF_ERROR(ctx.status());
    if (strings.empty() == ints.empty())
      return error(StatusCode::kInvalidModel, label_,
                   ": exactly one of classlabels_strings and classlabels_int64s must be set, got ",
                   strings.empty() ? "neither" : "both");
    const int64_t n = static_cast<int64_t>(strings.empty() ? ints.size() : strings.size());
    // The keys are the same for every row: one tensor the output maps share.
    keys_ = Tensor::empty(strings.empty() ? DType::kInt64 : DType::kString, {n});
    for (int64_t i = 0; i < n; ++i) {
      if (strings.empty()) keys_.data<int64_t>()[i] = ints[static_cast<size_t>(i)];
      else keys_.strings()[i] = strings[static_cast<size_t>(i)];
    }
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 1, 1, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, bit(DType::kFloat32), "X"));
    const ir::ValueType& x = ctx.input_type(0);
    if (x.has_rank() && (x.rank() < 1 || x.rank() > 2))
      return error(StatusCode::kInvalidModel, label_, ": X must be [N, C] or [C], got ", x.to_string());
    if (x.has_rank() && x.shape->back().is_known() && x.shape->back().value != keys_.numel())
      return error(StatusCode::kInvalidModel, label_, ": X has ", x.shape->back().value, " columns but ", keys_.numel(),
                   " class labels are given");
    ir::ValueType map;
    map.kind = ir::ValueKind::kMap;
    map.dtype = keys_.dtype();
    map.elem = std::make_shared<ir::ValueType>(ir::ValueType::tensor(DType::kFloat32, {}));
    ctx.set_output_type(0, sequence_of(std::move(map)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.dtype() != DType::kFloat32) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (x.rank() < 1 || x.rank() > 2)
      return error(StatusCode::kInvalidArgument, label_, ": X must be [N, C] or [C], got ", x.type_string());
    const int64_t cols = x.shape().back();
    if (cols != keys_.numel())
      return error(StatusCode::kInvalidArgument, label_, ": X is ", x.type_string(), ", with ", cols, " columns, but ",
                   keys_.numel(), " class labels are given");
    const int64_t rows = x.rank() == 2 ? x.shape()[0] : 1;
    std::vector<Map> maps(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      Map& m = maps[static_cast<size_t>(r)];
      m.keys = keys_;
      m.values = Tensor::empty(DType::kFloat32, {cols});
      std::copy_n(x.data<float>() + r * cols, cols, m.values.data<float>());
    }
    ctx.set_output_value(0, Value::of_map_sequence(std::move(maps)));
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::string label_;
  Tensor keys_;
};

}  // namespace

HI_REGISTER_OP(ZipMap, ZipMapOp)

}  // namespace hi::ops
