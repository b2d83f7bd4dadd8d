// FeatureVectorizer (ai.onnx.ml opset 1): concatenates its inputs, each seen as [N, C_i] (a 1-D
// input is one row [1, C]; higher ranks flatten after the first dim), along the second axis into
// one float [N, sum(inputdimensions)] tensor. Input i fills inputdimensions[i] columns: extra
// values are dropped, missing ones are zeros (as the onnx reference does).
#include <algorithm>
#include <numeric>

#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kVectorizerTypes =
    bit(DType::kInt32) | bit(DType::kInt64) | bit(DType::kFloat32) | bit(DType::kFloat64);

class FeatureVectorizerOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    dims_ = ctx.get_ints("inputdimensions");
    HI_RETURN_IF_ERROR(ctx.status());
    for (int64_t d : dims_)
      if (d < 0)
        return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": inputdimensions must be >= 0, got ",
                        d);
    if (dims_.size() != ctx.node().inputs.size())
      return ctx.fail(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": inputdimensions has ", dims_.size(),
                      " values for ", ctx.node().inputs.size(), " inputs");
    total_ = std::accumulate(dims_.begin(), dims_.end(), int64_t{0});
    return Status::ok();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, ctx.num_inputs(), ctx.num_inputs(), 1));
    if (ctx.num_inputs() == 0)
      return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": needs at least one input");
    ir::Dim n;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, i, kVectorizerTypes, "X"));
      const ir::ValueType& t = ctx.input_type(i);
      if (t.has_rank() && t.rank() == 0)
        return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_), ": input ", i,
                     " is a scalar, expected [N, C] or [C]");
      if (t.has_rank() && !n.is_known()) n = t.rank() == 1 ? ir::Dim::known(1) : (*t.shape)[0];
    }
    ctx.set_output_type(0, ir::ValueType::tensor(DType::kFloat32, {n, ir::Dim::known(total_)}));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    int64_t n = -1;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.in(i);
      if (!in_set(kVectorizerTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
      if (x.rank() == 0)
        return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": input ", i,
                     " is a scalar, expected [N, C] or [C]");
      const int64_t rows = x.rank() == 1 ? 1 : x.dim(0);
      if (n >= 0 && rows != n)
        return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": input ", i, " ", x.type_string(),
                     " has ", rows, " rows, input 0 has ", n);
      n = rows;
    }
    Tensor& y = ctx.output(0, DType::kFloat32, {n, total_});
    float* py = y.data<float>();
    std::fill(py, py + y.numel(), 0.f);
    int64_t col = 0;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Tensor& x = ctx.in(i);
      const int64_t c = n == 0 ? 0 : x.numel() / n;
      const int64_t take = std::min(c, dims_[i]);
      for (int64_t r = 0; r < n; ++r)
        for (int64_t j = 0; j < take; ++j) py[r * total_ + col + j] = static_cast<float>(x.as_double(r * c + j));
      col += dims_[i];
    }
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
  std::vector<int64_t> dims_;
  int64_t total_ = 0;
};

}  // namespace

HI_REGISTER_OP(FeatureVectorizer, FeatureVectorizerOp)

}  // namespace hi::ops
