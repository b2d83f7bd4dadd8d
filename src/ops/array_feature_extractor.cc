// ArrayFeatureExtractor (ai.onnx.ml opset 1): Z = X[..., indices] along the last axis. The
// indices (int64, any shape) are read flat; Z has X's leading dims and one last dim per index.
// A 1-D X gives [1, k], as ONNX Runtime does. Indices must lie in [0, F).
#include "ops/copy_util.h"
#include "ops/ml_util.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr uint64_t kExtractTypes =
    bit(DType::kFloat32) | bit(DType::kFloat64) | bit(DType::kInt64) | bit(DType::kInt32) | bit(DType::kString);

class ArrayFeatureExtractorOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 2, 2, 1));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 0, kExtractTypes, "X"));
    HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset_, ctx, 1, bit(DType::kInt64), "Y (indices)"));
    const ir::ValueType& x = ctx.input_type(0);
    const ir::ValueType& idx = ctx.input_type(1);
    if (!x.has_rank()) {
      ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(x.dtype));
      return Status::ok();
    }
    if (x.rank() == 0)
      return error(StatusCode::kInvalidModel, op_label(ctx.node(), opset_),
                   ": X must have at least one dim, got a scalar");
    ir::Dim k;
    if (idx.is_static()) k = ir::Dim::known(shape_numel(idx.concrete_shape()));
    std::vector<ir::Dim> z = x.rank() == 1 ? std::vector<ir::Dim>{ir::Dim::known(1)}
                                           : std::vector<ir::Dim>(x.shape->begin(), x.shape->end() - 1);
    z.push_back(k);
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, z));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    const Tensor& idx = ctx.in(1);
    if (!in_set(kExtractTypes, x.dtype())) return unsupported_type(ctx.node(), opset_, "X", x.dtype());
    if (idx.dtype() != DType::kInt64) return unsupported_type(ctx.node(), opset_, "Y (indices)", idx.dtype());
    if (x.rank() == 0)
      return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_),
                   ": X must have at least one dim, got a scalar");
    const int64_t f = x.dim(x.rank() - 1);
    const int64_t k = idx.numel();
    const int64_t* pi = idx.data<int64_t>();
    for (int64_t j = 0; j < k; ++j)
      if (pi[j] < 0 || pi[j] >= f)
        return error(StatusCode::kInvalidArgument, op_label(ctx.node(), opset_), ": index ", pi[j], " (position ", j,
                     " of Y) is outside [0, ", f, ") for X ", x.type_string());
    Shape z_shape = x.rank() == 1 ? Shape{1} : Shape(x.shape().begin(), x.shape().end() - 1);
    z_shape.push_back(k);
    Tensor& z = ctx.output(0, x.dtype(), z_shape);
    const int64_t rows = rows_of(x.shape()).rows;
    dispatch_storage(x.dtype(), [&]<typename U>() {
      const U* px = storage<U>(x);
      U* pz = storage<U>(z);
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t j = 0; j < k; ++j) pz[r * k + j] = px[r * f + pi[j]];
    });
    return Status::ok();
  }

 private:
  int64_t opset_ = 0;
};

}  // namespace

HI_REGISTER_OP(ArrayFeatureExtractor, ArrayFeatureExtractorOp)

}  // namespace hi::ops
