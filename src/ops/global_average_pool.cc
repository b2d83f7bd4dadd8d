// GlobalAveragePool: the mean over all spatial dims, keeping them as size 1.
#include "ops/dispatch.h"
#include "ops/elementwise.h"

namespace hi::ops {
namespace {

class GlobalAveragePoolOp final : public Op {
 public:
  Status infer(InferContext& ctx) const override {
    const ir::ValueType& x = ctx.input_type(0);
    if (!in_set(kFloatTypes, x.dtype)) return unsupported_dtype(ctx.node(), x.dtype);
    if (!x.has_rank()) {
      ctx.set_output_type(0, x);
      return Status::ok();
    }
    if (x.rank() < 3) return error(StatusCode::kInvalidModel, "input ", x.to_string(), " must be [N, C, spatial...]");
    std::vector<ir::Dim> d = {(*x.shape)[0], (*x.shape)[1]};
    for (int64_t i = 2; i < x.rank(); ++i) d.push_back(ir::Dim::known(1));
    ctx.set_output_type(0, ir::ValueType::tensor(x.dtype, d));
    return Status::ok();
  }
  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() < 3)
      return error(StatusCode::kInvalidArgument, "input ", x.type_string(), " must be [N, C, spatial...]");
    Shape out = {x.dim(0), x.dim(1)};
    out.resize(static_cast<size_t>(x.rank()), 1);
    Tensor& y = ctx.output(0, x.dtype(), out);
    const int64_t planes = x.dim(0) * x.dim(1);
    const int64_t size = planes == 0 ? 0 : x.numel() / planes;
    dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      for (int64_t p = 0; p < planes; ++p) {
        double sum = 0;
        for (int64_t i = 0; i < size; ++i) sum += static_cast<double>(x.data<T>()[p * size + i]);
        y.data<T>()[p] = static_cast<T>(sum / static_cast<double>(size));
      }
    });
    return Status::ok();
  }
};

}  // namespace

HI_REGISTER_OP(GlobalAveragePool, GlobalAveragePoolOp)

}  // namespace hi::ops
